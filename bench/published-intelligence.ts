/**
 * Published intelligence (issue 19): p50, p95 and p99 of `search_published_intelligence` on a generated pack of
 * 5,000 sources (about 25,000 assertions) at three cutoffs, beside `search_notes` on a synthetic vault of a comparable
 * number of characters and hello-world (`GET /healthz`), all through one started `kgate serve` over `POST /api/mcp`
 * in the same run, on embedded PGlite and then on server PostgreSQL (a scratch database; skipped with the reason when
 * the server cannot be reached). Also timed: reading and validating the pack folder, publishing it with `kgate packs
 * publish` beside the running gateway and again unchanged (with the gateway's `GET /healthz` probed meanwhile), and
 * the first searches of a fresh server process (the pack version loaded and its index built), with their parts.
 *
 * `npm run bench -- --only published-intelligence [--seed S] [--repeat R] [--write]`; `--repeat` is the number of
 * server starts whose first searches are timed (default 3).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePack, writePack } from './pack-generator.ts';
import { benchQuestions } from './pack/vocabulary.ts';
import { indexedCharacters } from './published-intelligence/expected.ts';
import { MEASURED_QUESTIONS, WARMUP_QUESTIONS, measureEngine, type PublishedIntelligenceResult, type RunInputs } from './published-intelligence/measure.ts';
import { publishedIntelligenceReport } from './published-intelligence/report.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count } from './support/format.ts';
import { measureOnServedEngines } from './support/served-engines.ts';
import { writeSyntheticVault } from './vault-generator.ts';

/** Sources of the generated pack: the format's limit. */
export const PACK_SOURCES = 5_000;
/** The synthetic vault's mean note size in bytes (41.4 MB for 20,000 notes of seed 42): sizes the comparable vault. */
const MEAN_NOTE_BYTES = 2_070;

/** Generates the pack (`sources`, default 5,000: smaller for a smoke run) and the vault, then measures on PGlite and on PostgreSQL. */
export async function measurePublishedIntelligence(seed: number, repeat: number, options: { sources?: number; serverUrl?: string } = {}): Promise<PublishedIntelligenceResult> {
  const sources = options.sources ?? PACK_SOURCES;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const root = await mkdtemp(join(tmpdir(), 'kgate-bench-intelligence-'));
  const loadBefore = loadavg()[0] ?? 0;
  try {
    const packDir = join(root, 'pack');
    const summary = await writePack(packDir, { sources, seed });
    const pack = generatePack({ sources, seed });
    const indexedChars = indexedCharacters(pack);
    const notes = Math.max(1, Math.round(indexedChars / MEAN_NOTE_BYTES));
    const vault = join(root, 'vault');
    const written = await writeSyntheticVault(vault, { notes, seed });
    log(`pack: ${count(summary.sources)} sources, ${count(summary.assertions)} assertions, ${count(indexedChars)} searched characters; vault: ${count(notes)} notes, ${count(written.bytes)} bytes`);
    const questions = benchQuestions(WARMUP_QUESTIONS + MEASURED_QUESTIONS, seed);
    const inputs: RunInputs = {
      pack,
      packDir,
      vault,
      notes,
      questions: { warmup: questions.slice(0, WARMUP_QUESTIONS), measured: questions.slice(WARMUP_QUESTIONS) },
      repeat,
      log,
    };
    const result: PublishedIntelligenceResult = {
      seed,
      repeat,
      pack: { ...summary, indexedChars },
      vault: { notes, bytes: written.bytes },
      engines: [],
      skipped: [],
      loadAverage: { before: loadBefore, after: 0 },
      failures: [],
    };
    const measured = await measureOnServedEngines(
      'intelligence',
      async ({ engine, env, version }) => {
        const { run, failures } = await measureEngine(engine, version, env, root, inputs);
        result.failures.push(...failures);
        return run;
      },
      { serverUrl: options.serverUrl, log },
    );
    result.engines.push(...measured.runs);
    result.skipped.push(...measured.skipped);
    result.loadAverage.after = loadavg()[0] ?? 0;
    return result;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The benchmark as `bench/run.ts` runs it (`--only published-intelligence`). */
export const publishedIntelligenceBenchmark: Benchmark = {
  title: 'Published intelligence',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    return publishedIntelligenceReport(await measurePublishedIntelligence(options.seed, options.repeat));
  },
};
