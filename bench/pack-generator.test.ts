import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPack, MAX_PACK_FILE_BYTES, PACK_LIMITS } from '../src/domains/packs/index.ts';
import { words } from '../src/domains/search/tokenizer.ts';
import { generatePack, summarizePack, writePack, type GeneratedPack } from './pack-generator.ts';
import { benchQuestions, SHARED_WORDS } from './pack/vocabulary.ts';
import { generateSyntheticVault } from './vault-generator.ts';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'kgate-pack-generator-'));
  roots.push(root);
  return root;
}

const lineCount = (text: string) => text.split('\n').length - 1;

describe('generatePack', () => {
  const pack: GeneratedPack = generatePack({ sources: 300, seed: 7 });

  it('is deterministic for a seed and differs across seeds', () => {
    expect(generatePack({ sources: 300, seed: 7 })).toEqual(pack);
    expect(generatePack({ sources: 300, seed: 8 }).assertions.map((a) => a.statement)).not.toEqual(pack.assertions.map((a) => a.statement));
    // Each source draws from its own stream: the first 100 sources do not depend on how many follow.
    expect(generatePack({ sources: 100, seed: 7 }).sources).toEqual(pack.sources.slice(0, 100));
  });

  it('gives every source 1 to 3 versions of 20 to 60 lines, dated 2015 to 2026, each reported on or after its publication and the previous report', () => {
    expect(pack.sources).toHaveLength(300);
    const versionCounts = new Set(pack.sources.map((s) => s.versions.length));
    expect([...versionCounts].sort()).toEqual([1, 2, 3]);
    for (const source of pack.sources) {
      source.versions.forEach((v, k) => {
        expect(lineCount(v.text)).toBeGreaterThanOrEqual(20);
        expect(lineCount(v.text)).toBeLessThanOrEqual(60);
        expect(v.published >= '2015-01-01' && v.reported <= '2026-12-31').toBe(true);
        expect(v.reported >= v.published).toBe(true);
        if (k > 0) {
          expect(v.reported >= source.versions[k - 1]!.reported).toBe(true);
          expect(Number(v.label)).toBeGreaterThan(Number(source.versions[k - 1]!.label));
        }
      });
    }
  });

  it('makes about 5 assertions per source, some superseding, a few retracted, and an insight per 15 sources', () => {
    const summary = summarizePack(pack);
    expect(summary.assertions / summary.sources).toBeGreaterThan(4.5);
    expect(summary.assertions / summary.sources).toBeLessThan(5.5);
    expect(summary.superseding).toBeGreaterThan(summary.assertions * 0.02);
    expect(summary.retracted).toBeGreaterThan(0);
    expect(summary.retracted).toBeLessThan(summary.assertions * 0.05);
    expect(summary.insights).toBe(20);
    const byId = new Map(pack.assertions.map((a) => [a.id, a]));
    for (const a of pack.assertions) {
      for (const id of a.supersedes) expect(a.accepted >= byId.get(id)!.accepted).toBe(true);
      if (a.retracted !== undefined) expect(a.retracted >= a.accepted).toBe(true);
    }
    // An assertion that supersedes another cites a later version of the same source.
    const superseding = pack.assertions.find((a) => a.supersedes.length > 0)!;
    const old = byId.get(superseding.supersedes[0]!)!;
    expect(superseding.evidence[0]!.source).toBe(old.evidence[0]!.source);
    expect(Number(superseding.evidence[0]!.version)).toBeGreaterThan(Number(old.evidence[0]!.version));
  });

  it('stays within the format limits at its default size of 5,000 sources', () => {
    const full = generatePack();
    expect(full.sources).toHaveLength(PACK_LIMITS.sources);
    expect(full.assertions.length).toBeGreaterThan(20_000);
    expect(full.assertions.length).toBeLessThanOrEqual(PACK_LIMITS.assertions);
    expect(full.insights.length).toBeGreaterThan(300);
    expect(full.insights.length).toBeLessThanOrEqual(PACK_LIMITS.insights);
    for (const source of full.sources) {
      expect(source.versions.length).toBeLessThanOrEqual(PACK_LIMITS.versionsPerSource);
      for (const v of source.versions) expect(Buffer.byteLength(v.text)).toBeLessThan(MAX_PACK_FILE_BYTES);
    }
    for (const a of full.assertions) expect(a.evidence.length).toBeLessThanOrEqual(PACK_LIMITS.evidencePerAssertion);
  });

  it('refuses a number of sources outside 1 to 5,000', () => {
    expect(() => generatePack({ sources: 0 })).toThrow(/sources must be 1 to 5000/);
    expect(() => generatePack({ sources: 5_001 })).toThrow(/sources must be 1 to 5000/);
  });
});

describe('writePack', () => {
  it('writes a folder that loadPack accepts with no problems, holding what was generated', async () => {
    const dir = join(await scratch(), 'pack');
    const summary = await writePack(dir, { sources: 120, seed: 3 });
    const loaded = await loadPack(dir);
    if (!loaded.ok) expect(loaded.problems).toEqual([]);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const generated = generatePack({ sources: 120, seed: 3 });
    expect(loaded.pack.product).toBe('bench');
    expect(loaded.pack.slug).toBe('bench-standards');
    expect(loaded.pack.sources.map((s) => s.id)).toEqual(generated.sources.map((s) => s.id));
    expect(loaded.pack.sources.flatMap((s) => s.versions.map((v) => v.text))).toEqual(generated.sources.flatMap((s) => s.versions.map((v) => v.text)));
    expect(loaded.pack.assertions).toHaveLength(summary.assertions);
    expect(loaded.pack.assertions.filter((a) => a.retracted !== undefined)).toHaveLength(summary.retracted);
    expect(loaded.pack.assertions.filter((a) => (a.supersedes ?? []).length > 0)).toHaveLength(summary.superseding);
    expect(loaded.pack.insights).toHaveLength(summary.insights);
    expect((await readdir(join(dir, 'sources'))).sort()).toEqual(generated.sources.map((s) => s.id).sort());
  });

  it('writes byte-identical folders for the same options', async () => {
    const [a, b] = [join(await scratch(), 'a'), join(await scratch(), 'b')];
    await writePack(a, { sources: 30, seed: 11 });
    await writePack(b, { sources: 30, seed: 11 });
    for (const file of ['pack.yaml', 'assertions.yaml', 'insights.yaml']) {
      expect(await readFile(join(b, file), 'utf8')).toBe(await readFile(join(a, file), 'utf8'));
    }
  });
});

describe('benchQuestions', () => {
  it('are one to three shared words, the same for a seed', () => {
    const questions = benchQuestions(300, 42);
    expect(benchQuestions(300, 42)).toEqual(questions);
    expect(benchQuestions(300, 43)).not.toEqual(questions);
    expect(new Set(questions.map((q) => q.split(' ').length))).toEqual(new Set([1, 2, 3]));
    for (const q of questions) for (const word of q.split(' ')) expect(SHARED_WORDS).toContain(word);
  });

  it('are made of words found both in the generated pack and in the synthetic vault', () => {
    const inVault = new Set<string>();
    for (const note of generateSyntheticVault({ notes: 3_000 })) for (const w of words(note.content)) inVault.add(w);
    const inPack = new Set<string>();
    for (const a of generatePack({ sources: 500 }).assertions) for (const w of words(a.statement)) inPack.add(w);
    expect(SHARED_WORDS.filter((w) => !inVault.has(w))).toEqual([]);
    expect(SHARED_WORDS.filter((w) => !inPack.has(w))).toEqual([]);
  });
});
