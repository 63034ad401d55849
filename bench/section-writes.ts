/**
 * Section-level writes (`npm run bench -- --only section-writes`): what targeting a heading, a block or a frontmatter
 * key costs against writing the whole note, on embedded PGlite and on server PostgreSQL, in the same run. An agent that
 * changes one section of a long note either sends the whole note (the baseline: `preview_note_writes` and
 * `apply_note_writes` of the whole new text) or only the section with a `target`; kgate then finds the section in the
 * current note under the lock and writes the whole note it makes.
 *
 * Calls go in-process through the operations of the table (input schema, run, output schema), as the invocation
 * pipeline calls them; applies run under a fresh idempotency key each, with the hash the previous apply answered.
 */
import type { Services } from '../src/app/services.ts';
import { createServices } from '../src/app/services.ts';
import type { Actor } from '../src/kernel/principal.ts';
import type { AnyOperation, OperationContext } from '../src/surfaces/operations/operation.ts';
import { OPERATIONS } from '../src/surfaces/operations/table.ts';
import { randomUUID } from 'node:crypto';
import type { KgateEngine } from './search/kgate-engine.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { onBothEngines } from './support/both-engines.ts';
import { count, fixed } from './support/format.ts';
import { percentile } from './support/stats.ts';

/** Sections of the long note; each about 1 KB. */
const SECTIONS = 200;
const WARMUP = 10;
const CALLS = 150;
const NOTE_PATH = 'Bench/Long note.md';

interface Row {
  what: string;
  p50: number;
  p95: number;
  sentBytes: number;
}

function operationOf(tool: string): AnyOperation {
  const operation = OPERATIONS.find((o) => o.mcp?.name === tool);
  if (!operation) throw new Error(`no operation publishes ${tool}`);
  return operation;
}

function section(k: number, version: number): string {
  const lines = Array.from({ length: 8 }, (_, line) => `Line ${line} of section ${k}, version ${version}: the offline sync protocol keeps its promises.`);
  return `${lines.join('\n')}\n`;
}

/** The long note: frontmatter, then SECTIONS headings each with a paragraph ending in a block id. */
function longNote(): string {
  const body = Array.from({ length: SECTIONS }, (_, k) => `## Section ${k}\n\n${section(k, 0)}Closing line ${k} ^block-${k}\n`).join('\n');
  return `---\ntitle: Long note\nstatus: draft\ntags: [bench, sections]\n---\n# Long note\n\n${body}`;
}

