import { describe, it, expect } from 'vitest';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { compileNote, type KnowledgeRecord } from '../src/domains/knowledge/index.ts';
import { SYNTHETIC_PEOPLE } from './vault-knowledge.ts';
import {
  generateSyntheticVault,
  writeSyntheticVault,
  SYNTHETIC_COMMON_TERM,
  SYNTHETIC_PHRASE,
  SYNTHETIC_RARE_TERM,
  type SyntheticNote,
  type SyntheticVaultOptions,
} from './vault-generator.ts';

function collect(options?: SyntheticVaultOptions): SyntheticNote[] {
  return [...generateSyntheticVault(options)];
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1, -'.md'.length);
}

const WIKILINK = /\[\[([^\]]+)\]\]/g;

/** Link target name of a WikiLink body: `name`, `name|alias` or `name#Heading`. */
function linkTarget(body: string): string {
  return body.split(/[|#]/)[0] as string;
}

function frontmatter(content: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(content);
  if (!match) throw new Error('note has no frontmatter');
  return parseYaml(match[1] as string) as Record<string, unknown>;
}

function body(content: string): string {
  return content.slice(content.indexOf('\n---\n', 4) + 5);
}

describe('generateSyntheticVault', () => {
  const vault = collect({ notes: 5000 });

  it('is deterministic for a seed and differs across seeds', () => {
    const a = collect({ notes: 300, seed: 7 });
    const b = collect({ notes: 300, seed: 7 });
    const c = collect({ notes: 300, seed: 8 });
    expect(b).toEqual(a);
    expect(c.map((n) => n.content)).not.toEqual(a.map((n) => n.content));
    // The default seed is 42.
    expect(collect({ notes: 50 })).toEqual(collect({ notes: 50, seed: 42 }));
  });

  it('yields the requested number of notes (default 20000)', () => {
    expect(vault).toHaveLength(5000);
    expect(collect({ notes: 0 })).toHaveLength(0);
    expect(collect({ notes: 1 })).toHaveLength(1);
    let count = 0;
    for (const note of generateSyntheticVault()) count += note.content.length > 0 ? 1 : 0;
    expect(count).toBe(20000);
  });

  it('rejects invalid options', () => {
    expect(() => collect({ notes: -1 })).toThrow(RangeError);
    expect(() => collect({ notes: 1.5 })).toThrow(RangeError);
    expect(() => collect({ averageBytes: 0 })).toThrow(RangeError);
  });

  it('produces valid, unique, nested vault-relative paths', () => {
    const paths = new Set<string>();
    const folders = new Set<string>();
    const topFolders = new Set<string>();
    for (const { path } of vault) {
      expect(path).toMatch(/^[a-z0-9-]+(\/[a-z0-9-]+)+\.md$/);
      expect(path.startsWith('/')).toBe(false);
      expect(path.includes('\\')).toBe(false);
      expect(path.split('/')).not.toContain('..');
      expect(/[\u0000-\u001f\u007f]/.test(path)).toBe(false);
      expect(Buffer.byteLength(path)).toBeLessThan(200);
      paths.add(path);
      folders.add(path.slice(0, path.lastIndexOf('/')));
      topFolders.add(path.slice(0, path.indexOf('/')));
    }
    expect(paths.size).toBe(vault.length);
    expect(topFolders.size).toBe(20);
    expect(folders.size).toBeGreaterThanOrEqual(150);
    expect(folders.size).toBeLessThanOrEqual(200);
  });

  it('reuses some file names in different folders', () => {
    const byName = new Map<string, Set<string>>();
    for (const { path } of vault) {
      const name = baseName(path);
      const set = byName.get(name) ?? new Set<string>();
      set.add(path);
      byName.set(name, set);
    }
    const shared = [...byName.values()].filter((set) => set.size > 1);
    const sharedNotes = shared.reduce((sum, set) => sum + set.size, 0);
    expect(shared.length).toBeGreaterThanOrEqual(10);
    expect(sharedNotes / vault.length).toBeGreaterThan(0.02);
    expect(sharedNotes / vault.length).toBeLessThan(0.1);
  });

  it('keeps the average size within ±15% of the target, with about ±50% spread', () => {
    for (const averageBytes of [2048, 4096]) {
      const notes = collect({ notes: 2000, averageBytes });
      const sizes = notes.map((n) => Buffer.byteLength(n.content));
      const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
      expect(mean).toBeGreaterThan(averageBytes * 0.85);
      expect(mean).toBeLessThan(averageBytes * 1.15);
      expect(Math.min(...sizes)).toBeGreaterThan(averageBytes * 0.4);
      expect(Math.max(...sizes)).toBeLessThan(averageBytes * 1.7);
    }
  });

  it('gives every note frontmatter, a title, WikiLinks, tags and tasks', () => {
    const names = new Set(vault.map((n) => baseName(n.path)));
    let aliasNotes = 0;
    let headingLinks = 0;
    let aliasLinks = 0;
    let dueDates = 0;
    for (const { content } of vault) {
      const fm = frontmatter(content);
      expect(typeof fm.type).toBe('string');
      expect(Array.isArray(fm.tags)).toBe(true);
      expect((fm.tags as unknown[]).length).toBeGreaterThan(0);
      expect(String(fm.created)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(typeof fm.status).toBe('string');
      expect(fm.priority).toBeTypeOf('number');
      if (fm.aliases !== undefined) aliasNotes++;

      expect(content).toMatch(/\n# \S[^\n]*\n/);
      expect(content).toMatch(/(^|\s)#[a-z][a-z/]*\b/m);
      const tasks = content.match(/^- \[[ x]\] .+$/gm) ?? [];
      expect(tasks.length).toBeGreaterThanOrEqual(1);
      expect(tasks.length).toBeLessThanOrEqual(4);
      dueDates += (content.match(/📅 \d{4}-\d{2}-\d{2}/g) ?? []).length;

      // Links in the body: typed relations in the frontmatter are knowledge material (see below).
      const links = [...body(content).matchAll(WIKILINK)].map((m) => m[1] as string);
      const resolved = links.filter((body) => names.has(linkTarget(body)));
      const missing = links.filter((body) => !names.has(linkTarget(body)));
      expect(resolved.length).toBeGreaterThanOrEqual(2);
      expect(resolved.length).toBeLessThanOrEqual(8);
      expect(missing.length).toBeGreaterThanOrEqual(1);
      headingLinks += resolved.filter((body) => body.includes('#')).length;
      aliasLinks += resolved.filter((body) => body.includes('|')).length;
    }
    expect(aliasNotes).toBeGreaterThan(0);
    expect(headingLinks).toBeGreaterThan(0);
    expect(aliasLinks).toBeGreaterThan(0);
    expect(dueDates).toBeGreaterThan(0);
  });

  it('has a note with a matching heading for every unambiguous [[name#Heading]] link', () => {
    const byName = new Map<string, string[]>();
    for (const note of vault) {
      const name = baseName(note.path);
      byName.set(name, [...(byName.get(name) ?? []), note.content]);
    }
    let checked = 0;
    for (const { content } of vault.slice(0, 500)) {
      for (const [, body] of content.matchAll(WIKILINK)) {
        const [name, heading] = (body as string).split('#');
        const targets = byName.get(name as string);
        if (heading === undefined || targets?.length !== 1) continue;
        expect(targets[0]).toContain(`\n## ${heading}\n`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('places the special terms at the documented frequencies', () => {
    const share = (needle: string): number =>
      vault.filter((n) => n.content.includes(needle)).length / vault.length;
    const rare = share(SYNTHETIC_RARE_TERM);
    const common = share(SYNTHETIC_COMMON_TERM);
    const phrase = share(SYNTHETIC_PHRASE);
    expect(rare).toBeGreaterThan(0.0002);
    expect(rare).toBeLessThan(0.003);
    expect(common).toBeGreaterThan(0.7);
    expect(common).toBeLessThan(0.8);
    expect(phrase).toBeGreaterThan(0.005);
    expect(phrase).toBeLessThan(0.015);
    expect(SYNTHETIC_PHRASE.split(' ').length).toBeGreaterThanOrEqual(2);
    expect(SYNTHETIC_PHRASE.split(' ').length).toBeLessThanOrEqual(3);
  });

  it('never produces the phrase words or special terms by chance', () => {
    const words = [SYNTHETIC_RARE_TERM, SYNTHETIC_COMMON_TERM, ...SYNTHETIC_PHRASE.split(' ')];
    const withPhrase = vault.filter((n) => n.content.includes(SYNTHETIC_PHRASE)).length;
    for (const word of SYNTHETIC_PHRASE.split(' ')) {
      expect(vault.filter((n) => n.content.includes(word)).length).toBe(withPhrase);
    }
    for (const word of words) expect(word).toMatch(/^[a-z]+$/);
  });
});

describe('knowledge material in generated vaults', () => {
  const vault = collect({ notes: 2000 });
  const records = vault.map((n) => compileNote(n.path, 'r', n.content));
  const notesWith = (kind: KnowledgeRecord['kind'], where: (r: KnowledgeRecord) => boolean = () => true) =>
    records.filter((rs) => rs.some((r) => r.kind === kind && where(r))).length;

  it('compiles to every record kind, in the documented shares of notes', () => {
    expect(notesWith('decision', (r) => r.kind === 'decision' && r.evidence.lines[0] === 1)).toBe(60); // 3% decision notes
    expect(notesWith('decision', (r) => r.kind === 'decision' && r.evidence.lines[0] > 1)).toBe(20); // 1% decision callouts
    expect(notesWith('assertion')).toBe(40); // 2% entity notes
    expect(notesWith('question')).toBe(100); // 5% question callouts
    expect(notesWith('commitment', (r) => r.kind === 'commitment' && r.owner !== null)).toBe(200); // 10% tasks with owners
    expect(notesWith('commitment', (r) => r.kind === 'commitment' && r.due !== null)).toBeGreaterThan(0);
    for (const type of ['supersedes', 'contradicts', 'depends_on', 'blocks', 'part_of', 'relates_to']) {
      expect(notesWith('relation', (r) => r.kind === 'relation' && r.type === type), type).toBeGreaterThan(0);
    }
  });

  it('supersedes and contradicts earlier decision notes, and owners are the synthetic people', () => {
    const decisions = new Set(vault.filter((n) => /^type: decision$/m.test(n.content)).map((n) => baseName(n.path)));
    const typed = records.flat().filter((r) => r.kind === 'relation' && (r.type === 'supersedes' || r.type === 'contradicts'));
    expect(typed.length).toBeGreaterThan(10);
    for (const r of typed) expect(decisions.has((r as { target: string }).target)).toBe(true);
    const owners = new Set(records.flat().flatMap((r) => (r.kind === 'commitment' && r.owner ? [r.owner] : [])));
    expect([...owners].every((o) => SYNTHETIC_PEOPLE.includes(o))).toBe(true);
  });

  it('leaves the notes outside the share byte for byte as the generator made them before', () => {
    // sha256 of path, newline and content of the first notes of a 1,000-note vault (default seed), as generated before
    // knowledge material existed: those outside the share must not change, or the search and import figures drift.
    const before: Record<number, string> = { 0: '514dff7fe65ab378', 1: 'afce33cae135be2a', 2: 'a9fc661c09cb3ae3', 3: 'ae26b46828aa281e', 5: '4598e5dfc7175d72' };
    const notes = collect({ notes: 1000 });
    for (const [index, hash] of Object.entries(before)) {
      const note = notes[Number(index)]!;
      expect(createHash('sha256').update(`${note.path}\n${note.content}`).digest('hex').slice(0, 16), index).toBe(hash);
    }
    // Note 4 is in the share: it differs only by what was added to it.
    expect(notes[4]!.content).toMatch(/\[owner:: \[\[|\[!question\]|\[!decision\]|^(id|decided|depends_on|blocks|part_of|relates_to): /m);
  });
});

describe('writeSyntheticVault', () => {
  it('writes every note into the target directory and reports counts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kgate-vault-'));
    try {
      const options: SyntheticVaultOptions = { notes: 300, seed: 3 };
      const result = await writeSyntheticVault(join(dir, 'vault'), options);
      const expected = collect(options);
      expect(result.notes).toBe(300);
      expect(result.bytes).toBe(expected.reduce((sum, n) => sum + Buffer.byteLength(n.content), 0));

      const files = (await readdir(join(dir, 'vault'), { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
      expect(files).toHaveLength(300);
      for (const note of [expected[0], expected[150], expected[299]]) {
        if (!note) throw new Error('missing note');
        expect(await readFile(join(dir, 'vault', note.path), 'utf8')).toBe(note.content);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
