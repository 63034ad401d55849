import { describe, expect, it } from 'vitest';
import { noteTitle } from './title.ts';

describe('noteTitle', () => {
  it('is the first level-1 heading', () => {
    expect(noteTitle('a/b.md', 'intro\n# Weekly review\n# Second\n')).toBe('Weekly review');
    expect(noteTitle('a/b.md', '#   Spaced out   ##\n')).toBe('Spaced out');
  });

  it('skips frontmatter and fenced code', () => {
    const content = '---\ntitle: x\n# not: a heading\n---\n```md\n# in code\n```\n~~~\n# also code\n~~~\n# Real\n';
    expect(noteTitle('n.md', content)).toBe('Real');
  });

  it('ignores level-2 headings and hashtags', () => {
    expect(noteTitle('Folder/Plan B.md', '## Sub\n#tag text\n')).toBe('Plan B');
  });

  it('falls back to the file name, also for CRLF files and unclosed frontmatter', () => {
    expect(noteTitle('x/Meeting notes.md', 'no heading here')).toBe('Meeting notes');
    expect(noteTitle('x.md', '---\r\na: 1\r\n---\r\n# Windows\r\n')).toBe('Windows');
    expect(noteTitle('y.md', '---\na: 1\n')).toBe('y');
  });
});