async function measureEngine(engine: KgateEngine): Promise<Row[]> {
  const services: Services = createServices(engine.db);
  const actor: Actor = { accountId: engine.actor.accountId, credentialKind: 'personal_access_token', client: 'kgate-bench' };
  const principal = await services.tokens.principalFor(actor);
  const ctx: OperationContext = { principal, services: { ...services, links: { baseUrl: 'http://localhost:8787' }, runtimeCatalogue: { built: new Set(), modelConfigured: false } }, noteChanges: 'agent' };
  await services.vaults.setMcpNoteChanges(engine.actor.accountId, engine.mappingId, true);
  const call = async (tool: string, args: Record<string, unknown>, withCommit = false): Promise<{ actions: Array<{ afterRevision: string | null; resultContent?: string }> }> => {
    const operation = operationOf(tool);
    const input = operation.input.parse(args);
    if (!withCommit) return operation.output.parse(await operation.run(ctx, input)) as never;
    const outcome = await services.idempotency.run({ accountId: actor.accountId, key: randomUUID(), operation: operation.id, input }, async (commit) =>
      operation.output.parse(await operation.run({ ...ctx, commit }, input)),
    );
    if (outcome.replayed) throw new Error('a fresh key replayed');
    return outcome.value as never;
  };
  // The note, and the text and hash the caller holds (it changes with every apply).
  let text = longNote();
  const created = await call('apply_note_writes', { mappingId: engine.mappingId, notes: [{ path: NOTE_PATH, content: text }] }, true);
  let hash = created.actions[0]!.afterRevision!;

  // What each kind of write sends for change k: the whole note, or a target and its content.
  const wholeWrite = (k: number) => {
    const at = k % SECTIONS;
    const next = text.replace(section(at, version(at)), section(at, version(at) + 1));
    return { next, entry: { path: NOTE_PATH, content: next } };
  };
  const versions = new Map<number, number>();
  const version = (at: number) => versions.get(at) ?? 0;
  const targeted = {
    heading: (k: number) => {
      const at = k % SECTIONS;
      return { path: NOTE_PATH, content: `\n${section(at, version(at) + 1)}Closing line ${at} ^block-${at}\n\n`, target: { type: 'heading', heading: `Section ${at}`, mode: 'replace' } };
    },
    block: (k: number) => ({ path: NOTE_PATH, content: `Closing line ${k % SECTIONS}, rewritten ${k}`, target: { type: 'block', blockId: `block-${k % SECTIONS}` } }),
    frontmatter: (k: number) => ({ path: NOTE_PATH, content: `review-${k}`, target: { type: 'frontmatter', key: 'status' } }),
  };
  const rows: Row[] = [];
  const time = async (what: string, work: (k: number) => Promise<number>) => {
    for (let k = 0; k < WARMUP; k++) await work(k);
    const samples: number[] = [];
    let sent = 0;
    for (let k = WARMUP; k < WARMUP + CALLS; k++) {
      const at = performance.now();
      sent += await work(k);
      samples.push(performance.now() - at);
    }
    rows.push({ what, p50: percentile(samples, 50), p95: percentile(samples, 95), sentBytes: sent / CALLS });
  };
  const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

  await time('preview, whole note (baseline)', async (k) => {
    const { entry } = wholeWrite(k);
    const notes = [{ ...entry, expectedHash: hash }];
    await call('preview_note_writes', { mappingId: engine.mappingId, notes });
    return bytesOf(notes);
  });
  await time('preview, heading section (replace)', async (k) => {
    const notes = [{ ...targeted.heading(k), expectedHash: hash }];
    await call('preview_note_writes', { mappingId: engine.mappingId, notes });
    return bytesOf(notes);
  });
  // Applies change the note: each answers the new hash, which the next apply names.
  const applyAndFollow = async (entry: Record<string, unknown>) => {
    const notes = [{ ...entry, expectedHash: hash }];
    const answer = await call('apply_note_writes', { mappingId: engine.mappingId, notes }, true);
    hash = answer.actions[0]!.afterRevision!;
    return bytesOf(notes);
  };
  await time('apply, whole note (baseline)', async (k) => {
    const { next, entry } = wholeWrite(k);
    const sent = await applyAndFollow(entry);
    versions.set(k % SECTIONS, version(k % SECTIONS) + 1);
    text = next;
    return sent;
  });
  await time('apply, heading section (replace)', async (k) => {
    const sent = await applyAndFollow(targeted.heading(k));
    versions.set(k % SECTIONS, version(k % SECTIONS) + 1);
    return sent;
  });
  await time('apply, block (^id)', (k) => applyAndFollow(targeted.block(k)));
  await time('apply, frontmatter key', (k) => applyAndFollow(targeted.frontmatter(k)));
  return rows;
}

async function run(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const small = { ...options, notes: Math.min(options.notes, 2_000) };
  const { results, details, failures } = await onBothEngines('section-writes', small, (engine) => measureEngine(engine));
  const whats = results[0]?.value.map((row) => row.what) ?? [];
  const noteBytes = Buffer.byteLength(longNote());
  const table = [
    `| Call (a note of ${count(noteBytes)} bytes, ${SECTIONS} sections) | Bytes sent | ${results.map((r) => `${r.engine} p50 | ${r.engine} p95`).join(' | ')} |`,
    `|---|---:|${results.map(() => '---:|---:').join('|')}|`,
    ...whats.map((what) => {
      const cells = results.map((r) => {
        const row = r.value.find((x) => x.what === what)!;
        return `${fixed(row.p50, 2)} ms | ${fixed(row.p95, 2)} ms`;
      });
      const sent = results[0]!.value.find((x) => x.what === what)!.sentBytes;
      return `| ${what} | ${count(Math.round(sent))} | ${cells.join(' | ')} |`;
    }),
  ];
  details.unshift(
    `In-process through the operations of the table, on a vault of ${count(small.notes)} synthetic notes plus the long note; ${WARMUP} warm-up calls, then ` +
      `${CALLS} sequential calls per row. "Bytes sent" is the JSON of the notes argument. Every apply names the hash the previous one answered.`,
    '',
    'Reading: a targeted write sends a section instead of the note, and kgate finds the section in the current note (one scan of the note ' +
      'under the lock) and diffs and stores the whole note as any write does; so a targeted apply costs about what a whole-note apply ' +
      'costs, while the caller sends a fraction of the bytes and cannot overwrite what it did not target.',
  );
  return { table, details, failures };
}

/** See the module comment. */
export const sectionWritesBenchmark: Benchmark = { title: 'Section writes', run };
