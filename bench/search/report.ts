/**
 * The "Vault search" section of docs/benchmarks.md, rendered from a measured result: one table (search latency
 * per database and query beside both baselines, with the two target ratios; index builds; graph queries), what
 * exactly was measured, and whether the targets are met.
 */
import { availableParallelism } from 'node:os';
import type { BenchmarkReport } from '../support/benchmark.ts';
import { count, fixed } from '../support/format.ts';
import { median } from '../support/stats.ts';
import { MEASURED_ROUNDS, WARMUP_ROUNDS, type Latency } from './latency.ts';
import { BENCH_QUERIES, RESULT_LIMIT } from './queries.ts';
import type { EngineResult, VaultSearchResult } from './result.ts';

/** kgate's p95 may be at most this many times FTS5's. */
export const FTS5_RATIO_TARGET = 3;
/** ripgrep's p95 must be at least this many times kgate's. */
export const RIPGREP_RATIO_TARGET = 10;

/** Milliseconds with sensible precision: "0.42", "12.3", "1,250"; "–" when not measured. */
function ms(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return '–';
  return fixed(n, n < 10 ? 2 : n < 100 ? 1 : 0);
}

function pair(latency: Latency | undefined): string {
  return latency === undefined ? '–' : `${ms(latency.p50)} / ${ms(latency.p95)}`;
}

/** A ratio against its target, e.g. "2.1 (met)"; "–" when either side is missing. */
function ratioCell(ratio: number | undefined, met: boolean): string {
  if (ratio === undefined || !Number.isFinite(ratio)) return '–';
  return `${fixed(ratio, ratio < 10 ? 1 : 0)} (${met ? 'met' : '**not met**'})`;
}

interface Verdict {
  name: string;
  fts5Ratio?: number;
  ripgrepRatio?: number;
}

/** The target ratios of one engine on one query. */
function verdict(result: VaultSearchResult, engine: EngineResult, key: (typeof BENCH_QUERIES)[number]['key']): Verdict {
  const kgate = result.latency.get(`kgate on ${engine.name}`)?.get(key)?.p95;
  const fts5 = result.latency.get('SQLite FTS5')?.get(key)?.p95;
  const rg = result.latency.get('ripgrep')?.get(key)?.p95;
  return {
    name: `${engine.name}, ${key}`,
    ...(kgate !== undefined && fts5 !== undefined ? { fts5Ratio: kgate / fts5 } : {}),
    ...(kgate !== undefined && rg !== undefined ? { ripgrepRatio: rg / kgate } : {}),
  };
}

/** The table: latency rows per query and engine, then index builds, first searches and graph queries per engine. */
function table(result: VaultSearchResult, verdicts: Map<string, Verdict>): string[] {
  const rows = [
    `| Measurement | Database | kgate | SQLite FTS5 | ripgrep | kgate p95 / FTS5 p95 (target ≤ ${FTS5_RATIO_TARGET}) | ripgrep p95 / kgate p95 (target ≥ ${RIPGREP_RATIO_TARGET}) |`,
    '|---|---|--:|--:|--:|--:|--:|',
  ];
  for (const query of BENCH_QUERIES) {
    const matches = result.matching[query.key];
    for (const engine of result.kgate) {
      const v = verdicts.get(`${engine.name}, ${query.key}`);
      rows.push(
        `| Search ${query.label} (${matches === undefined ? '?' : count(matches)} notes match), p50 / p95 ms | ${engine.name} | ` +
          `${pair(result.latency.get(`kgate on ${engine.name}`)?.get(query.key))} | ${pair(result.latency.get('SQLite FTS5')?.get(query.key))} | ` +
          `${pair(result.latency.get('ripgrep')?.get(query.key))} | ${ratioCell(v?.fts5Ratio, (v?.fts5Ratio ?? Infinity) <= FTS5_RATIO_TARGET)} | ` +
          `${ratioCell(v?.ripgrepRatio, (v?.ripgrepRatio ?? 0) >= RIPGREP_RATIO_TARGET)} |`,
      );
    }
  }
  const fts5Build = result.fts5 ? `${fixed(result.fts5.buildSeconds, 2)} s` : '–';
  for (const engine of result.kgate) {
    rows.push(`| Index build: kgate import with Markdown model; FTS5 build (both read the files) | ${engine.name} | ${fixed(engine.importSeconds, 2)} s | ${fts5Build} | none (reads every file per search) | | |`);
  }
  for (const engine of result.kgate) {
    const cold = engine.coldMs;
    const text = `${ms(median(cold))} ms` + (cold.length > 1 ? ` (${ms(Math.min(...cold))}–${ms(Math.max(...cold))})` : '');
    rows.push(`| In-memory index build: first search on a cold service${cold.length > 1 ? ` (median of ${cold.length})` : ''} | ${engine.name} | ${text} | – | – | | |`);
  }
  for (const engine of result.kgate) {
    rows.push(`| Graph \`relations\` of ${count(result.graphSample)} notes, p50 / p95 ms | ${engine.name} | ${pair(engine.graph?.latency)} | – | – | | |`);
  }
  return rows;
}

