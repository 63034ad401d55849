/** The published intelligence benchmark's section of docs/benchmarks.md: two tables and what was measured how. */
import type { BenchmarkReport } from '../support/benchmark.ts';
import { count, fixed } from '../support/format.ts';
import { median } from '../support/stats.ts';
import { reading } from './reading.ts';
import { CUTOFFS, MEASURED_QUESTIONS, RESULT_LIMIT, WARMUP_QUESTIONS, type EngineRun, type PublishedIntelligenceResult, type RowKey } from './measure.ts';

const ms = (value: number): string => (value >= 100 ? fixed(value, 0) : value >= 10 ? fixed(value, 1) : fixed(value, 2));
const seconds = (value: number): string => `${fixed(value / 1000, 1)} s`;
const mb = (bytes: number): string => `${fixed(bytes / 1e6, 1)} MB`;
const range = (values: readonly number[], unit: (v: number) => string): string =>
  values.length < 2 ? unit(values[0] ?? Number.NaN) : `${unit(median(values))} (${unit(Math.min(...values))}–${unit(Math.max(...values))})`;

function rowLabel(key: RowKey, result: PublishedIntelligenceResult, run: EngineRun): string {
  if (key === 'hello') return 'hello-world: `GET /healthz`';
  if (key === 'notes') return `\`search_notes\` (${count(result.vault.notes)} notes; every word must occur)`;
  const cutoff = CUTOFFS.find((c) => c.key === (key === 'lateIntelligence' ? 'late' : key))!;
  const available = `${count(run.available[cutoff.key].gateway)} assertions available`;
  const where = key === 'lateIntelligence' ? ', through `POST /api/intelligence/mcp`' : '';
  return `\`search_published_intelligence\` asOf ${cutoff.asOf} (${available})${where}`;
}

