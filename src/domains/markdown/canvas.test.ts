import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KgateError } from '../../kernel/errors.ts';
import { MAX_CANVAS_NODES, canvasToOutline } from './canvas.ts';

const box = (id: string, x: number, y: number, width = 100, height = 50) => ({ id, x, y, width, height });
const text = (id: string, x: number, y: number, body: string) => ({ ...box(id, x, y), type: 'text', text: body });
const file = (id: string, x: number, y: number, path: string, subpath?: string) => ({
  ...box(id, x, y),
  type: 'file',
  file: path,
  ...(subpath ? { subpath } : {}),
});
const group = (id: string, x: number, y: number, width: number, height: number, label?: string) => ({
  ...box(id, x, y, width, height),
  type: 'group',
  ...(label ? { label } : {}),
});

function refusal(input: unknown): KgateError {
  try {
    canvasToOutline(input);
  } catch (error) {
    expect(error).toBeInstanceOf(KgateError);
    return error as KgateError;
  }
  throw new Error('expected a refusal');
}

describe('canvasToOutline', () => {
  it('nests nodes under the smallest containing group, groups inside groups', () => {
    const { outline, nodes, edges, truncated } = canvasToOutline({
      nodes: [
        group('outer', 0, 0, 1000, 1000, 'Outer'),
        group('inner', 100, 100, 400, 400, 'Inner'),
        text('in-inner', 150, 150, 'deep'),
        text('in-outer', 600, 600, 'shallow'),
        text('outside', 2000, 0, 'loose'),
      ],
    });
    expect({ nodes, edges, truncated }).toEqual({ nodes: 5, edges: 0, truncated: false });
    expect(outline).toBe(['- **Outer**', '  - **Inner**', '    - deep', '  - shallow', '- loose', ''].join('\n'));
  });

  it('orders siblings top to bottom, then left to right, whatever the input order', () => {
    const nodes = [text('c', 0, 200, 'third'), text('b', 300, 0, 'second'), text('a', 0, 0, 'first'), text('d', 50, 200, 'fourth')];
    const expected = ['- first', '- second', '- third', '- fourth', ''].join('\n');
    expect(canvasToOutline({ nodes }).outline).toBe(expected);
    expect(canvasToOutline({ nodes: [...nodes].reverse() }).outline).toBe(expected);
  });

  it('gives identical group rectangles a stable nesting instead of a cycle', () => {
    const { outline } = canvasToOutline({ nodes: [group('a', 0, 0, 500, 500, 'A'), group('b', 0, 0, 500, 500, 'B'), text('t', 10, 10, 'x')] });
    expect(outline).toBe(['- **A**', '  - **B**', '    - x', ''].join('\n'));
  });

  it('writes notes as WikiLinks (with subpath), other files as embeds, links as Markdown links, text with its first line as the bullet', () => {
    const { outline } = canvasToOutline({
      nodes: [
        file('note', 0, 0, 'Projects/Plan.md', '#Goals'),
        file('image', 0, 100, 'Attachments/map.png'),
        { ...box('link', 0, 200), type: 'link', url: 'https://example.com/a b' },
        text('text', 0, 300, '# Title\r\n\r\nbody line\nsecond line\n\n'),
        { ...box('empty', 0, 400), type: 'text', text: '' },
      ],
    });
    expect(outline).toBe(
      [
        '- [[Projects/Plan#Goals]]',
        '- ![[Attachments/map.png]]',
        '- [https://example.com/a b](<https://example.com/a b>)',
        '- # Title',
        '',
        '  body line',
        '  second line',
        '- *(empty text)*',
        '',
      ].join('\n'),
    );
  });

  it('lists edges as relations by display name, with labels and arrow directions', () => {
    const { outline, edges } = canvasToOutline({
      nodes: [file('a', 0, 0, 'A.md'), file('b', 0, 100, 'Folder/B.md'), text('t', 0, 200, '## Risk here\nmore'), { ...box('l', 0, 300), type: 'link', url: 'https://x.test' }],
      edges: [
        { id: 'e3', fromNode: 't', toNode: 'l', fromEnd: 'arrow', toEnd: 'arrow' },
        { id: 'e1', fromNode: 'a', toNode: 'b', label: 'depends\non' },
        { id: 'e2', fromNode: 'b', toNode: 'a', toEnd: 'none' },
        { id: 'e4', fromNode: 'l', toNode: 'a', fromEnd: 'arrow', toEnd: 'none' },
      ],
    });
    expect(edges).toBe(4);
    expect(outline.split('## Relations\n\n')[1]).toBe(
      [
        '- [[A]] → [[Folder/B]] (depends on)',
        '- [[Folder/B]] — [[A]]',
        '- "Risk here" ↔ [https://x.test](https://x.test)',
        '- [https://x.test](https://x.test) ← [[A]]',
        '',
      ].join('\n'),
    );
  });

  it('takes the JSON text as well as the object, with the same result every time', () => {
    const canvas = { nodes: [text('a', 0, 0, 'x'), file('b', 10, 10, 'B.md')], edges: [{ id: 'e', fromNode: 'a', toNode: 'b' }] };
    const first = canvasToOutline(canvas);
    expect(canvasToOutline(JSON.stringify(canvas))).toEqual(first);
    expect(canvasToOutline(canvas)).toEqual(first);
    expect(canvasToOutline({})).toEqual({ outline: '', nodes: 0, edges: 0, truncated: false });
  });

  it(`accepts ${MAX_CANVAS_NODES} nodes and refuses ${MAX_CANVAS_NODES + 1} with the limit`, () => {
    const nodes = (n: number) => Array.from({ length: n }, (_, i) => text(`n${i}`, (i % 20) * 200, Math.floor(i / 20) * 100, `node ${i}`));
    const ok = canvasToOutline({ nodes: nodes(MAX_CANVAS_NODES) });
    expect(ok.nodes).toBe(500);
    expect(ok.outline.split('\n')[0]).toBe('- node 0');
    const error = refusal({ nodes: nodes(MAX_CANVAS_NODES + 1) });
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/^A canvas holds at most 500 nodes/);
    expect(error.details).toMatchObject({ limit: 500 });
  });

  it.each([
    ['not JSON', '{nodes: ['],
    ['an array', []],
    ['null', null],
    ['a number', 42],
    ['nodes not an array', { nodes: 'x' }],
    ['an unknown node type', { nodes: [{ ...box('a', 0, 0), type: 'widget' }] }],
    ['a node without coordinates', { nodes: [{ id: 'a', type: 'text', text: 'x' }] }],
    ['a text node without text', { nodes: [{ ...box('a', 0, 0), type: 'text' }] }],
    ['a file node without file', { nodes: [{ ...box('a', 0, 0), type: 'file' }] }],
    ['a negative width', { nodes: [{ ...box('a', 0, 0, -1, 10), type: 'text', text: 'x' }] }],
    ['duplicate node ids', { nodes: [text('a', 0, 0, 'x'), text('a', 0, 10, 'y')] }],
    ['an edge to a missing node', { nodes: [text('a', 0, 0, 'x')], edges: [{ id: 'e', fromNode: 'a', toNode: 'zz' }] }],
    ['an edge without an id', { nodes: [text('a', 0, 0, 'x')], edges: [{ fromNode: 'a', toNode: 'a' }] }],
  ])('refuses %s with invalid_request', (_name, input) => {
    const error = refusal(input);
    expect(error.code).toBe('invalid_request');
    expect(error.message.length).toBeGreaterThan(10);
  });

  it('says which field of which node is wrong', () => {
    expect(refusal({ nodes: [text('a', 0, 0, 'x'), { ...box('b', 0, 0), type: 'text', x: 'left', text: 'y' }] }).message).toContain('nodes[1].x');
  });

  it('outlines the example vault canvas', () => {
    const json = readFileSync(new URL('../../../examples/vault/Tidewater Overview.canvas', import.meta.url), 'utf8');
    const result = canvasToOutline(json);
    expect(result).toMatchObject({ nodes: 12, edges: 8, truncated: false });
    const lines = result.outline.split('\n');
    expect(lines[0]).toBe('- **Tidewater**');
    expect(lines).toContain('  - **Offline sync workstream**');
    expect(lines).toContain('    - [[Projects/Offline Sync]]');
    expect(lines).toContain('    - ![[Attachments/diagram.png]]');
    expect(lines).toContain('    - [https://www.sqlite.org/wal.html](https://www.sqlite.org/wal.html)');
    expect(lines).toContain('  - [[Projects/Tidewater/Roadmap#Q1 2027]]');
    // Inside the workstream group: top row left to right, then the next rows.
    const inGroup = lines.filter((l) => l.startsWith('    - '));
    expect(inGroup.map((l) => l.slice(6))).toEqual([
      '[[Projects/Offline Sync]]',
      '[[Decisions/ADR-002 SQLite with Custom Sync]]',
      '![[Attachments/diagram.png]]',
      '[[Decisions/ADR-001 CouchDB Replication]]',
      '[https://www.sqlite.org/wal.html](https://www.sqlite.org/wal.html)',
    ]);
    expect(result.outline).toContain('## Relations');
    expect(lines).toContain('- [[Decisions/ADR-002 SQLite with Custom Sync]] → [[Decisions/ADR-001 CouchDB Replication]] (supersedes)');
    expect(lines).toContain('- [[Projects/Offline Sync]] ↔ [[Attachments/diagram.png]]');
    expect(lines).toContain('- "Tidewater overview" → [[Projects/Tidewater/Tidewater]]');
  });
});
