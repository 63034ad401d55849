import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_ITEMS_PER_KIND } from './markdown-model.ts';
import type { SourceSpan } from './markdown-model.ts';
import { parseMarkdown } from './parse.ts';

const spanText = (content: string, item: SourceSpan) => content.slice(item.start, item.end);
const headings = (content: string) => parseMarkdown(content).headings.map((h) => [h.level, h.text, h.line]);

describe('parseMarkdown: frontmatter', () => {
  it('locates the block and starts the body after it, without reading YAML', () => {
    const content = '---\ntags: [a, b]\n---\n# Title\n';
    const model = parseMarkdown(content);
    expect(model.frontmatter).toEqual({ line: 0, start: 0, end: 20, endLine: 2, yamlStart: 4, yamlEnd: 16, bodyStart: 21 });
    expect(content.slice(model.frontmatter!.yamlStart, model.frontmatter!.yamlEnd)).toBe('tags: [a, b]');
    expect(model.frontmatterTags).toEqual([]);
    expect(headings(content)).toEqual([[1, 'Title', 3]]);
    expect(model.searchText).toBe('Title');
  });

  it('takes the frontmatter tags from data the caller already parsed', () => {
    const model = parseMarkdown('---\ntags: [a, B]\n---\n#b #c\n', { frontmatterData: { tags: ['a', 'B'] } });
    expect(model.frontmatterTags).toEqual([
      { name: 'a', key: 'a' },
      { name: 'B', key: 'b' },
    ]);
    expect(model.tags.map((t) => t.name)).toEqual(['b', 'c']);
  });

  it('handles a byte-order mark, CRLF and a `...` close', () => {
    const content = '\uFEFF---\r\na: 1\r\n...\r\nbody #x\r\n';
    const model = parseMarkdown(content);
    expect(model.frontmatter).toMatchObject({ start: 1, endLine: 2, bodyStart: 17 });
    expect(spanText(content, model.frontmatter!)).toBe('---\r\na: 1\r\n...');
    expect(model.tags).toEqual([{ line: 3, start: 22, end: 24, name: 'x', key: 'x' }]);
  });

  it('reads an unclosed block, or one not on the first line, as body', () => {
    const unclosed = parseMarkdown('---\ntitle: x\n#tag\n');
    expect(unclosed.frontmatter).toBeUndefined();
    expect(unclosed.tags.map((t) => t.name)).toEqual(['tag']);
    expect(unclosed.headings).toEqual([]);
    expect(parseMarkdown('\n---\na: 1\n---\n').frontmatter).toBeUndefined();
  });

  it('reads a --- line after the frontmatter or a blank line as a thematic break, not a heading underline', () => {
    expect(headings('---\na: 1\n---\n---\ntext\n')).toEqual([]);
    expect(headings('text\n\n---\n')).toEqual([]);
    expect(headings('text\n---\n')).toEqual([[2, 'text', 0]]);
  });
});

describe('parseMarkdown: headings', () => {
  it('reads ATX headings: level, trimmed text without closing #s, offsets', () => {
    const content = '# One\n##   Two ##  \n###### Six\n####### seven\n#tag\n\\# escaped\n## C# and F# ##\n#\n';
    const model = parseMarkdown(content);
    expect(model.headings.map((h) => [h.level, h.text, h.line])).toEqual([
      [1, 'One', 0],
      [2, 'Two', 1],
      [6, 'Six', 2],
      [2, 'C# and F#', 6],
      [1, '', 7],
    ]);
    expect(spanText(content, model.headings[1]!)).toBe('##   Two ##  ');
    expect(model.tags.map((t) => t.name)).toEqual(['tag']);
  });

  it('reads setext headings, joining a multi-line paragraph', () => {
    expect(headings('Title\n=====\n\nSub\nline\n---\n')).toEqual([
      [1, 'Title', 0],
      [2, 'Sub line', 3],
    ]);
    const content = 'intro\n\nTitle  \r\n===\r\n';
    const [heading] = parseMarkdown(content).headings;
    expect(spanText(content, heading!)).toBe('Title  \r\n===');
  });

  it('does not take a list item or blockquote line as setext text', () => {
    expect(headings('- item\n---\n')).toEqual([]);
    expect(headings('> quote\n---\n')).toEqual([]);
  });

  it('ignores headings in code, comments, math and blockquotes', () => {
    const content = ['```', '# code', '```', '%%', '# comment', '%%', '$$', '# math', '$$', '> # quoted', '    # after a blank: indented code'].join('\n');
    expect(headings(content)).toEqual([]);
    expect(headings('para\n    # lazy continuation, not code\n# Real\n')).toEqual([[1, 'Real', 2]]);
  });
});

