/**
 * The cost of compilation per applied change: the same governed applies (idempotency key, current hashes, one
 * database transaction each, as a client's apply) through kgate's notes service, which compiles knowledge in every
 * applied change, and through the same service not told of changes, on the same database. Two vaults of the same
 * generated notes, one per service; one sequential client; blocks of each alternate, so that both meet the same
 * state of the machine. Each apply adds a follow-up task to its notes, so each recompiles a note with records.
 */
import { randomUUID } from 'node:crypto';
import type { NotesService, NoteAction } from '../../src/domains/notes/index.ts';
import { contentHash } from '../../src/kernel/hashing.ts';
import { count } from '../support/format.ts';
import { benchOwner, importAll, type BenchOwner, type Workbench } from './workbench.ts';

/** The workloads: notes per transaction. */
export const APPLY_WORKLOADS = [
  { key: 'apply1', notesPerApply: 1, block: 50 },
  { key: 'apply10', notesPerApply: 10, block: 10 },
] as const;
/** Notes in each vault. */
export const APPLY_VAULT_NOTES = 1000;
/** Blocks of each workload and variant measured; the first of each is a warm-up, not counted. */
const ROUNDS = 7;

/** With or without compilation. */
export type Variant = 'compiled' | 'not compiled';

/** The measured applies of one workload and variant: milliseconds each. */
export interface ApplySamples {
  workload: (typeof APPLY_WORKLOADS)[number]['key'];
  notesPerApply: number;
  variant: Variant;
  ms: number[];
}

/** The applies on one engine. */
export interface ApplyCostResult {
  engine: Workbench['engine'];
  samples: ApplySamples[];
  failures: string[];
}

/** A vault and the service that writes it, with the current content of its notes. */
interface Side {
  variant: Variant;
  notes: NotesService;
  owner: BenchOwner;
  contents: Map<string, string>;
  paths: string[];
  next: number;
  edits: number;
}

async function side(bench: Workbench, variant: Variant, files: ReadonlyArray<{ path: string; content: string }>, failures: string[]): Promise<Side> {
  const notes = variant === 'compiled' ? bench.services.notes : bench.unobserved;
  const owner = await benchOwner(bench.services, `knowledge-apply-${variant === 'compiled' ? 'on' : 'off'}`);
  const created = await importAll(notes, owner, files);
  if (created !== files.length) failures.push(`${bench.engine} ${variant}: imported ${count(created)} notes, expected ${count(files.length)}`);
  return { variant, notes, owner, contents: new Map(files.map((f) => [f.path, f.content])), paths: files.map((f) => f.path), next: 0, edits: 0 };
}

/** One governed apply that adds a follow-up task to the side's next notes; returns its milliseconds. */
async function applyOnce(bench: Workbench, s: Side, notesPerApply: number, failures: string[]): Promise<number> {
  const actions: NoteAction[] = [];
  for (let k = 0; k < notesPerApply; k++) {
    const path = s.paths[s.next++ % s.paths.length]!;
    const before = s.contents.get(path)!;
    s.edits += 1;
    const content = `${before}- [ ] Follow up ${s.edits} [owner:: [[Avery Lee]]] 📅 2027-01-15 ^follow-${s.edits}\n`;
    s.contents.set(path, content);
    actions.push({ type: 'write-note', path, content, expectedHash: contentHash(before) });
  }
  const request = { accountId: s.owner.actor.accountId, key: randomUUID(), operation: 'benchApply', input: actions };
  const started = performance.now();
  const outcome = await bench.services.idempotency.run(request, (commit) =>
    s.notes.runTransaction({ actor: s.owner.actor, mappingId: s.owner.mappingId, dryRun: false, actions, capability: 'direct', commit }),
  );
  const ms = performance.now() - started;
  if (outcome.replayed || outcome.value.actions.some((a) => a.status !== 'update')) failures.push(`${bench.engine} ${s.variant}: an apply did not update its notes`);
  return ms;
}

/** Records compiled in a vault: the check that one side compiles and the other does not. */
async function recordsOf(bench: Workbench, vaultId: string): Promise<number> {
  const [row] = await bench.db.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_records WHERE vault_id = $1', [vaultId]);
  return row?.n ?? 0;
}

/** Measures both workloads, compiled and not, on one engine over `files` (each side gets its own vault of them). */
export async function measureApplyCost(bench: Workbench, files: ReadonlyArray<{ path: string; content: string }>, log: (line: string) => void): Promise<ApplyCostResult> {
  const failures: string[] = [];
  const on = await side(bench, 'compiled', files, failures);
  const off = await side(bench, 'not compiled', files, failures);
  const recordsBefore = await recordsOf(bench, on.owner.vaultId);
  const samples: ApplySamples[] = [];
  for (const workload of APPLY_WORKLOADS) {
    const of = (variant: Variant): ApplySamples => {
      const found = samples.find((x) => x.workload === workload.key && x.variant === variant);
      if (found) return found;
      const made: ApplySamples = { workload: workload.key, notesPerApply: workload.notesPerApply, variant, ms: [] };
      samples.push(made);
      return made;
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, so that neither always follows the other's writes.
      for (const s of round % 2 === 0 ? [on, off] : [off, on]) {
        const ms: number[] = [];
        for (let k = 0; k < workload.block; k++) ms.push(await applyOnce(bench, s, workload.notesPerApply, failures));
        if (round > 0) of(s.variant).ms.push(...ms);
      }
    }
    for (const variant of ['compiled', 'not compiled'] as const) {
      const { ms } = of(variant);
      log(`  ${bench.engine}: ${workload.key} ${variant}: ${count(ms.length)} applies, mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(2)} ms`);
    }
  }
  // Every edit added one commitment on the compiled side, and none was compiled on the other.
  const added = (await recordsOf(bench, on.owner.vaultId)) - recordsBefore;
  if (added !== on.edits) failures.push(`${bench.engine}: the compiled side gained ${count(added)} records for ${count(on.edits)} added tasks`);
  const stray = await recordsOf(bench, off.owner.vaultId);
  if (stray !== 0) failures.push(`${bench.engine}: the side without compilation has ${count(stray)} records`);
  return { engine: bench.engine, samples, failures };
}
