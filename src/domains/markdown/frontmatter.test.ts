import { describe, expect, it } from 'vitest';
import { frontmatterType, locateFrontmatter, parseFrontmatter, summarizeSchema } from './frontmatter.ts';

describe('parseFrontmatter', () => {
  it('reads the YAML between the leading --- line and the next --- or ... line', () => {
    expect(parseFrontmatter('---\ntype: decision\ntags:\n  - a\n  - b\n---\n# Body\n---\nnot: yaml\n')).toEqual({
      data: { type: 'decision', tags: ['a', 'b'] },
    });
    expect(parseFrontmatter('---\r\nstatus: open\r\n...\r\nbody')).toEqual({ data: { status: 'open' } });
    expect(parseFrontmatter('\uFEFF---\nn: 1\n---\n')).toEqual({ data: { n: 1 } });
  });

  it('keeps YYYY-MM-DD values as strings and reads empty frontmatter as no keys', () => {
    expect(parseFrontmatter('---\ncreated: 2026-11-03\n---\n').data).toEqual({ created: '2026-11-03' });
    expect(parseFrontmatter('---\n---\nbody').data).toEqual({});
  });

  it('gives null without frontmatter', () => {
    expect(parseFrontmatter('# Title\n---\na: 1\n---\n')).toEqual({ data: null });
    expect(parseFrontmatter('')).toEqual({ data: null });
    expect(parseFrontmatter(' ---\na: 1\n---\n')).toEqual({ data: null });
  });

  it('reports unreadable frontmatter instead of throwing', () => {
    const unclosed = parseFrontmatter('---\na: 1\nbody');
    expect(unclosed.data).toBeNull();
    expect(unclosed.error).toMatch(/closing/);
    const broken = parseFrontmatter('---\na: [1, 2\n---\n');
    expect(broken.data).toBeNull();
    expect(broken.error).toMatch(/^Invalid YAML/);
    const duplicate = parseFrontmatter('---\na: 1\na: 2\n---\n');
    expect(duplicate.data).toBeNull();
    const list = parseFrontmatter('---\n- a\n- b\n---\n');
    expect(list).toEqual({ data: null, error: expect.stringMatching(/not a mapping/) });
    const scalar = parseFrontmatter('---\njust text\n---\n');
    expect(scalar.data).toBeNull();
  });

  it('refuses alias bombs', () => {
    const bomb = ['---', 'a: &a [x, x, x, x, x, x, x, x, x, x]', ...'bcdefghij'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(', ')}]`), '---'].join('\n');
    const result = parseFrontmatter(bomb);
    expect(result.data).toBeNull();
    expect(result.error).toBeTruthy();
  });
});

describe('summarizeSchema', () => {
  it('names the kind of each value', () => {
    expect(['x', 3, true, '2026-01-02', '2026-1-2', [1], { a: 1 }, null, new Date(0)].map(frontmatterType)).toEqual([
      'string',
      'number',
      'boolean',
      'date',
      'string',
      'list',
      'object',
      'null',
      'date',
    ]);
  });

  it('collects per key the kinds, the count and up to 3 distinct short examples, most common keys first', () => {
    const long = 'x'.repeat(200);
    const summary = summarizeSchema([
      { type: 'decision', created: '2026-11-03', tags: ['a', 'b'], score: 1 },
      { type: 'person', created: '2026-09-14', tags: 'solo', meta: { a: 1 } },
      { type: 'decision', created: null, done: false },
      { type: 'note', note: long },
      { type: 'meeting' },
    ]);
    expect(summary.keysTruncated).toBe(false);
    expect(summary.keys.map((k) => k.key)).toEqual(['type', 'created', 'tags', 'done', 'meta', 'note', 'score']);
    expect(summary.keys[0]).toEqual({ key: 'type', types: ['string'], count: 5, examples: ['decision', 'person', 'note'] });
    expect(summary.keys[1]).toEqual({ key: 'created', types: ['date', 'null'], count: 3, examples: ['2026-11-03', '2026-09-14', 'null'] });
    expect(summary.keys[2]).toEqual({ key: 'tags', types: ['string', 'list'], count: 2, examples: ['["a","b"]', 'solo'] });
    expect(summary.keys.find((k) => k.key === 'meta')).toMatchObject({ types: ['object'], examples: ['{"a":1}'] });
    expect(summary.keys.find((k) => k.key === 'done')).toMatchObject({ types: ['boolean'], examples: ['false'] });
    const note = summary.keys.find((k) => k.key === 'note')!;
    expect(note.examples[0]).toHaveLength(80);
    expect(note.examples[0]!.endsWith('…')).toBe(true);
  });

  it('is empty for no documents and bounds the number of keys', () => {
    expect(summarizeSchema([])).toEqual({ keys: [], keysTruncated: false });
    const wide = Object.fromEntries(Array.from({ length: 1005 }, (_, i) => [`k${i}`, i]));
    const summary = summarizeSchema([wide]);
    expect(summary.keys).toHaveLength(1000);
    expect(summary.keysTruncated).toBe(true);
  });
});

describe('locateFrontmatter', () => {
  it('gives the block, the YAML inside it and where the body starts', () => {
    const content = '---\na: 1\n---\nbody';
    expect(locateFrontmatter(content)).toEqual({ line: 0, start: 0, end: 12, endLine: 2, yamlStart: 4, yamlEnd: 8, bodyStart: 13 });
    expect(locateFrontmatter('---\n---')).toEqual({ line: 0, start: 0, end: 7, endLine: 1, yamlStart: 4, yamlEnd: 4, bodyStart: 7 });
    const crlf = '\uFEFF---  \r\nb: 2\r\n... \r\n';
    const block = locateFrontmatter(crlf)!;
    expect(crlf.slice(block.start, block.end)).toBe('---  \r\nb: 2\r\n... ');
    expect(crlf.slice(block.yamlStart, block.yamlEnd)).toBe('b: 2');
    expect(block.bodyStart).toBe(crlf.length);
  });

  it('agrees with parseFrontmatter on what is frontmatter', () => {
    const samples = ['---\na: 1\n---\n', '---\na: 1\n', ' ---\na: 1\n---\n', '# x\n---\na: 1\n---\n', '---\n...\n', '\uFEFF---\r\na: 1\r\n---', '---x\n---\n', '', '---'];
    for (const sample of samples) {
      const parsed = parseFrontmatter(sample);
      const located = locateFrontmatter(sample) !== undefined;
      expect(located, JSON.stringify(sample)).toBe(parsed.data !== null || /^Invalid YAML|not a mapping/.test(parsed.error ?? ''));
    }
  });
});