describe('parseMarkdown: tasks', () => {
  it('reads any status character, checked for x and X, with indent and nesting level', () => {
    const content = ['- [ ] open', '* [x] done', '  1. [/] half', '    + [X] deep', '\t- [-] cancelled', '- [?]', '2) [>] moved ^task-1'].join('\n');
    const { tasks } = parseMarkdown(content);
    expect(tasks.map((t) => [t.status, t.checked, t.text, t.indent, t.level, t.line])).toEqual([
      [' ', false, 'open', 0, 0, 0],
      ['x', true, 'done', 0, 0, 1],
      ['/', false, 'half', 2, 1, 2],
      ['X', true, 'deep', 4, 2, 3],
      ['-', false, 'cancelled', 4, 2, 4], // a tab is 4 columns: a sibling of the item above
      ['?', false, '', 0, 0, 5],
      ['>', false, 'moved', 0, 0, 6],
    ]);
    expect(spanText(content, tasks[2]!)).toBe('1. [/] half');
    expect(parseMarkdown(content).blockIds.map((b) => b.id)).toEqual(['task-1']);
  });

  it('does not read look-alikes as tasks', () => {
    const content = ['-[ ] no space', '- [ ]x glued', '- [x](https://x.test) a link', '- [xx] two chars', '[ ] no marker', '- plain item', '10000000000. [ ] too many digits'].join('\n');
    expect(parseMarkdown(content).tasks).toEqual([]);
  });

  it('reads tasks in blockquotes and callouts, not in code', () => {
    const content = ['> [!todo] Week', '> - [ ] quoted task', '', '```', '- [ ] in code', '```', '    - [ ] indented code', '%% - [ ] comment %%'].join('\n');
    expect(parseMarkdown(content).tasks.map((t) => t.text)).toEqual(['quoted task']);
  });
});

describe('parseMarkdown: callouts', () => {
  it('reads type (lowercased), fold, title, depth and the lines it covers', () => {
    const content = ['> [!Decision]+ Use **SQLite**', '> body', '>', '> > [!tip]- Nested', '> > inner', '> back to outer', '', '> [!NOTE]', 'after'].join('\n');
    const { callouts } = parseMarkdown(content);
    expect(callouts.map((c) => [c.type, c.fold, c.title, c.depth, c.line, c.endLine])).toEqual([
      ['decision', '+', 'Use **SQLite**', 1, 0, 5],
      ['tip', '-', 'Nested', 2, 3, 4],
      ['note', undefined, '', 1, 7, 7],
    ]);
    expect(spanText(content, callouts[1]!)).toBe('> > [!tip]- Nested\n> > inner');
  });

  it('needs [!type] on the first line of the blockquote', () => {
    expect(parseMarkdown('> text\n> [!note] late\n').callouts).toEqual([]);
    expect(parseMarkdown('> [!no type here\n> [! spaced]\n').callouts).toEqual([]);
    expect(parseMarkdown('```\n> [!note] code\n```\n').callouts).toEqual([]);
  });

  it('keeps fenced code inside a callout out of the structure, and ends the fence with the blockquote', () => {
    const content = ['> [!example]', '> ```', '> - [ ] not a task [[not a link]]', '> ```', '> [[Linked]]', '', '> ```', '> open fence', 'outside [[After]]'].join('\n');
    const model = parseMarkdown(content);
    expect(model.tasks).toEqual([]);
    expect(model.wikiLinks.map((l) => l.target)).toEqual(['Linked', 'After']);
    expect(model.callouts[0]!.endLine).toBe(4);
  });
});

describe('parseMarkdown: code', () => {
  it('closes a fence only with the same character, at least as long, and nothing after it', () => {
    const content = ['````md', '```', '#inside', '~~~', '```` trailing', '````', '#outside'].join('\n');
    expect(parseMarkdown(content).tags.map((t) => t.name)).toEqual(['outside']);
    expect(parseMarkdown('```\n#a\n').tags).toEqual([]); // unclosed: code to the end
    expect(parseMarkdown('```js `x`\n#a\n').tags.map((t) => t.name)).toEqual(['a']); // not a fence
  });

  it('reads fences inside list items', () => {
    const content = ['- step', '  ```sh', '  echo #not-a-tag [[not]]', '  ```', '- [ ] done #real'].join('\n');
    const model = parseMarkdown(content);
    expect(model.tags.map((t) => t.name)).toEqual(['real']);
    expect(model.wikiLinks).toEqual([]);
  });

  it('reads indented code only after a blank line or block, and not inside lists', () => {
    expect(parseMarkdown('# H\n    #code\n').tags).toEqual([]);
    expect(parseMarkdown('text\n\n    #code\n\n    #more\nback #out\n').tags.map((t) => t.name)).toEqual(['out']);
    expect(parseMarkdown('- item\n\n    #continued\n').tags.map((t) => t.name)).toEqual(['continued']);
  });

  it('keeps code in the search text and drops comments', () => {
    const content = '# Setup\n\n```sh\nnpm run build\n```\n\nRun `kgate serve` %%not this%% now.\n<!--\nhidden\n-->\nvisible\n';
    expect(parseMarkdown(content).searchText).toBe('Setup\n\nnpm run build\n\nRun kgate serve  now.\n\nvisible');
  });
});