/** One sentence per target: met everywhere, or where not. */
function targetSentences(verdicts: readonly Verdict[]): string[] {
  const judged = (target: string, pick: (v: Verdict) => number | undefined, ok: (r: number) => boolean): string => {
    const measured = verdicts.filter((v) => pick(v) !== undefined);
    if (measured.length === 0) return `- Target ${target}: not measured.`;
    const missed = measured.filter((v) => !ok(pick(v) as number));
    const ratios = measured.map((v) => `${v.name} ${fixed(pick(v) as number, 1)}`).join('; ');
    if (missed.length === 0) return `- Target ${target}: **met** in all ${measured.length} searches (${ratios}).`;
    return `- Target ${target}: **not met** in ${missed.length} of ${measured.length} searches (${ratios}).`;
  };
  return [
    judged(`kgate p95 ≤ ${FTS5_RATIO_TARGET} × FTS5 p95`, (v) => v.fts5Ratio, (r) => r <= FTS5_RATIO_TARGET),
    judged(`ripgrep p95 ≥ ${RIPGREP_RATIO_TARGET} × kgate p95`, (v) => v.ripgrepRatio, (r) => r >= RIPGREP_RATIO_TARGET),
  ];
}

/** Renders a measured result as the Markdown of the "Vault search" section. */
export function vaultSearchReport(result: VaultSearchResult): BenchmarkReport {
  if (result.notRun !== undefined) return { table: [], details: [`**Not run:** ${result.notRun}.`], failures: result.failures };
  const verdictList = result.kgate.flatMap((engine) => BENCH_QUERIES.map((q) => verdict(result, engine, q.key)));
  const verdicts = new Map(verdictList.map((v) => [v.name, v]));
  const matches = BENCH_QUERIES.map((q) => `${q.key} ${count(result.matching[q.key] ?? 0)}`).join(', ');
  const details = [
    ...targetSentences(verdictList),
    ...result.skipped.map((s) => `- **${s.engine} was skipped:** ${s.reason}.`),
    `- Vault: ${count(result.notes)} synthetic notes (seed ${result.seed}, ${(result.bytes / 1e6).toFixed(1)} MB) from \`bench/vault-generator.ts\`, ` +
      `written to a temporary folder (so ripgrep and the builds read from the page cache). Notes containing each query's text: ${matches}.`,
    `- Search latency: per query, ${WARMUP_ROUNDS} warm-up rounds then ${MEASURED_ROUNDS} measured rounds; each round calls every system once, ` +
      'one after the other, in an order that rotates each round, so that other load on the machine hits all systems alike. p50 and p95 are ' +
      'nearest-rank percentiles of the measured calls. kgate: `services.search.searchNotes(actor, mappingId, { query, limit: ' +
      `${RESULT_LIMIT} })\` in-process (no HTTP), the phrase as \`"amber lighthouse protocol"\` with the quotes; SQLite FTS5: one prepared ` +
      `\`SELECT path, snippet(...) FROM f WHERE f MATCH ? ORDER BY bm25(f, 10.0, 4.0, 1.0) LIMIT ${RESULT_LIMIT}\` over ` +
      '`fts5(title, path, body)` (body: the whole file); ripgrep: one `rg --files-with-matches --fixed-strings --ignore-case TEXT DIR` ' +
      'child process per search, timed from spawn to exit, listing every matching file (there is no index to stop early with).',
    `- Database work inside each kgate search (mean over its calls; statements, and milliseconds awaiting them): ${result.kgate
      .map(
        (engine) =>
          `${engine.name}: ${BENCH_QUERIES.map((q) => {
            const work = engine.database[q.key];
            return work === undefined ? `${q.key} –` : `${q.key} ${fixed(work.statements, 1)} statements, ${ms(work.ms)} ms`;
          }).join('; ')}`,
      )
      .join('. ')}. The rest of a search is JavaScript: the in-memory index, ranking, snippets.`,
    `- Every answer is checked against the notes that contain the text: kgate and FTS5 must return min(${RESULT_LIMIT}, matches) distinct ` +
      "matching notes, each with a snippet that shows the match (for the phrase, at least its first word: FTS5's snippet window can end " +
      "inside the phrase), and kgate's `truncated` must be true exactly when more notes match " +
      '(the common term); ripgrep must list exactly the matching files. A wrong answer fails the benchmark.',
    '- Index build, one run each: kgate\'s import is `importFolder` (what `kgate import` runs) on a fresh database: list and read the files, ' +
      "compute each note's Markdown model (search text, tags, links), store notes, links and provenance. The FTS5 build lists and reads the " +
      "same files with the same code, computes kgate's title, and inserts into the FTS5 table in transactions of 250. The in-memory index " +
      `build is the first search (${BENCH_QUERIES[0]?.label ?? 'rare term'}) on a fresh \`createServices(db)\` over the imported database: ` +
      'loading the stored search text and building the index, plus that one search.',
    `- Graph: \`services.graph.relations(actor, mappingId, { path })\` for ${count(result.graphSample)} notes spread evenly over the vault, one ` +
      'at a time after 5 warm-up calls; each answer must be for the note asked and hold at least one outgoing and one unresolved link ' +
      '(every synthetic note has both).',
    `- Engines: ${Object.entries(result.engines)
      .map(([name, version]) => `${name} ${version}`)
      .join('; ')}. Opening + migrating the kgate databases is not timed (${Object.entries(result.openSeconds)
      .map(([name, s]) => `${name} ${fixed(s, 1)} s`)
      .join(', ')}).`,
    `- Machine: ${availableParallelism()} cores shared with whatever else runs (other engineers' test runs, for instance); 1-minute load average ` +
      `${fixed(result.load.before, 2)} before the run and ${fixed(result.load.after, 2)} after (the second counts the benchmark's own work too). ` +
      'Other load moves p95 first, so compare systems within a run, not runs with each other. ' +
      'kgate and FTS5 answer on this process\'s thread; ripgrep searches with its own threads on both cores.',
  ];
  if (result.failures.length > 0) {
    details.push('', '**Something did not do its job; these numbers are meaningless:**', '', ...result.failures.map((f) => `- ${f}`));
  }
  return { table: table(result, verdicts), details, failures: result.failures };
}
