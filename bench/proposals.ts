/**
 * Proposals: how fast agents' proposals are created, and what executing an approved one costs, on the 20,000-note
 * synthetic vault, on embedded PGlite and on server PostgreSQL, each beside its baseline measured the same way in the
 * same run:
 * - `propose_action` (a guarded preview, then the proposal, its first step and its event stored in one transaction)
 *   beside `preview_note_writes` of the same kind of change (the preview alone, with its receipt);
 * - executing an approved proposal (lock, keep the previous contents, apply exactly the approved notes, record the
 *   step and the event) beside `apply_note_writes` of the same kind of change.
 *
 * Calls go in-process through the operations of the table (input schema, run, output schema), as the invocation
 * pipeline calls them; approving and executing are the proposals service's, as the workspace page calls it. Each
 * proposal changes two notes: it replaces an existing note of the vault and creates a new one, so every preview
 * diffs a real note. Sequential calls give latency; 8 callers at once give throughput.
 */
import { randomUUID } from 'node:crypto';
import { createServices, type Services } from '../src/app/services.ts';
import type { Actor } from '../src/kernel/principal.ts';
import type { AnyOperation, OperationContext } from '../src/surfaces/operations/operation.ts';
import { OPERATIONS } from '../src/surfaces/operations/table.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count, fixed } from './support/format.ts';
import { percentile } from './support/stats.ts';
import type { KgateEngine } from './search/kgate-engine.ts';
import { onBothEngines } from './support/both-engines.ts';

const ms = (value: number): string => `${fixed(value, 2)} ms`;

/** Calls before measuring, not kept. */
const WARMUP = 10;
/** Sequential calls measured per row. */
const SEQUENTIAL = 150;
/** Calls measured with CONCURRENCY callers at once. */
const CONCURRENT = 160;
const CONCURRENCY = 8;
/** Executions measured (each proposal approved first, outside the timing). */
const EXECUTIONS = 60;

interface Row {
  what: string;
  p50: number;
  p95: number;
  perSecond: number;
}

function operationOf(tool: string): AnyOperation {
  const operation = OPERATIONS.find((o) => o.mcp?.name === tool);
  if (!operation) throw new Error(`no operation publishes ${tool}`);
  return operation;
}

/** Runs `work(k)` for k in [0, n): sequentially (latencies) or by `callers` at once; answers the row's figures. */
async function timed(what: string, n: number, callers: number, work: (k: number) => Promise<unknown>): Promise<Row> {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let k = next++; k < n; k = next++) {
        const at = performance.now();
        await work(k);
        samples.push(performance.now() - at);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { what, p50: percentile(samples, 50), p95: percentile(samples, 95), perSecond: n / seconds };
}

