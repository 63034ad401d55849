/**
 * Deterministic generator of a published intelligence pack for kgate benchmarks, in the folder format of
 * docs/packs.md: `pack.yaml`, one Markdown text per source version, `assertions.yaml` and `insights.yaml`.
 *
 * N sources (default 5,000, the format's limit) of invented standards bodies, each with 1 to 3 versions (published
 * 2015 to mid-2026, each reported later, none after 2026-12-31) whose texts are 20 to 60 lines of numbered clauses in
 * sections; a later version keeps most clauses, revises some and drops a few. About 5 assertions per source quote one
 * or two exact lines of a cited version, accepted after that version was reported; an assertion on a revised clause
 * supersedes the one on the clause it replaces; about 2% are retracted; insights (one per 15 sources) derive from 2
 * or 3 assertions. Same options, byte-identical folder: each source draws from its own PRNG stream.
 *
 * CLI: `node bin/run-ts.js bench/pack-generator.ts OUT_DIR [--sources N] [--seed S]`
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GeneratedAssertion, GeneratedInsight, GeneratedPack, GeneratedSource } from './pack/model.ts';
import { generateSource } from './pack/sources.ts';
import { clauseStatement, Rng, streamSeed, type Clause } from './pack/vocabulary.ts';
import { assertionsYaml, insightsYaml, manifestYaml } from './pack/yaml.ts';

export type { GeneratedAssertion, GeneratedInsight, GeneratedPack, GeneratedSource, GeneratedVersion } from './pack/model.ts';

/** Options of {@link generatePack} and {@link writePack}. */
export interface PackGeneratorOptions {
  /** Sources (default 5,000; at most 5,000, the format's limit). */
  sources?: number;
  /** PRNG seed (default 42). */
  seed?: number;
  /** The product slug the pack names (default `bench`). */
  product?: string;
  /** The pack's slug (default `bench-standards`). */
  slug?: string;
}

/** What was generated, for a report. */
export interface PackSummary {
  sources: number;
  versions: number;
  assertions: number;
  /** Assertions that supersede another. */
  superseding: number;
  retracted: number;
  insights: number;
  /** UTF-8 bytes of the source version texts, and of the three YAML files. */
  textBytes: number;
  yamlBytes: number;
  /** Characters of the assertions' statements and quotes: the text a search of assertions reads. */
  assertionChars: number;
}

const MAX_SOURCES = 5_000;
const DEFAULT_SOURCES = 5_000;
const DEFAULT_SEED = 42;
/** One insight per this many sources. */
const SOURCES_PER_INSIGHT = 15;
const SALT_INSIGHTS = 0x1f;
const LAST_DAY = Date.UTC(2026, 11, 31) / 86_400_000;

const isoDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);
const dayOf = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;

/** Insights derived from 2 or 3 assertions each, drawn from a stream of their own. */
function generateInsights(assertions: readonly GeneratedAssertion[], count: number, seed: number): GeneratedInsight[] {
  const rng = new Rng(streamSeed(seed, 0, SALT_INSIGHTS));
  const insights: GeneratedInsight[] = [];
  for (let k = 0; k < count && assertions.length > 0; k++) {
    const picked = new Map<string, GeneratedAssertion>();
    const want = Math.min(assertions.length, rng.range(2, 3));
    while (picked.size < want) {
      const a = rng.pick(assertions);
      picked.set(a.id, a);
    }
    const derived = [...picked.values()];
    const latest = Math.max(...derived.map((a) => dayOf(a.accepted)));
    const lead: Clause = derived[0]!.clause;
    insights.push({
      id: `insight-${String(k + 1).padStart(4, '0')}`,
      statement: `Read together, ${derived.length} accepted statements converge: ${clauseStatement(lead)} Related: ${derived
        .slice(1)
        .map((a) => a.clause.object)
        .join('; ')}.`,
      availableFrom: isoDay(Math.min(LAST_DAY, latest + rng.range(0, 90))),
      derivedFrom: derived.map((a) => a.id),
    });
  }
  return insights;
}