/** The report of a run. */
export function publishedIntelligenceReport(result: PublishedIntelligenceResult): BenchmarkReport {
  const table = [
    '| Call (one client, sequential) | Database | p50 (ms) | p95 (ms) | p99 (ms) | p95 vs `search_notes` | Results per answer | Answers with a result | Answer size (mean) |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const run of result.engines) {
    const notes = run.rows.find((r) => r.key === 'notes')!;
    for (const row of run.rows) {
      const ratio = row.key === 'hello' ? '–' : row.key === 'notes' ? 'baseline' : `${fixed(row.p95 / notes.p95, 2)}×`;
      const results = row.meanResults === undefined ? '–' : fixed(row.meanResults, 1);
      const answered = row.answered === undefined ? '–' : `${Math.round(row.answered * 100)}%`;
      const size = row.meanBytes === undefined ? '–' : `${fixed(row.meanBytes / 1000, 1)} KB`;
      table.push(`| ${rowLabel(row.key, result, run)} | ${run.engine} | ${ms(row.p50)} | ${ms(row.p95)} | ${ms(row.p99)} | ${ratio} | ${results} | ${answered} | ${size} |`);
    }
  }
  const engines = result.engines;
  const header = `| Step | ${engines.map((e) => e.engine).join(' | ')} |`;
  const steps = [
    '',
    'One-off steps:',
    '',
    header,
    `|---|${engines.map(() => '--:').join('|')}|`,
    `| Read and validate the pack folder alone (\`loadPack\` in the benchmark process: ${count(result.pack.sources)} sources, ${mb(result.pack.textBytes + result.pack.yamlBytes)}) | ${engines.map((e) => seconds(e.setup.loadMs)).join(' | ')} |`,
    `| Its longest synchronous stretch (the event loop's longest wait during \`loadPack\`, \`monitorEventLoopDelay\`) | ${engines.map((e) => seconds(e.setup.loadLongestBlockMs)).join(' | ')} |`,
    `| Publish it: \`kgate packs publish DIR --json\` beside the running gateway, whole command (version 1 stored) | ${engines.map((e) => seconds(e.publication.ms)).join(' | ')} |`,
    `| Slowest \`GET /healthz\` of the gateway (probed every 20 ms) during that command | ${engines
      .map((e) => `${fixed(e.publication.helloDuringPublish.maxMs, 0)} ms (${count(e.publication.helloDuringPublish.probes)} probes)`)
      .join(' | ')} |`,
    `| The same command again (unchanged content: nothing stored) | ${engines.map((e) => seconds(e.publication.againMs)).join(' | ')} |`,
    `| Import the vault for \`search_notes\` (\`importFolder\`, ${count(result.vault.notes)} notes) | ${engines.map((e) => seconds(e.setup.importMs)).join(' | ')} |`,
    `| Start \`kgate serve\` (spawn to listening), median of ${result.repeat} (range) | ${engines.map((e) => range(e.cold.map((c) => c.startMs), (v) => `${fixed(v, 0)} ms`)).join(' | ')} |`,
    `| First \`search_published_intelligence\` after a start (loads the pack version, builds its index), median of ${result.repeat} (range) | ${engines
      .map((e) => range(e.cold.map((c) => c.packMs), (v) => `${fixed(v, 0)} ms`))
      .join(' | ')} |`,
    `| Its parts, in the benchmark process on the same database: \`loadPackVersion\` + \`createPackView\` (the index built in one go), median of ${result.repeat} | ${engines
      .map((e) => `${fixed(e.firstSearch.loadMs, 0)} ms + ${fixed(e.firstSearch.buildMs, 0)} ms`)
      .join(' | ')} |`,
    `| Slowest \`GET /healthz\` (probed every 20 ms on another connection) during that first pack search, median of ${result.repeat} | ${engines
      .map((e) => `${fixed(median(e.cold.map((c) => c.helloDuringPack.maxMs)), 0)} ms (${count(median(e.cold.map((c) => c.helloDuringPack.probes)))} probes)`)
      .join(' | ')} |`,
    `| First \`search_notes\` after a start (builds the vault's index, or loads its snapshot on PGlite), median of ${result.repeat} (range) | ${engines
      .map((e) => range(e.cold.map((c) => c.notesMs), (v) => `${fixed(v, 0)} ms`))
      .join(' | ')} |`,
    `| Server memory (RSS): started, after the first pack search, after the first notes search, after the rounds | ${engines
      .map((e) => {
        const last = e.cold[e.cold.length - 1]!;
        return `${fixed(last.rssMb.started, 0)} / ${fixed(last.rssMb.afterPack, 0)} / ${fixed(last.rssMb.afterNotes, 0)} / ${fixed(e.rssAfterMb, 0)} MB`;
      })
      .join(' | ')} |`,
  ];
  const p = result.pack;
  const details = [
    `- Pack: generated by \`bench/pack-generator.ts\` (seed ${result.seed}) into a temporary folder: ${count(p.sources)} sources of invented standards bodies with ${count(p.versions)} versions ` +
      `(1 to 3 each, published 2015 to mid-2026), texts of 20 to 60 lines (${mb(p.textBytes)}), ${count(p.assertions)} assertions quoting one or two exact lines ` +
      `(${count(p.superseding)} supersede another, ${count(p.retracted)} retracted), ${count(p.insights)} insights; YAML files ${mb(p.yamlBytes)}. ` +
      `What a search of it reads, each assertion's statement, quotes and cited source titles: ${count(p.indexedChars)} characters.`,
    `- Vault for \`search_notes\`: the synthetic vault of \`bench/vault-generator.ts\` (seed ${result.seed}), sized to a comparable corpus: ${count(result.vault.notes)} notes, ` +
      `${count(result.vault.bytes)} bytes (about ${fixed(result.vault.bytes / p.indexedChars, 2)}× the pack's searched characters), imported into the benchmark account's vault.`,
    `- Setup, per database, from this process before the server starts: the benchmark account (an owner with a personal access token, its MCP allowances raised to 10^9; every call still reserves its unit), ` +
      'the vault imported, an organization with a second account as its admin, the product `bench`, the benchmark account\'s installation of it (so it is entitled as a customer), ' +
      'and the pack folder read and validated with `loadPack` (timed alone). Then a started gateway, and the pack published as the operator does it, with `kgate packs publish DIR --json` ' +
      '(on PGlite the command validates the folder, then runs again inside the gateway over its control channel, since the gateway holds the data directory; on PostgreSQL it runs in its own process), ' +
      'then the same command again, which must store nothing; the gateway is stopped.',
    `- Server: the real \`kgate serve\` as a child process (127.0.0.1, log level info to a file). After the publishing one, the gateway is started ${result.repeat === 1 ? 'once' : `${result.repeat} times`}; ` +
      `after each start one \`tools/list\` (which searches nothing), then the first \`search_published_intelligence\` (asOf ${CUTOFFS[0].asOf}) and the first \`search_notes\`, with the first warm-up question. ` +
      'The latency rounds run on the last start. Then, with the server stopped, the first search\'s two parts are timed in the benchmark process on the same database.',
    `- Calls: one client (Node's fetch, keep-alive), one request at a time, \`POST /api/mcp\` \`tools/call\` with the personal access token, limit ${RESULT_LIMIT} for both tools; ` +
      `${WARMUP_QUESTIONS} warm-up questions then ${MEASURED_QUESTIONS} measured, each asked of every row in an order that rotates with each question (hello-world included, so other load hits all rows alike). ` +
      'Questions are one, two or three words (a third each) drawn from words both corpora use (`bench/pack/vocabulary.ts`); the same question goes to both tools. ' +
      '`search_notes` answers the notes holding every word; `search_published_intelligence` ranks (BM25) every assertion available at the cutoff that holds any word. ' +
      'Latency is from the request to the parsed answer; p50, p95 and p99 are nearest-rank percentiles.',
    '- Checks: every answer must be a structured result; a published-intelligence result must be an assertion available at the cutoff by the rules of docs/packs.md, computed from the generated pack ' +
      '(a later one is a leak and fails the benchmark), and the gateway\'s count of available assertions (`get_published_intelligence_state`) is compared with the same rules; a server log line at warn or above fails the benchmark.',
  ];
  for (const run of engines) {
    const counts = CUTOFFS.map((c) => {
      const a = run.available[c.key];
      return `${c.asOf}: ${count(a.gateway)}${a.gateway === a.expected ? '' : ` (the rules give ${count(a.expected)})`}`;
    });
    details.push(`- ${run.engine} ${run.version}: available assertions by cutoff, ${counts.join('; ')}.${run.intelligenceEndpoint ? '' : ' `/api/intelligence/mcp` did not list the search tool: its row is not measured.'}`);
  }
  for (const s of result.skipped) details.push(`- ${s.engine} skipped: ${s.reason}`);
  details.push(
    `- Machine: 2 cores shared by the client, the server (its request thread and PGlite's worker thread) and, for PostgreSQL, the database server; other sessions ran on it too ` +
      `(1-minute load average ${fixed(result.loadAverage.before, 2)} before the run, ${fixed(result.loadAverage.after, 2)} after it). Compare rows of one run.`,
  );
  return { table: [...table, ...steps], details: [...details, '', ...reading(result)], failures: result.failures };
}