async function measureEngine(engine: KgateEngine): Promise<Row[]> {
  const services: Services = createServices(engine.db);
  const actor: Actor = { accountId: engine.actor.accountId, credentialKind: 'personal_access_token', client: 'kgate-bench' };
  const person: Actor = { accountId: engine.actor.accountId, credentialKind: 'session', credentialId: randomUUID() };
  const principal = await services.tokens.principalFor(actor);
  const ctx: OperationContext = { principal, services: { ...services, links: { baseUrl: 'http://localhost:8787' }, runtimeCatalogue: { built: new Set(), modelConfigured: false } }, noteChanges: 'agent' };
  await services.vaults.setMcpNoteChanges(engine.actor.accountId, engine.mappingId, true);
  await engine.db.query('ANALYZE');
  const notes = await engine.db.query<{ path: string; content: string }>('SELECT path, content FROM notes ORDER BY path COLLATE "C"');
  const pick = (k: number) => notes[(k * 7919) % notes.length]!;
  const call = async (tool: string, args: Record<string, unknown>, withCommit = false) => {
    const operation = operationOf(tool);
    const input = operation.input.parse(args);
    if (!withCommit) return operation.output.parse(await operation.run(ctx, input));
    const outcome = await services.idempotency.run({ accountId: actor.accountId, key: randomUUID(), operation: operation.id, input }, async (commit) =>
      operation.output.parse(await operation.run({ ...ctx, commit }, input)),
    );
    return outcome;
  };
  // One change: an existing note replaced (its text with a line added) and a new note, unique per call k and phase.
  const change = (phase: string, k: number) => {
    const existing = pick(k);
    return [
      { path: existing.path, content: `${existing.content}\n- ${phase} ${k}\n` },
      { path: `Bench/${phase}/${k}.md`, content: `# ${phase} ${k}\n\nProposed by the benchmark.\n` },
    ];
  };
  const propose = (phase: string) => (k: number) => call('propose_action', { mappingId: engine.mappingId, title: `${phase} ${k}`, notes: change(phase, k) });
  const preview = (phase: string) => (k: number) => call('preview_note_writes', { mappingId: engine.mappingId, notes: change(phase, k) });

  for (let k = 0; k < WARMUP; k++) {
    await preview('warm')(k);
    await propose('warm')(k);
  }
  const rows = [
    await timed('preview_note_writes (baseline), one caller', SEQUENTIAL, 1, preview('p1')),
    await timed('propose_action, one caller', SEQUENTIAL, 1, propose('a1')),
    await timed(`preview_note_writes (baseline), ${CONCURRENCY} callers`, CONCURRENT, CONCURRENCY, preview('p8')),
    await timed(`propose_action, ${CONCURRENCY} callers`, CONCURRENT, CONCURRENCY, propose('a8')),
  ];
  // Executions: fresh notes only (no proposal may touch a note another one changed since its preview).
  const fresh = (phase: string, k: number) => [
    { path: `Bench/${phase}/exec-${k}.md`, content: `# ${k}\n` },
    { path: `Bench/${phase}/exec-${k}-b.md`, content: `# ${k} b\n` },
  ];
  const ids: string[] = [];
  for (let k = 0; k < EXECUTIONS; k++) {
    const answer = (await call('propose_action', { mappingId: engine.mappingId, title: `exec ${k}`, notes: fresh('x', k) })) as { proposal: { id: string } };
    await services.proposals.approve(person, engine.mappingId, answer.proposal.id);
    ids.push(answer.proposal.id);
  }
  rows.push(
    await timed('apply_note_writes (baseline), one caller', EXECUTIONS, 1, (k) => call('apply_note_writes', { mappingId: engine.mappingId, notes: fresh('y', k) }, true)),
    await timed('execute an approved proposal, one caller', EXECUTIONS, 1, async (k) => {
      const executed = await services.proposals.execute(person, engine.mappingId, ids[k]!);
      if (executed.state !== 'executed') throw new Error(`proposal ${ids[k]} ended ${executed.state}`);
    }),
  );
  return rows;
}

/** What the figures say, printed under them. */
const READING =
  "Reading: a proposal costs its preview (the baseline) plus one transaction that takes the vault's row lock " +
  "(it orders the vault's events and keeps the duplicate check and the pending count exact) and stores the " +
  "proposal with its diff, its first step and its event. The lock makes concurrent proposals of one vault " +
  "take turns, so 8 callers gain little over one; executing an approved proposal costs about what " +
  "apply_note_writes of the same change costs, plus the proposal's step and event.";

async function run(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const { results: measured, details, failures } = await onBothEngines('proposals', options, (engine) => measureEngine(engine));
  const results = measured.map((r) => ({ engine: r.engine, rows: r.value }));
  const whats = results[0]?.rows.map((r) => r.what) ?? [];
  const table = [
    `| Call (${count(options.notes)} notes; each change replaces one note and creates one) | ${results.map((r) => `${r.engine} p50 | ${r.engine} p95 | ${r.engine} per second`).join(' | ')} |`,
    `|---|${results.map(() => '---:|---:|---:').join('|')}|`,
    ...whats.map((what) => {
      const cells = results.map((r) => {
        const row = r.rows.find((x) => x.what === what)!;
        return `${ms(row.p50)} | ${ms(row.p95)} | ${fixed(row.perSecond, 1)}`;
      });
      return `| ${what} | ${cells.join(' | ')} |`;
    }),
  ];
  details.unshift(
    `In-process through the operations of the table (input schema, run, output schema). ${count(SEQUENTIAL)} sequential calls, then ` +
      `${count(CONCURRENT)} calls by ${CONCURRENCY} callers at once, after ${WARMUP} warm-up calls of each; "per second" is calls completed ` +
      `per second of the row. Executions: ${EXECUTIONS} proposals approved beforehand, executed one after another by a person's session, ` +
      'beside apply_note_writes of the same change under a fresh idempotency key.',
    '',
    READING,
  );
  return { table, details, failures };
}

/** See the module comment. */
export const proposalsBenchmark: Benchmark = { title: 'Proposals', run };
