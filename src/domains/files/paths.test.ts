import { describe, expect, it } from 'vitest';
import { KgateError } from '../../kernel/errors.ts';
import { extensionOf, mediaTypeOf } from './media-types.ts';
import { assertPortableFilePath, fileKindOf, filePathKey, normalizeFilePath } from './paths.ts';

function reasonOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    if (error instanceof KgateError && error.code === 'invalid_path') return String(error.details?.reason);
    throw error;
  }
  return undefined;
}

describe('file paths', () => {
  it('accepts attachment and canvas paths and canonicalizes them to NFC', () => {
    expect(normalizeFilePath('Attachments/Cafe\u0301.png')).toBe('Attachments/Caf\u00e9.png');
    expect(normalizeFilePath('Board.canvas')).toBe('Board.canvas');
    expect(normalizeFilePath('no-extension')).toBe('no-extension');
    expect(normalizeFilePath('notes.md.bak')).toBe('notes.md.bak');
    expect(filePathKey('Img/A.PNG')).toBe('img/a.png');
    expect(fileKindOf('x/Board.CANVAS')).toBe('canvas');
    expect(fileKindOf('x/a.png')).toBe('attachment');
  });

  it('refuses with a reason: hidden names, notes, and the rules of note paths', () => {
    const cases: [unknown, string][] = [
      [42, 'not_a_string'],
      ['', 'empty'],
      ['.obsidian/app.json', 'hidden_segment'],
      ['a/.trash/x.png', 'hidden_segment'],
      ['.DS_Store', 'hidden_segment'],
      ['Note.md', 'markdown_file'],
      ['Note.MD', 'markdown_file'],
      ['a/../b.png', 'dot_segment'],
      ['./b.png', 'dot_segment'],
      ['/abs.png', 'absolute'],
      ['C:x.png', 'absolute'],
      ['a\\b.png', 'backslash'],
      ['a//b.png', 'empty_segment'],
      ['a/', 'empty_segment'],
      ['a\u0000.png', 'control_character'],
      ['a\u202e.png', 'bidi_control'],
      [`${'x'.repeat(256)}.png`, 'segment_too_long'],
      [`${'x/'.repeat(520)}a.png`, 'too_long'],
    ];
    expect(cases.map(([path]) => reasonOf(() => normalizeFilePath(path)))).toEqual(cases.map(([, reason]) => reason));
    expect(reasonOf(() => assertPortableFilePath('Why?.png'))).toBe('reserved_character');
    expect(reasonOf(() => assertPortableFilePath('CON.png'))).toBe('reserved_name');
  });
});

describe('media types', () => {
  const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
  it('come from the extension, any case', () => {
    expect(extensionOf('a/b.tar.GZ')).toBe('gz');
    expect(extensionOf('a/.hidden')).toBe('');
    expect(extensionOf('a/none')).toBe('');
    expect(mediaTypeOf('x.PDF', Buffer.from('%PDF'))).toBe('application/pdf');
    expect(mediaTypeOf('x.mp3', Buffer.alloc(4))).toBe('audio/mpeg');
    expect(mediaTypeOf('x.svg', Buffer.from('<svg/>'))).toBe('image/svg+xml');
    expect(mediaTypeOf('x.canvas', Buffer.from('{}'))).toBe('application/json');
    expect(mediaTypeOf('x.unknown', Buffer.alloc(1))).toBe('application/octet-stream');
  });
  it('of raster images, only when the bytes start with the signature', () => {
    expect(mediaTypeOf('x.png', PNG)).toBe('image/png');
    expect(mediaTypeOf('x.png', Buffer.from('<script>alert(1)</script>'))).toBe('application/octet-stream');
    expect(mediaTypeOf('x.jpg', PNG)).toBe('application/octet-stream');
    expect(mediaTypeOf('x.jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(mediaTypeOf('x.gif', Buffer.from('GIF89a...'))).toBe('image/gif');
    expect(mediaTypeOf('x.webp', Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(mediaTypeOf('x.png', Buffer.alloc(0))).toBe('application/octet-stream');
  });
});
