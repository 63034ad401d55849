import { describe, expect, it } from 'vitest';
import { decodeHrefPart, isExternalHref, parseMarkdownLinkAt } from './markdown-link-syntax.ts';

describe('isExternalHref', () => {
  it('takes a scheme of two or more characters, or //, as external', () => {
    expect(['https://x.test', 'mailto:a@b.test', 'obsidian://open', 'ftp:x', '//cdn.test/a'].map(isExternalHref)).toEqual([true, true, true, true, true]);
    expect(['Notes/a.md', 'a:b.md'.slice(2), '#heading', 'C:/notes/a.md'.slice(3), '../x.md', 'C:x'].map(isExternalHref)).toEqual([false, false, false, false, false, false]);
  });
});

describe('decodeHrefPart', () => {
  it('percent-decodes and unescapes, keeping malformed escapes as written', () => {
    expect(decodeHrefPart('Offline%20Sync.md')).toBe('Offline Sync.md');
    expect(decodeHrefPart('Caf%C3%A9.md')).toBe('Café.md');
    expect(decodeHrefPart('100%.md')).toBe('100%.md');
    expect(decodeHrefPart('a\\(b\\).md')).toBe('a(b).md');
  });
});

describe('parseMarkdownLinkAt', () => {
  it('reads a link inside the given range only', () => {
    const text = 'x [a](b.md) y';
    expect(parseMarkdownLinkAt(text, 2, text.length, false, 7)).toMatchObject({ line: 7, start: 2, end: 11, href: 'b.md', path: 'b.md' });
    expect(parseMarkdownLinkAt(text, 2, 10, false, 0)).toBeTypeOf('number');
  });

  it('tells how far it read when there is no link', () => {
    expect(parseMarkdownLinkAt('[a] b', 0, 5, false, 0)).toBe(3);
    expect(parseMarkdownLinkAt('[a](b c) more', 0, 13, false, 0)).toBe(6);
    expect(parseMarkdownLinkAt('[[[ no close', 0, 12, false, 0)).toBe(12);
  });

  it('skips code spans and escapes inside the link text', () => {
    expect(parseMarkdownLinkAt('[a `]` b](x)', 0, 12, false, 0)).toMatchObject({ text: 'a `]` b', href: 'x' });
    expect(parseMarkdownLinkAt('[a \\] b](x)', 0, 11, false, 0)).toMatchObject({ text: 'a \\] b' });
    expect(parseMarkdownLinkAt('[a [b] c](x)', 0, 12, false, 0)).toMatchObject({ text: 'a [b] c' });
  });
});
