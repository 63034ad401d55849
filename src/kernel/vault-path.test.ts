import { describe, expect, it } from 'vitest';
import { KgateError } from './errors.ts';
import { assertPortableNotePath, MAX_NOTE_PATH_BYTES, normalizeNotePath, noteBaseName, notePathKey } from './vault-path.ts';

function reasonOf(input: unknown, check: (input: unknown) => unknown = normalizeNotePath): string | undefined {
  try {
    check(input);
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

/** The reason a path to write content to is refused for: canonicalized first, as every caller does. */
const portableReasonOf = (input: string) => reasonOf(input, (path) => assertPortableNotePath(normalizeNotePath(path)));

describe('assertPortableNotePath', () => {
  it.each([
    // Device names only as the whole name before the first dot: longer names and other digits are ordinary.
    'CONSOLE.md',
    'Com10.md',
    'icon.md',
    'CONIN.md',
    'NUL-list.md',
    'con_1.md',
    '$CON.md',
    'COM/a.md',
    'LPT10/notes.md',
    'Auxiliary/Prn report.md',
    // Windows reserves the superscripts ¹ ² ³ only, not ⁴ or subscripts, and not full-width letters.
    'COM⁴.md',
    'LPT₁.md',
    'ＣＯＮ.md',
    // Only ASCII letters fold: a dotless ı is not the I of CONIN$, a no-break space is not a space Windows drops.
    'CONıN$.md',
    'CON\u00a0.md',
    // Dots and spaces are fine inside a name and at its start; only a name's last character counts.
    'b..md',
    'a.b/c.md',
    'v1.0 notes/a.md',
    ' leading/ a.md',
    'a .md',
    'x/.hidden.md',
    // Characters that look like the refused ones but are not them.
    'Q&A ＜draft＞ ：？.md',
    'a#b%c.md',
  ])('accepts %j', (path) => {
    expect(portableReasonOf(path)).toBeUndefined();
  });

  it.each([
    ['con.md', 'reserved_name'],
    ['CON.md', 'reserved_name'],
    ['Con.txt.md', 'reserved_name'],
    ['Hostile/NUL.md', 'reserved_name'],
    ['nul.md', 'reserved_name'],
    ['PRN.md', 'reserved_name'],
    ['aux.md', 'reserved_name'],
    ['COM0.md', 'reserved_name'],
    ['com1.md', 'reserved_name'],
    ['COM9.md', 'reserved_name'],
    ['LPT0.md', 'reserved_name'],
    ['lpt9.md', 'reserved_name'],
    ['COM¹.md', 'reserved_name'],
    ['com².md', 'reserved_name'],
    ['LPT³.md', 'reserved_name'],
    ['conin$.md', 'reserved_name'],
    ['CONOUT$.md', 'reserved_name'],
    ['LPT1/notes.md', 'reserved_name'],
    ['a/b/Aux/c.md', 'reserved_name'],
    ['CON..md', 'reserved_name'],
    // Windows drops spaces between a device name and its extension: "nul .md" opens NUL.
    ['nul .md', 'reserved_name'],
    ['Notes /a.md', 'trailing_dot_or_space'],
    ['a./b.md', 'trailing_dot_or_space'],
    ['a/b ./c.md', 'trailing_dot_or_space'],
    ['.../a.md', 'trailing_dot_or_space'],
    ['CON./a.md', 'trailing_dot_or_space'],
    ['a<b.md', 'reserved_character'],
    ['a>b.md', 'reserved_character'],
    ['ab:c.md', 'reserved_character'],
    ['say "hi".md', 'reserved_character'],
    ['a|b.md', 'reserved_character'],
    ['why?.md', 'reserved_character'],
    ['star*.md', 'reserved_character'],
    ['Folder:x/a.md', 'reserved_character'],
    ['Quiz: CON?/a.md', 'reserved_character'],
  ])('refuses %j (%s), which normalizeNotePath alone accepts', (path, reason) => {
    expect(normalizeNotePath(path)).toBe(path);
    expect(portableReasonOf(path)).toBe(reason);
  });

  it('names the rule and the name in its message', () => {
    const messageOf = (path: string) => {
      try {
        assertPortableNotePath(path);
      } catch (error) {
        return (error as KgateError).message;
      }
      throw new Error(`${path} was accepted`);
    };
    expect(messageOf('Hostile/NUL.md')).toMatch(/"NUL\.md" is a reserved device name on Windows/);
    expect(messageOf('Notes /a.md')).toMatch(/"Notes " ends in a dot or a space/);
    expect(messageOf('why?.md')).toMatch(/"why\?\.md" contains "\?"; Windows and synced drives refuse/);
  });

  it('keeps the earlier rules first: a drive letter (any letter and a colon) is absolute, a backslash is a backslash', () => {
    expect(portableReasonOf('C:/a.md')).toBe('absolute');
    expect(portableReasonOf('a:b.md')).toBe('absolute');
    expect(portableReasonOf('a\\CON.md')).toBe('backslash');
  });

  it('checks the canonical (NFC) form', () => {
    // N + combining tilde composes to Ñ: "COÑ" is no device name.
    expect(normalizeNotePath('CON\u0303.md')).toBe('CO\u00d1.md');
    expect(portableReasonOf('CON\u0303.md')).toBeUndefined();
    // Composition does not move a trailing space: "Cafe\u0301 " is "Café " either way.
    expect(portableReasonOf('Cafe\u0301 /a.md')).toBe('trailing_dot_or_space');
    // A combining mark after a dot has no composed form, so the name ends in the mark, not in a dot.
    expect(normalizeNotePath('a.\u0301/b.md')).toBe('a.\u0301/b.md');
    expect(portableReasonOf('a.\u0301/b.md')).toBeUndefined();
    // NFC keeps superscripts (only NFKC would fold them to digits), so COM¹ stays reserved.
    expect(normalizeNotePath('COM\u00b9.md')).toBe('COM¹.md');
    expect(portableReasonOf('COM\u00b9.md')).toBe('reserved_name');
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
