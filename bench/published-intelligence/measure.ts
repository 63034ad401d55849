/**
 * The published intelligence benchmark on one database: the installation (`setup.ts`), then the real `kgate serve`
 * started `repeat` times to time the first searches of a fresh process (the pack version loaded and its index
 * built; the notes index built), and on the last start the latency rounds: one client, sequential calls, every
 * question asked of every row in a rotating order, warm-up questions first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loudLogEntries, startServer, type EngineName, type ServerProcess } from '../http/installation.ts';
import type { PackSummary } from '../pack-generator.ts';
import type { GeneratedPack } from '../pack/model.ts';
import { percentile } from '../support/stats.ts';
import { availableAssertions } from './expected.ts';
import { firstSearchParts, type FirstSearchParts } from './first-search.ts';
import { mcpClient, type McpClient } from './mcp-client.ts';
import { probeHello } from './probe.ts';
import { publishBeside, type Publication } from './publication.ts';
import { BENCH_PRODUCT, preparePackInstallation, type PackInstallation } from './setup.ts';

/** The cutoffs searched: late (nearly everything available), mid, early (little available). */
export const CUTOFFS = [
  { key: 'late', asOf: '2026-12-31' },
  { key: 'mid', asOf: '2021-06-30' },
  { key: 'early', asOf: '2016-06-30' },
] as const;

/** Results asked of both search tools. */
export const RESULT_LIMIT = 10;
/** Questions asked before measuring (not kept), and questions measured. */
export const WARMUP_QUESTIONS = 30;
export const MEASURED_QUESTIONS = 300;

/** The rows of the latency table, in order. */
export type RowKey = 'hello' | 'notes' | 'late' | 'mid' | 'early' | 'lateIntelligence';

/** One row's latencies over the measured questions, and what its answers held. */
export interface RowResult {
  key: RowKey;
  p50: number;
  p95: number;
  p99: number;
  calls: number;
  /** Mean results per answer, the share of answers with at least one, and mean answer bytes (search rows only). */
  meanResults?: number;
  answered?: number;
  meanBytes?: number;
}

/** A fresh process's first searches. */
export interface ColdStart {
  /** From spawning `kgate serve` to its "listening" line. */
  startMs: number;
  packMs: number;
  notesMs: number;
  /**
   * `GET /healthz` probed every 20 ms on another connection while the first pack search ran: the slowest answer, and
   * how many were probed. A build that holds the event loop shows here as one long answer.
   */
  helloDuringPack: { maxMs: number; probes: number };
  /** Resident memory of the server (MB): started, after the first pack search, after the first notes search. */
  rssMb: { started: number; afterPack: number; afterNotes: number };
}

/** Everything measured on one database. */
export interface EngineRun {
  engine: EngineName;
  version: string;
  setup: PackInstallation;
  publication: Publication;
  cold: ColdStart[];
  /** The first search's two parts, measured in this process after the server stopped. */
  firstSearch: FirstSearchParts;
  rows: RowResult[];
  /** Assertions available at each cutoff: as the gateway counts them, and as docs/packs.md's rules give them. */
  available: Record<(typeof CUTOFFS)[number]['key'], { gateway: number; expected: number }>;
  /** Server memory after the latency rounds (MB). */
  rssAfterMb: number;
  /** Whether the product-only endpoint listed the search tool (its row is measured only then). */
  intelligenceEndpoint: boolean;
}

/** The whole benchmark's result. */
export interface PublishedIntelligenceResult {
  seed: number;
  repeat: number;
  pack: PackSummary & { indexedChars: number };
  vault: { notes: number; bytes: number };
  engines: EngineRun[];
  skipped: Array<{ engine: string; reason: string }>;
  loadAverage: { before: number; after: number };
  failures: string[];
}

/** Inputs of one engine's run that do not depend on the engine. */
export interface RunInputs {
  pack: GeneratedPack;
  packDir: string;
  vault: string;
  notes: number;
  questions: { warmup: string[]; measured: string[] };
  repeat: number;
  log: (line: string) => void;
}

