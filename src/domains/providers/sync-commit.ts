import type { Sql } from '../../db/port.ts';
import type { MirrorChange, MirrorMapping, MirrorOutcome } from '../notes/index.ts';
import { PROVIDER_BUDGETS } from './contract.ts';
import { LeaseLostError, type StepContext, type SyncDeps } from './sync-deps.ts';
import { renewLease } from './sync-store.ts';

// A lease outlives the step's wall-time budget by this margin, so that a live step never loses it; a crashed one
// frees the mapping for another process soon after.
const LEASE_MARGIN_MS = 60_000;

/** How long a step's lease lasts from each commit: its wall-time budget and a margin. */
export function leaseMs(deps: SyncDeps): number {
  return (deps.settings?.budget ?? PROVIDER_BUDGETS.syncStep).wallMs + LEASE_MARGIN_MS;
}

/** The lease's end if it were renewed now. */
export function leaseEnd(deps: SyncDeps): Date {
  return new Date(deps.clock.now().getTime() + leaseMs(deps));
}

/**
 * Runs one unit of a step's work (a page, a sweep batch, a cursor) in one database transaction that first renews
 * the lease and checks this step still holds it: a step whose lease another process took commits nothing. Then
 * counts the commit and tells `afterCommit`.
 */
export async function commitUnit<T>(ctx: StepContext, work: (tx: Sql) => Promise<T>): Promise<T> {
  const { deps, mapping, owner } = ctx;
  const result = await deps.db.transaction(async (tx) => {
    if (!(await renewLease(tx, mapping.id, owner, leaseEnd(deps)))) throw new LeaseLostError('Another process holds this mapping’s sync.');
    return work(tx);
  });
  ctx.counters.commits += 1;
  await deps.afterCommit?.({ mappingId: mapping.id, phase: ctx.progress.phase });
  return result;
}

/** The mapping as the notes mirror needs it. */
export function mirrorMappingOf(ctx: StepContext): MirrorMapping {
  const { mapping } = ctx;
  return { id: mapping.id, vaultId: mapping.vaultId, ownerAccountId: mapping.ownerAccountId, connectionId: mapping.connectionId, deviceEncrypted: mapping.deviceEncrypted };
}

const NOTHING: MirrorOutcome = { created: 0, updated: 0, removed: 0, unchanged: 0 };

/** Applies mirror changes in `tx`; count what it returns with countMirrored once the transaction committed. */
export async function applyToMirror(ctx: StepContext, tx: Sql, changes: readonly MirrorChange[]): Promise<MirrorOutcome> {
  return changes.length === 0 ? NOTHING : ctx.deps.mirror(tx, mirrorMappingOf(ctx), changes);
}

/** Counts committed mirror changes in the step's counters. */
export function countMirrored(ctx: StepContext, outcome: MirrorOutcome): void {
  ctx.counters.created += outcome.created;
  ctx.counters.updated += outcome.updated;
  ctx.counters.removed += outcome.removed;
}
