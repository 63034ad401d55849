import { describe, expect, it } from 'vitest';
import { KgateError } from './errors.ts';
import { MAX_NOTE_PATH_BYTES, normalizeNotePath, noteBaseName, notePathKey } from './vault-path.ts';

function reasonOf(input: unknown): string | undefined {
  try {
    normalizeNotePath(input);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(KgateError);
    expect((error as KgateError).code).toBe('invalid_path');
    return (error as KgateError).details?.reason as string;
  }
}

describe('normalizeNotePath', () => {
  it('accepts ordinary vault-relative Markdown paths unchanged', () => {
    for (const path of ['Home.md', 'Projects/Tidewater/Roadmap.md', 'a b/c-d_e (1).md', 'ünï/cödé 📝.md', '.md.md', 'x/.hidden.md']) {
      expect(normalizeNotePath(path)).toBe(path);
    }
  });

  it('normalizes to NFC so that both spellings of é are one path', () => {
    const decomposed = 'Caf\u0065\u0301.md';
    const composed = 'Caf\u00e9.md';
    expect(normalizeNotePath(decomposed)).toBe(composed);
    expect(notePathKey(normalizeNotePath(decomposed))).toBe(notePathKey(composed));
  });

  it.each([
    ['../secret.md', 'dot_segment'],
    ['notes/../../etc/passwd.md', 'dot_segment'],
    ['notes/./a.md', 'dot_segment'],
    ['..', 'dot_segment'],
    ['/etc/passwd.md', 'absolute'],
    ['/Home.md', 'absolute'],
    ['C:/Users/a.md', 'absolute'],
    ['folder\\note.md', 'backslash'],
    ['..\\..\\note.md', 'backslash'],
    ['note\u0000.md', 'control_character'],
    ['note\n.md', 'control_character'],
    ['note\t.md', 'control_character'],
    ['note\u007f.md', 'control_character'],
    ['note\u0085.md', 'control_character'],
    ['evil\u202egnp.md', 'bidi_control'],
    ['note.txt', 'not_markdown'],
    ['note.MD.txt', 'not_markdown'],
    ['note', 'not_markdown'],
    ['folder/.md', 'not_markdown'],
    ['folder/', 'empty_segment'],
    ['a//b.md', 'empty_segment'],
    ['', 'empty'],
  ])('rejects %j (%s)', (input, reason) => {
    expect(reasonOf(input)).toBe(reason);
  });

  it('rejects non-strings', () => {
    expect(reasonOf(42)).toBe('not_a_string');
    expect(reasonOf(null)).toBe('not_a_string');
    expect(reasonOf(['a.md'])).toBe('not_a_string');
  });

  it('accepts exactly 1,024 bytes and rejects 1,025, counting UTF-8 bytes', () => {
    const folder = (n: number) => `${'f'.repeat(n)}/`;
    const fit = `${folder(200).repeat(5)}${'n'.repeat(MAX_NOTE_PATH_BYTES - 1005 - 3)}.md`;
    expect(Buffer.byteLength(fit)).toBe(1024);
    expect(normalizeNotePath(fit)).toBe(fit);
    expect(reasonOf(`x${fit}`)).toBe('too_long');
    // 400 three-byte characters are 1,200 bytes but only 400 UTF-16 units.
    expect(reasonOf(`${'€'.repeat(200)}/${'€'.repeat(200)}.md`)).toBe('too_long');
  });

  it('rejects a single name longer than 255 bytes', () => {
    expect(reasonOf(`${'a'.repeat(253)}.md`)).toBe('segment_too_long');
    expect(normalizeNotePath(`${'a'.repeat(252)}.md`)).toHaveLength(255);
  });
});

describe('notePathKey and noteBaseName', () => {
  it('folds case so that Note.md and note.md are one note', () => {
    expect(notePathKey('Folder/Note.md')).toBe(notePathKey('folder/NOTE.md'));
  });

  it('gives the file name without folders and extension', () => {
    expect(noteBaseName('a/b/Weekly review.md')).toBe('Weekly review');
    expect(noteBaseName('Home.md')).toBe('Home');
  });
});
