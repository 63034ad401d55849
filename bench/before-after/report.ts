/** The Markdown section of the before-and-after benchmark. */
import { availableParallelism } from 'node:os';
import type { BeforeAfterResult, EngineComparison, Row } from '../before-after.ts';
import type { Measurement } from '../http/load.ts';
import type { BenchmarkReport } from '../support/benchmark.ts';
import { count, fixed } from '../support/format.ts';
import { MIN_TOLERANCE, verdictText, type Side } from './compare.ts';
import { KEYS, type Key } from './scenarios.ts';

/** Milliseconds as printed: one decimal below 10 ms, whole numbers above. */
function ms(value: number): string {
  return `${value < 10 ? fixed(value, 1) : fixed(value, 0)} ms`;
}

/** `part` as a percentage of `whole`: one decimal below 10%, e.g. "4.2%", "38%". */
function share(part: number, whole: number): string {
  const pct = (100 * part) / whole;
  return `${pct < 10 ? fixed(pct, 1) : fixed(pct, 0)}%`;
}

function rate(requestsPerSecond: number): string {
  return count(Math.round(requestsPerSecond));
}

function commitText(commit: { short: string; subject: string }): string {
  return `\`${commit.short}\` "${commit.subject}"`;
}

function mainTable(engine: EngineComparison): string[] {
  return [
    '| Scenario | old req/s | new req/s | new/old | old p99 | new p99 | Verdict |',
    '|---|--:|--:|--:|--:|--:|---|',
    ...engine.rows.map(({ label, comparison: c }) => {
      const cells = [rate(c.old.requestsPerSecond), rate(c.new.requestsPerSecond), fixed(c.ratio, 2), ms(c.old.p99Ms), ms(c.new.p99Ms)];
      return `| ${label} | ${cells.join(' | ')} | ${verdictText(c)} |`;
    }),
  ];
}

function runsText(row: Row, side: Side): string {
  const summary = row.comparison[side];
  return `${summary.runs.map(rate).join(' / ')} (±${fixed(100 * summary.spread, 1)}%)`;
}

function detailTable(engine: EngineComparison): string[] {
  const hello = engine.rows.find((r) => r.key === 'hello')!.comparison;
  const vsHello = (row: Row, side: Side) =>
    row.key === 'hello' ? 'baseline' : share(row.comparison[side].requestsPerSecond, hello[side].requestsPerSecond);
  return [
    '| Scenario | old runs 1 / 2, req/s (spread) | new runs 1 / 2, req/s (spread) | old p50 | new p50 | old vs its hello-world | new vs its hello-world | other work (cores) |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
    ...engine.rows.map(
      (row) =>
        `| ${row.label} | ${runsText(row, 'old')} | ${runsText(row, 'new')} | ${ms(row.comparison.old.p50Ms)} | ${ms(row.comparison.new.p50Ms)} | ` +
        `${vsHello(row, 'old')} | ${vsHello(row, 'new')} | ${otherWork(runsOf(row))} |`,
    ),
  ];
}

/**
 * Cores busy during a measured run with other work than autocannon, the measured server and PostgreSQL: other
 * processes of a shared machine (and the idle other side), the likeliest cause of a large run-to-run spread.
 * PostgreSQL's share is that of the `postgres` processes alive at both readings (other users' included); one that
 * exits during the run takes its CPU time with it, so that share is taken as at least zero.
 */
function otherCores(m: Measurement<Key>): number | undefined {
  const { machineBusy, loadGeneratorCores, serverCores, postgresCores } = m.cpu;
  if (machineBusy === undefined || serverCores === undefined) return undefined;
  const cores = availableParallelism();
  return Math.min(cores, Math.max(0, machineBusy * cores - loadGeneratorCores - serverCores - Math.max(0, postgresCores ?? 0)));
}

function runsOf(row: Row): Array<Measurement<Key>> {
  return [...row.runs.old, ...row.runs.new];
}

/** Other work during some runs: "0.12 (up to 0.30)", the mean and the largest of the runs; a dash when unknown. */
function otherWork(runs: ReadonlyArray<Measurement<Key>>): string {
  const cores = runs.map(otherCores).filter((c): c is number => c !== undefined);
  if (cores.length === 0) return '–';
  return `${fixed(cores.reduce((a, b) => a + b, 0) / cores.length, 2)} (up to ${fixed(Math.max(...cores), 2)})`;
}

/** One line per database: how many rows are within noise, and which are not. */
function summary(engine: EngineComparison): string {
  const off = engine.rows.filter((r) => r.comparison.verdict !== 'within noise');
  const within = engine.rows.length - off.length;
  const listed = off.map((r) => `${r.label} ${verdictText(r.comparison)}`).join('; ');
  return `On ${engine.engine}, ${within} of ${engine.rows.length} rows are within noise${off.length > 0 ? `; ${listed}` : ''}.`;
}