describe('parseMarkdown: the whole note', () => {
  it('reads the example vault note', () => {
    const content = readFileSync(new URL('../../../examples/vault/Projects/Offline Sync.md', import.meta.url), 'utf8');
    const model = parseMarkdown(content);
    expect(model.headings.map((h) => h.text)).toEqual(['Offline Sync', 'Approach', 'Client config', 'Tasks', 'Further reading']);
    expect(model.wikiLinks.map((l) => l.raw)).toEqual([
      '[[Tidewater]]',
      '[[ADR-002 SQLite with Custom Sync#^conflict-rule]]',
      '[[ADR-001 CouchDB Replication]]',
      '![[diagram.png]]',
      '[[Jonas Berg]]',
      '[[Priya Natarajan]]',
    ]);
    expect(model.tags.map((t) => t.name)).toEqual(['project/tidewater', 'sync']);
    expect(model.tasks.map((t) => t.checked)).toEqual([true, true, false, false, false]);
    expect(model.callouts).toMatchObject([{ type: 'warning', title: 'Clock skew', line: 37, endLine: 38 }]);
    expect(model.links).toMatchObject([{ text: 'Local-first software', external: true }]);
    expect(model.searchText).toContain('Sub-project of Tidewater. Technicians');
    expect(model.searchText).toContain('# old CouchDB settings were in [[not a link]]'); // code is kept verbatim
    expect(model.searchText).not.toContain('status: active');
  });

  it('gives the same items for CRLF as for LF, with offsets into the CRLF text', () => {
    const lf = '---\na: 1\n---\n# Title\n\n- [ ] task [[Link|Alias]] #tag ^b1\n> [!note] N\n> text\n';
    const crlf = lf.replace(/\n/g, '\r\n');
    const a = parseMarkdown(lf);
    const b = parseMarkdown(crlf);
    const shape = (m: typeof a) => ({
      headings: m.headings.map((h) => [h.text, h.line]),
      tasks: m.tasks.map((t) => [t.text, t.line]),
      links: m.wikiLinks.map((l) => [l.raw, l.line]),
      tags: m.tags.map((t) => [t.name, t.line]),
      blocks: m.blockIds.map((x) => [x.id, x.line]),
      callouts: m.callouts.map((c) => [c.title, c.line, c.endLine]),
      text: m.searchText,
    });
    expect(shape(b)).toEqual(shape(a));
    expect(b.searchText).not.toContain('\r');
    for (const item of [...b.headings, ...b.tasks, ...b.wikiLinks, ...b.tags, ...b.blockIds, ...b.callouts]) {
      expect(spanText(crlf, item)).not.toMatch(/\r$/);
    }
    expect(spanText(crlf, b.wikiLinks[0]!)).toBe('[[Link|Alias]]');
    expect(spanText(crlf, b.callouts[0]!)).toBe('> [!note] N\r\n> text');
  });

  it(`keeps at most ${MAX_ITEMS_PER_KIND} items of a kind and says so`, () => {
    const many = parseMarkdown(Array.from({ length: MAX_ITEMS_PER_KIND + 5 }, (_, i) => `#t${i}`).join(' '));
    expect(many.tags).toHaveLength(MAX_ITEMS_PER_KIND);
    expect(many.tags.at(-1)!.name).toBe(`t${MAX_ITEMS_PER_KIND - 1}`);
    expect(many.truncated).toBe(true);
    expect(parseMarkdown('#a #b').truncated).toBe(false);
  });

  it('reads empty and whitespace-only notes', () => {
    for (const content of ['', '\n', '   \n\t\n', '\uFEFF']) {
      expect(parseMarkdown(content)).toMatchObject({ headings: [], wikiLinks: [], tags: [], searchText: '', truncated: false });
    }
  });
});
