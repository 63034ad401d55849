import { describe, expect, it } from 'vitest';
import { findHeadings, headingPath, lineBreakOf, listHeadings, listMarkedBlocks, locateFrontmatterKey, noteLines } from './sections.ts';

const NOTE = [
  '---',
  'title: A',
  '# not a heading: frontmatter',
  '---',
  '# Top',
  'intro',
  '## Tasks',
  '- [ ] one ^t1',
  '```md',
  '## Fenced, not a heading',
  'x ^fenced',
  '```',
  '### Deep',
  'deep text',
  '## Notes',
  'first line',
  'second line ^p2',
  '# Other',
  '## Tasks',
  '',
].join('\n');

describe('sections of a note', () => {
  it('lists headings outside code and frontmatter, with their sections and parents', () => {
    const headings = listHeadings(NOTE);
    expect(headings.map((h) => [h.line + 1, h.level, h.text, h.parents])).toEqual([
      [5, 1, 'Top', []],
      [7, 2, 'Tasks', ['Top']],
      [13, 3, 'Deep', ['Top', 'Tasks']],
      [15, 2, 'Notes', ['Top']],
      [18, 1, 'Other', []],
      [19, 2, 'Tasks', ['Other']],
    ]);
    const tasks = headings[1]!;
    expect(NOTE.slice(tasks.bodyStart, tasks.sectionEnd)).toBe('- [ ] one ^t1\n```md\n## Fenced, not a heading\nx ^fenced\n```\n### Deep\ndeep text\n');
    expect(headings[5]!.sectionEnd).toBe(NOTE.length);
  });

  it('finds headings by path, parents in order but not necessarily direct', () => {
    const headings = listHeadings(NOTE);
    expect(findHeadings(headings, headingPath('Tasks')).map((h) => h.line + 1)).toEqual([7, 19]);
    expect(findHeadings(headings, headingPath('Other > Tasks')).map((h) => h.line + 1)).toEqual([19]);
    expect(findHeadings(headings, headingPath(' Top >  Deep ')).map((h) => h.line + 1)).toEqual([13]);
    expect(findHeadings(headings, headingPath('Other > Deep'))).toEqual([]);
    expect(findHeadings(headings, headingPath('Fenced, not a heading'))).toEqual([]);
  });

  it('finds blocks ending in ^id: list items after their marker, paragraphs from their first line', () => {
    const blocks = listMarkedBlocks(NOTE);
    expect(blocks.map((b) => [b.id, b.line + 1, NOTE.slice(b.start, b.end)])).toEqual([
      ['t1', 8, '[ ] one'],
      ['p2', 17, 'first line\nsecond line'],
    ]);
    expect(listMarkedBlocks('> quoted ^q\n^alone\n# H ^h\n')).toEqual([{ id: 'q', line: 0, start: 2, end: 8 }]);
  });

  it('reads CRLF lines without their CR and tells the line break in use', () => {
    const crlf = '# A\r\ntext ^b\r\n';
    expect(noteLines(crlf).map((l) => crlf.slice(l.start, l.end))).toEqual(['# A', 'text ^b']);
    expect(lineBreakOf(crlf)).toBe('\r\n');
    expect(lineBreakOf('no break')).toBe('\n');
    expect(listMarkedBlocks(crlf)[0]).toMatchObject({ start: 5, end: 9 });
  });

  it('locates a frontmatter key, where a missing one goes, and refuses what is not a block mapping', () => {
    const note = '---\na: 1 # one\nlist:\n  - x\n  - y\n---\nbody\n';
    const list = locateFrontmatterKey(note, 'list');
    expect(list.kind === 'found' && note.slice(list.start, list.end)).toBe('list:\n  - x\n  - y');
    const a = locateFrontmatterKey(note, 'a');
    expect(a.kind === 'found' && note.slice(a.start, a.end)).toBe('a: 1 # one');
    expect(locateFrontmatterKey(note, 'b')).toEqual({ kind: 'missing', at: note.indexOf('\n---\nbody'), breakBefore: true });
    expect(locateFrontmatterKey('---\n---\n', 'b')).toEqual({ kind: 'missing', at: 4, breakBefore: false });
    expect(locateFrontmatterKey('body', 'b')).toEqual({ kind: 'none', at: 0 });
    expect(locateFrontmatterKey('\ufeffbody', 'b')).toEqual({ kind: 'none', at: 1 });
    expect(locateFrontmatterKey('---\n{a: 1}\n---\n', 'a').kind).toBe('unreadable');
    expect(locateFrontmatterKey('---\na: [\n---\n', 'a').kind).toBe('unreadable');
  });
});