/** Builds the report. */
export function beforeAfterReport(result: BeforeAfterResult): BenchmarkReport {
  const { connections, warmupSeconds, seconds } = result.options;
  const { baseline, current } = result;
  const table: string[] = [
    `Old: ${commitText(baseline.commit)} (the baseline: ${baseline.why}). ` +
      `New: the working tree at ${commitText(current.commit)}${current.dirty ? ', with uncommitted changes' : ''}.`,
  ];
  for (const engine of result.engines) table.push('', `### ${engine.engine}`, '', ...mainTable(engine), '', summary(engine));
  for (const s of result.skipped) table.push('', `### ${s.engine}`, '', `Skipped: ${s.reason}`);

  const details: string[] = [
    `- Trees: the old commit checked out with \`git worktree add --detach\` into a temporary folder (removed afterwards), its dependencies ${result.install}; ` +
      'the new side is the working tree as it is. Each side runs its own code only: its own `kgate admin bootstrap --json` (owner, token, the demo ' +
      'vault from its `examples/vault`), its own `kgate admin account` raising the owner\'s REST and MCP allowances to 10^9, its own `kgate serve` ' +
      '(child process, PORT=0, 127.0.0.1, log level info to a file), on a database of its own: PGlite, a fresh data directory per side; ' +
      'PostgreSQL, a fresh scratch database per side. Then 10 notes of about 2 KB written through its API (the preview updates them), and after ' +
      "the load the applied notes counted through its API. This process never opens a side's database.",
    `- Load: autocannon, ${connections} connections (keep-alive, no pipelining); each run a ${warmupSeconds} s warm-up, then ${seconds} s measured. ` +
      'Both servers are up, only one is under load at a time. Each scenario is measured old, new, new, old (ABBA) before the next one, so that ' +
      'a drift over time weighs the same on both sides, and both servers are restarted at the middle of each ABBA, so that a side\'s two runs ' +
      'come from two processes and its spread includes the difference between processes of the same code. A side\'s req/s, p50 and p99 are ' +
      'the means of its two runs. Every response body is ' +
      'checked; any error, non-2xx answer, wrong body, server log line at warn or above, or applied note missing fails the benchmark.',
    '- Requests: the same on both sides. REST with the owner\'s personal access token; MCP `POST /api/mcp` with the same token, ' +
      '`accept: application/json, text/event-stream`, `mcp-protocol-version: 2025-11-25`. The note read is `Projects/Offline Sync.md`; the list ' +
      'returns every note of the vault (25); the preview sends 10 write-note updates with their current hashes, the MCP preview one; the applies ' +
      'write one new note, or 10 new synthetic notes of about 2 KB with their links, per request with a fresh Idempotency-Key, and run last, so that ' +
      'every other scenario sees the same notes on both sides.' +
      (result.engines[0] !== undefined && result.engines[0].rows.length < KEYS.length
        ? ` This run measured only: ${result.engines[0].rows.map((r) => r.key).join(', ')} (\`--scenario\`).`
        : ''),
    `- Verdict: within noise when |1 − new/old| is at most the row's tolerance, the two sides' run-to-run spreads (|run 1 − run 2| ÷ ` +
      `their mean, in the table below) added, and at least ${fixed(100 * MIN_TOLERANCE, 0)}%: about two standard errors of the ratio; otherwise ` +
      'faster or slower. Latency is not in the verdict: compare the p99 columns.',
    `- Other work on the machine during the measured runs (busy cores not used by autocannon, the measured server or PostgreSQL; the ` +
      `machine has ${availableParallelism()}), mean of the runs (up to): ${result.engines.map((e) => `${e.engine} ${otherWork(e.rows.flatMap(runsOf))}`).join('; ')}. ` +
      'Spreads grow with it, and with only two runs per side a busy machine can move a ratio beyond its tolerance: read a verdict with the ' +
      '"other work" column below, and measure on a quiet machine.',
    `- Engines: ${result.engines.map((e) => `${e.engine} ${e.version}`).join('; ')}.`,
    ...result.skipped.map((s) => `- ${s.engine} skipped: ${s.reason}`),
    `- The whole benchmark took ${fixed(result.seconds / 60, 1)} min (checkout, installs, set-up and ${4 * (result.engines[0]?.rows.length ?? 0)} runs per database).`,
  ];
  for (const engine of result.engines) {
    details.push('', `Each run, and each side against its own hello-world, on ${engine.engine}:`, '', ...detailTable(engine));
  }
  return { table, details, failures: result.failures };
}