function rssMb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Checks a search_published_intelligence answer: at most the limit, and only assertions available at the cutoff. */
function packResults(structured: Record<string, unknown>, allowed: ReadonlySet<string>, asOf: string): number {
  const results = structured.results as Array<{ id: string; availableFrom: string }> | undefined;
  if (!Array.isArray(results) || results.length > RESULT_LIMIT) throw new Error(`search_published_intelligence answered ${JSON.stringify(structured).slice(0, 200)}`);
  const leaked = results.find((r) => !allowed.has(r.id) || r.availableFrom > asOf);
  if (leaked) throw new Error(`search_published_intelligence at ${asOf} answered ${leaked.id} (available from ${leaked.availableFrom}), not available then`);
  return results.length;
}

function notesResults(structured: Record<string, unknown>): number {
  const results = structured.results as unknown[] | undefined;
  if (!Array.isArray(results) || results.length > RESULT_LIMIT) throw new Error(`search_notes answered ${JSON.stringify(structured).slice(0, 200)}`);
  return results.length;
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

type Ask = (question: string) => Promise<{ ms: number; results?: number; bytes?: number }>;

/** Every row's call, as a function of the question. */
function rowCalls(client: McpClient, target: PackInstallation, allowed: Map<string, Set<string>>, intelligenceEndpoint: boolean): Map<RowKey, Ask> {
  const pack = (asOf: string, path?: string): Ask => async (question) => {
    const answer = await client.call('search_published_intelligence', { product: BENCH_PRODUCT, asOf, question, limit: RESULT_LIMIT }, path);
    return { ms: answer.ms, bytes: answer.bytes, results: packResults(answer.structured, allowed.get(asOf)!, asOf) };
  };
  const rows = new Map<RowKey, Ask>([
    ['hello', async () => ({ ms: await client.hello() })],
    [
      'notes',
      async (question) => {
        const answer = await client.call('search_notes', { mappingId: target.mappingId, query: question, limit: RESULT_LIMIT });
        return { ms: answer.ms, bytes: answer.bytes, results: notesResults(answer.structured) };
      },
    ],
    ...CUTOFFS.map((c) => [c.key, pack(c.asOf)] as [RowKey, Ask]),
  ]);
  if (intelligenceEndpoint) rows.set('lateIntelligence', pack(CUTOFFS[0].asOf, '/api/intelligence/mcp'));
  return rows;
}

/** Starts the server and times its first searches; the server is left running. */
async function coldStart(env: Record<string, string>, logFile: string, target: PackInstallation, inputs: RunInputs, allowed: Map<string, Set<string>>): Promise<{ serve: ServerProcess; cold: ColdStart }> {
  const starting = performance.now();
  const serve = await startServer(env, logFile);
  const startMs = performance.now() - starting;
  const client = mcpClient(serve.url, target.token);
  try {
    // The MCP path, the token and the account warmed by a call that searches nothing.
    await client.listTools();
    const started = rssMb(serve.pid);
    const question = inputs.questions.warmup[0]!;
    const late = CUTOFFS[0].asOf;
    const probe = probeHello(client);
    const pack = await client.call('search_published_intelligence', { product: BENCH_PRODUCT, asOf: late, question, limit: RESULT_LIMIT }).finally(() => probe.stop());
    const helloDuringPack = await probe.done;
    packResults(pack.structured, allowed.get(late)!, late);
    const afterPack = rssMb(serve.pid);
    const notes = await client.call('search_notes', { mappingId: target.mappingId, query: question, limit: RESULT_LIMIT });
    notesResults(notes.structured);
    return { serve, cold: { startMs, packMs: pack.ms, notesMs: notes.ms, helloDuringPack, rssMb: { started, afterPack, afterNotes: rssMb(serve.pid) } } };
  } catch (error) {
    await serve.stop();
    throw error;
  }
}

/** The latency rounds on a warm server: each question asked of every row, in an order that rotates each question. */
async function latencyRounds(rows: Map<RowKey, Ask>, questions: RunInputs['questions']): Promise<RowResult[]> {
  const keys = [...rows.keys()];
  const samples = new Map(keys.map((k) => [k, [] as number[]]));
  const results = new Map(keys.map((k) => [k, [] as number[]]));
  const bytes = new Map(keys.map((k) => [k, [] as number[]]));
  const all = [...questions.warmup.map((q) => ({ q, kept: false })), ...questions.measured.map((q) => ({ q, kept: true }))];
  for (const [n, { q, kept }] of all.entries()) {
    for (let k = 0; k < keys.length; k++) {
      const key = keys[(k + n) % keys.length]!;
      const answer = await rows.get(key)!(q);
      if (!kept) continue;
      samples.get(key)!.push(answer.ms);
      if (answer.results !== undefined) results.get(key)!.push(answer.results);
      if (answer.bytes !== undefined) bytes.get(key)!.push(answer.bytes);
    }
  }
  return keys.map((key) => {
    const ms = samples.get(key)!;
    const counts = results.get(key)!;
    const row: RowResult = { key, p50: percentile(ms, 50), p95: percentile(ms, 95), p99: percentile(ms, 99), calls: ms.length };
    if (counts.length > 0) {
      row.meanResults = mean(counts);
      row.answered = counts.filter((c) => c > 0).length / counts.length;
      row.meanBytes = mean(bytes.get(key)!);
    }
    return row;
  });
}

/** Sets up the installation of `env`, measures the first searches `repeat` times and the latency rounds once. */
export async function measureEngine(engine: EngineName, version: string | undefined, env: Record<string, string>, root: string, inputs: RunInputs): Promise<{ run: EngineRun; failures: string[] }> {
  const failures: string[] = [];
  inputs.log(`  ${engine}: bootstrap, import of ${inputs.notes} notes, product, installation, publication of the pack`);
  const target = await preparePackInstallation(env, inputs.packDir, inputs.vault, inputs.notes);
  failures.push(...target.failures.map((f) => `${engine} ${f}`));
  inputs.log(`  ${engine}: import ${(target.importMs / 1000).toFixed(1)} s, loadPack ${(target.loadMs / 1000).toFixed(1)} s (longest block ${(target.loadLongestBlockMs / 1000).toFixed(1)} s)`);
  const allowed = new Map(CUTOFFS.map((c) => [c.asOf, availableAssertions(inputs.pack, c.asOf)]));
  const logFiles = [join(root, `${engine}-serve-publish.log`)];
  const cold: ColdStart[] = [];
  let serve: ServerProcess | undefined;
  try {
    const publication = await publishBeside(env, logFiles[0]!, target, inputs, failures);
    inputs.log(
      `  ${engine}: kgate packs publish ${(publication.ms / 1000).toFixed(1)} s (slowest /healthz meanwhile ${publication.helloDuringPublish.maxMs.toFixed(0)} ms), again ${(publication.againMs / 1000).toFixed(1)} s`,
    );
    for (let r = 0; r < inputs.repeat; r++) {
      await serve?.stop();
      const logFile = join(root, `${engine}-serve-${r + 1}.log`);
      logFiles.push(logFile);
      const started = await coldStart(env, logFile, target, inputs, allowed);
      serve = started.serve;
      cold.push(started.cold);
      inputs.log(`  ${engine} start ${r + 1}: first search_published_intelligence ${started.cold.packMs.toFixed(0)} ms, first search_notes ${started.cold.notesMs.toFixed(0)} ms`);
    }
    const client = mcpClient(serve!.url, target.token);
    const intelligenceEndpoint = (await client.listTools('/api/intelligence/mcp').catch(() => [] as string[])).includes('search_published_intelligence');
    const rows = await latencyRounds(rowCalls(client, target, allowed, intelligenceEndpoint), inputs.questions);
    for (const row of rows) inputs.log(`  ${engine} ${row.key}: p50 ${row.p50.toFixed(2)} ms, p95 ${row.p95.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms`);
    const available = {} as EngineRun['available'];
    for (const c of CUTOFFS) {
      const state = await client.call('get_published_intelligence_state', { product: BENCH_PRODUCT, asOf: c.asOf, limit: 1 });
      available[c.key] = { gateway: Number(state.structured.total), expected: allowed.get(c.asOf)!.size };
    }
    const rssAfterMb = rssMb(serve!.pid);
    await serve!.stop();
    const firstSearch = await firstSearchParts(env, inputs.pack.slug, inputs.repeat);
    inputs.log(`  ${engine}: first search in this process, load ${firstSearch.loadMs.toFixed(0)} ms, build ${firstSearch.buildMs.toFixed(0)} ms`);
    // The failures array is returned by reference: the finally below may still add the server log's loud lines.
    return { run: { engine, version: version ?? target.pglite, setup: target, publication, cold, firstSearch, rows, available, rssAfterMb, intelligenceEndpoint }, failures };
  } finally {
    await serve?.stop();
    const loud = await loudLogEntries(logFiles);
    if (loud.length > 0) failures.push(`${engine}: ${loud.length} server log lines at warn or above, e.g. ${JSON.stringify(loud[0]).slice(0, 300)}`);
  }
}