/** Generates the whole pack in memory; a pure function of the options. */
export function generatePack(options: PackGeneratorOptions = {}): GeneratedPack {
  const count = options.sources ?? DEFAULT_SOURCES;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_SOURCES) throw new Error(`sources must be 1 to ${MAX_SOURCES}, got ${count}`);
  const seed = options.seed ?? DEFAULT_SEED;
  const sources: GeneratedSource[] = [];
  const assertions: GeneratedAssertion[] = [];
  for (let i = 0; i < count; i++) {
    const generated = generateSource(seed, i, count);
    sources.push(generated.source);
    assertions.push(...generated.assertions);
  }
  const insights = generateInsights(assertions, Math.max(1, Math.round(count / SOURCES_PER_INSIGHT)), seed);
  return {
    product: options.product ?? 'bench',
    slug: options.slug ?? 'bench-standards',
    title: `Benchmark standards and guidance (${count} sources, seed ${seed})`,
    sources,
    assertions,
    insights,
  };
}

/** Counts of a generated pack. */
export function summarizePack(pack: GeneratedPack): Omit<PackSummary, 'yamlBytes'> {
  let textBytes = 0;
  let versions = 0;
  for (const source of pack.sources) {
    for (const version of source.versions) {
      versions++;
      textBytes += Buffer.byteLength(version.text, 'utf8');
    }
  }
  let assertionChars = 0;
  for (const a of pack.assertions) assertionChars += a.statement.length + a.evidence.reduce((n, e) => n + e.quote.length, 0);
  return {
    sources: pack.sources.length,
    versions,
    assertions: pack.assertions.length,
    superseding: pack.assertions.filter((a) => a.supersedes.length > 0).length,
    retracted: pack.assertions.filter((a) => a.retracted !== undefined).length,
    insights: pack.insights.length,
    textBytes,
    assertionChars,
  };
}

/** Writes the generated pack to `dir` (created if needed) in the folder format, and answers its summary. */
export async function writePack(dir: string, options: PackGeneratorOptions = {}): Promise<PackSummary> {
  const pack = generatePack(options);
  await mkdir(dir, { recursive: true });
  const BATCH = 64;
  for (let k = 0; k < pack.sources.length; k += BATCH) {
    await Promise.all(
      pack.sources.slice(k, k + BATCH).map(async (source) => {
        await mkdir(join(dir, 'sources', source.id), { recursive: true });
        await Promise.all(source.versions.map((version) => writeFile(join(dir, 'sources', source.id, `${version.label}.md`), version.text, 'utf8')));
      }),
    );
  }
  const files: Array<[string, string]> = [
    ['pack.yaml', manifestYaml(pack)],
    ['assertions.yaml', assertionsYaml(pack.assertions)],
    ['insights.yaml', insightsYaml(pack.insights)],
  ];
  let yamlBytes = 0;
  for (const [name, text] of files) {
    yamlBytes += Buffer.byteLength(text, 'utf8');
    await writeFile(join(dir, name), text, 'utf8');
  }
  return { ...summarizePack(pack), yamlBytes };
}

function parseIntFlag(flag: string, value: string | undefined): number {
  const n = value === undefined ? Number.NaN : Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${flag} expects an integer, got ${String(value)}`);
  return n;
}

async function main(argv: readonly string[]): Promise<void> {
  let outDir: string | undefined;
  const options: PackGeneratorOptions = {};
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k]!;
    if (arg === '--sources') options.sources = parseIntFlag(arg, argv[++k]);
    else if (arg === '--seed') options.seed = parseIntFlag(arg, argv[++k]);
    else if (arg.startsWith('--')) throw new Error(`unknown flag ${arg}`);
    else if (outDir === undefined) outDir = arg;
    else throw new Error(`unexpected argument ${arg}`);
  }
  if (outDir === undefined) throw new Error('usage: node bin/run-ts.js bench/pack-generator.ts OUT_DIR [--sources N] [--seed S]');
  const started = performance.now();
  const summary = await writePack(outDir, options);
  console.log(JSON.stringify({ dir: outDir, ...summary, ms: Math.round(performance.now() - started) }));
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
