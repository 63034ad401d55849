import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { listVaultFolder } from '../src/cli/vault-folder.ts';
import { noteTitle } from '../src/domains/notes/index.ts';
import { normalizeNotePath } from '../src/kernel/vault-path.ts';

const VAULT = fileURLToPath(new URL('../examples/vault/', import.meta.url));
const read = (path: string) => readFileSync(`${VAULT}${path}`, 'utf8');

describe('examples/vault', async () => {
  const entries = await listVaultFolder(VAULT);
  const notes = entries.filter((e) => e.kind === 'note').map((e) => e.path);

  it('is a dozen or more notes, one canvas, an attachment and an Obsidian config folder', () => {
    expect(notes.length).toBeGreaterThanOrEqual(12);
    expect(entries.filter((e) => e.kind === 'canvas').map((e) => e.path)).toEqual(['Tidewater Overview.canvas']);
    expect(entries.filter((e) => e.kind === 'attachment').map((e) => e.path)).toEqual(['Attachments/diagram.png']);
    expect(entries.filter((e) => e.kind === 'hidden').map((e) => e.path)).toContain('.obsidian');
  });

  it('has valid paths and parseable frontmatter on every note', () => {
    for (const path of notes) {
      expect(normalizeNotePath(path)).toBe(path);
      const match = /^---\n([\s\S]*?)\n---\n/.exec(read(path));
      expect(match, path).not.toBeNull();
      expect(parse(match![1]!), path).toHaveProperty('type');
    }
  });

  it('covers what later features need: WikiLinks, tasks, tags, decisions and callouts', () => {
    const all = notes.map(read).join('\n');
    expect(all).toMatch(/\[\[[^\]|#]+\|[^\]]+\]\]/); // aliased link
    expect(all).toMatch(/\[\[[^\]]+#\^[a-z-]+/); // block reference
    expect(all).toMatch(/!\[\[[^\]]+\]\]/); // embed
    expect(all).toContain('- [ ] ');
    expect(all).toContain('- [x] ');
    expect(all).toMatch(/(^|\s)#[a-z][\w/-]*/m);
    expect(all).toContain('> [!decision]');
    expect(all).toContain('> [!question]');
    expect(notes.filter((p) => /^type: decision$/m.test(read(p))).length).toBeGreaterThanOrEqual(2);
  });

  it('titles come from the first H1, or from the file name when there is none', () => {
    expect(noteTitle('Home.md', read('Home.md'))).not.toBe('Home.md');
    const untitled = notes.filter((p) => !/^# /m.test(read(p).replace(/```[\s\S]*?```/g, '')));
    expect(untitled.length).toBeGreaterThanOrEqual(1);
    for (const path of untitled) expect(noteTitle(path, read(path))).toBe(path.split('/').pop()!.slice(0, -3));
  });

  it('has a JSON Canvas 1.0 document whose file nodes point at files in the vault', () => {
    const canvas = JSON.parse(read('Tidewater Overview.canvas')) as {
      nodes: { id: string; type: string; file?: string }[];
      edges: { fromNode: string; toNode: string }[];
    };
    const ids = new Set(canvas.nodes.map((n) => n.id));
    expect(canvas.nodes.some((n) => n.type === 'group')).toBe(true);
    for (const edge of canvas.edges) expect(ids.has(edge.fromNode) && ids.has(edge.toNode)).toBe(true);
    const files = new Set(entries.map((e) => e.path));
    for (const node of canvas.nodes.filter((n) => n.type === 'file')) expect(files.has(node.file!), node.file).toBe(true);
  });
});
