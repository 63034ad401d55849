import { KgateError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { PROVIDER_BUDGETS, TRAVERSAL_LIMITS, type RemoteMapping } from './contract.ts';
import { providerFailure } from './errors.ts';
import { ProviderError } from './port.ts';
import { countByState, findProblemFiles, markEncrypted, type RemoteFileStatus } from './remote-files-store.ts';
import { commitUnit, leaseEnd } from './sync-commit.ts';
import { FileLimitError, LeaseLostError, type StepContext, type StepCounters, type SyncDeps } from './sync-deps.ts';
import { DEVICE_ENCRYPTION_MARKER } from './sync-entries.ts';
import { applyPage } from './sync-page.ts';
import {
  LISTING_COMPLETE,
  countSynced,
  endStep,
  ensureSyncState,
  findDue,
  loadRemoteMapping,
  markDue,
  readSyncState,
  saveProgress,
  takeLease,
  type StepEnding,
  type SyncProgress,
  type SyncState,
  type SyncStatus,
} from './sync-store.ts';
import { finishListing, sweepOrphans, turnOnEncryption } from './sync-sweeps.ts';

/** Wait after a step that caught up, before the next poll of the provider (setting; docs/providers.md). */
export const DEFAULT_SYNC_POLL_MS = 60_000;
// Backoff after failed steps: 30 s doubled per consecutive failure up to an hour, half of it jittered, so that
// mappings failing together (a provider outage) do not come back in step.
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_CAP_MS = 60 * 60_000;
// A provider that asks for no wait still gets this much after a rate limit.
const MIN_RATE_LIMIT_WAIT_MS = 1_000;
// Full listings one step may start (the provider's relist, or a change the engine could not place), so that a
// provider that keeps asking for them cannot hold the step.
const MAX_RELISTS_PER_STEP = 2;

/** How one step ended. */
export interface SyncStepOutcome {
  /** False when another process held the mapping's sync (nothing was done). */
  ran: boolean;
  /** The status stored; 'running' when the lease was lost mid-step (the other process stores its own). */
  status: SyncStatus;
  /** True when the mapping's copy caught up with the provider. */
  caughtUp: boolean;
  counters: StepCounters;
  error?: { code: string; message: string };
}

/** A mapping's sync state with the files kept without a copy for a reason the owner can act on. */
export interface SyncReport extends SyncState {
  files: Partial<Record<RemoteFileStatus, number>>;
  /** Up to 50 duplicates, too large files and invalid paths. */
  problems: Array<{ path: string; state: RemoteFileStatus; size: number }>;
}

function backoffMs(failures: number, random: () => number): number {
  const full = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
  return Math.floor(full / 2 + random() * (full / 2));
}

function relistFrom(progress: SyncProgress, cursor: string | null): SyncProgress {
  return { phase: 'listing', changeCursor: cursor, listPage: null, generation: progress.generation + 1 };
}

/** Starts a new full listing (a new generation) from `cursor`; null takes a fresh cursor first. */
async function relist(ctx: StepContext, cursor: string | null): Promise<void> {
  const next = relistFrom(ctx.progress, cursor);
  await commitUnit(ctx, (tx) => saveProgress(tx, ctx.mapping.id, next));
  ctx.progress = next;
}

/**
 * Runs the mapping's sync from where it stands until it caught up (true) or may start no more listings (false).
 * Throws ProviderError when the provider fails or the budget ends, after committing what was done.
 */
async function run(ctx: StepContext): Promise<boolean> {
  const { adapter, call, mapping } = ctx;
  const limits = ctx.deps.settings?.limits ?? TRAVERSAL_LIMITS;
  let relists = 0;
  for (;;) {
    if (ctx.progress.phase === 'listing' || ctx.progress.changeCursor === null) {
      if (ctx.progress.changeCursor === null) {
        // The cursor is taken before the first page, so that what changes during the listing is applied after it.
        const cursor = await adapter.changeCursor(call, mapping.root);
        // Declared encryption is looked for before any note is read (docs/providers.md, "Device-held encryption").
        if (!ctx.mapping.deviceEncrypted && (await adapter.stat(call, mapping.root, DEVICE_ENCRYPTION_MARKER))) await turnOnEncryption(ctx);
        const next: SyncProgress = { ...ctx.progress, phase: 'listing', changeCursor: cursor, listPage: null };
        await commitUnit(ctx, (tx) => saveProgress(tx, mapping.id, next));
        ctx.progress = next;
      }
      while (ctx.progress.listPage !== LISTING_COMPLETE) {
        const page = await adapter.list(call, mapping.root, ctx.progress.listPage, limits);
        await applyPage(ctx, { changed: page.entries, removed: [] }, { ...ctx.progress, listPage: page.next ?? LISTING_COMPLETE });
      }
      await finishListing(ctx);
    }
    const page = await adapter.changes(call, mapping.root, ctx.progress.changeCursor!, limits);
    if (page.relist || (await applyPage(ctx, page, { ...ctx.progress, changeCursor: page.cursor })) === 'relist') {
      relists += 1;
      // The provider's relist continues from its cursor; the engine's own takes a fresh one, so that the change it
      // could not place is not met again after the listing.
      await relist(ctx, page.relist ? page.cursor : null);
      if (relists >= MAX_RELISTS_PER_STEP) return false;
      continue;
    }
    if (!page.more) return true;
  }
}

function failedEnding(deps: SyncDeps, failures: number, error: unknown): Extract<StepEnding, { kind: 'failed' }> {
  const now = deps.clock.now().getTime();
  const random = deps.settings?.random ?? Math.random;
  const nextRunAt = new Date(now + backoffMs(failures, random));
  if (error instanceof FileLimitError) return { kind: 'failed', status: 'error', nextRunAt, code: 'provider_limit_reached', message: error.message };
  // The connection's own refusals (disconnected, a provider no longer configured) come as stable errors already.
  if (error instanceof KgateError) return { kind: 'failed', status: 'error', nextRunAt, code: error.code, message: error.message };
  if (!(error instanceof ProviderError)) return { kind: 'failed', status: 'error', nextRunAt, code: 'internal', message: 'Synchronization failed unexpectedly; it is retried.' };
  // Stored under the stable codes callers of remote mappings meet (docs/errors.md); never a token or a body.
  const stable = providerFailure(error);
  if (error.code === 'rate_limited') {
    const wait = Math.max(MIN_RATE_LIMIT_WAIT_MS, error.details.retryAfterMs ?? backoffMs(failures, random));
    return { kind: 'failed', status: 'rate_limited', nextRunAt: new Date(now + wait), code: stable.code, message: stable.message };
  }
  return { kind: 'failed', status: 'error', nextRunAt, code: stable.code, message: stable.message };
}

/**
 * One sync step of a remote mapping: takes its lease (one process at a time), then lists or follows changes from
 * where the last step stopped, a page per transaction, until the copy caught up or the step's provider budget ended
 * (the next step resumes). Stores how it ended: idle and the next poll, pending and due at once when the budget
 * ended after progress, or the failure with exponential backoff and jitter (rate_limited: the provider's
 * Retry-After). Any other failure (neither the provider's nor a stable KgateError) is stored as `internal` and thrown.
 */
export async function syncStep(deps: SyncDeps, mapping: RemoteMapping): Promise<SyncStepOutcome> {
  const counters: StepCounters = { commits: 0, pages: 0, downloads: 0, created: 0, updated: 0, removed: 0 };
  const owner = newId();
  const leased = await takeLease(deps.db, mapping.id, owner, deps.clock.now(), leaseEnd(deps));
  if (!leased) return { ran: false, status: 'running', caughtUp: false, counters };
  const { deviceEncrypted, ...progress } = leased;
  let ending: StepEnding;
  let thrown: Error | undefined;
  try {
    const call = await deps.callFor(mapping, deps.settings?.budget ?? PROVIDER_BUDGETS.syncStep);
    const adapter = deps.adapters[mapping.provider];
    const ctx: StepContext = { deps, owner, counters, progress, adapter, call, mapping: { ...mapping, deviceEncrypted: mapping.deviceEncrypted || deviceEncrypted } };
    // A copy kept from before device-held encryption was known goes before anything else: its rows are marked
    // encrypted (they no longer account for a copy) and the sweep removes the notes. The owner turning encryption off
    // again: a full listing copies what was kept encrypted (a revision unchanged since does not bring it back alone).
    if (ctx.mapping.deviceEncrypted) {
      await commitUnit(ctx, (tx) => markEncrypted(tx, mapping.id));
      await sweepOrphans(ctx);
    } else if (ctx.progress.phase === 'incremental' && (await countByState(deps.db, mapping.id)).encrypted) {
      await relist(ctx, null);
    }
    const caughtUp = await run(ctx);
    const now = deps.clock.now();
    ending = caughtUp
      ? { kind: 'caught_up', at: now, notesSynced: await countSynced(deps.db, mapping.id), nextRunAt: new Date(now.getTime() + (deps.settings?.pollIntervalMs ?? DEFAULT_SYNC_POLL_MS)) }
      : { kind: 'more', nextRunAt: now };
  } catch (error) {
    if (error instanceof LeaseLostError) return { ran: true, status: 'running', caughtUp: false, counters };
    if (error instanceof ProviderError && error.code === 'budget_exhausted' && counters.commits > 0) ending = { kind: 'more', nextRunAt: deps.clock.now() };
    else {
      ending = failedEnding(deps, leased.failures + 1, error);
      if (!(error instanceof ProviderError) && !(error instanceof FileLimitError) && !(error instanceof KgateError)) thrown = error instanceof Error ? error : new Error(String(error));
    }
  }
  await endStep(deps.db, mapping.id, owner, ending);
  if (thrown !== undefined) throw thrown;
  const status: SyncStatus = ending.kind === 'caught_up' ? 'idle' : ending.kind === 'more' ? 'pending' : ending.status;
  return { ran: true, status, caughtUp: ending.kind === 'caught_up', counters, ...(ending.kind === 'failed' ? { error: { code: ending.code, message: ending.message } } : {}) };
}

/** Synchronization of remote mappings (docs/providers.md, "Synchronization"). */
export interface SyncService {
  /** Steps up to `limit` due mappings one after another (the maintenance loop); a step's internal failure is reported, not thrown. */
  runDueSyncs(options: { limit: number }): Promise<Array<{ mappingId: string; outcome?: SyncStepOutcome; error?: unknown }>>;
  /** Runs steps of one mapping now, until it caught up or failed, at most `maxSteps` (default 1); undefined: not a remote mapping. */
  syncNow(mappingId: string, options?: { maxSteps?: number }): Promise<SyncStepOutcome | undefined>;
  /** Makes the mapping due at once, for the maintenance loop to step (the owner's "Sync now"). */
  requestSync(mappingId: string): Promise<void>;
  /** The mapping's sync state and the files it keeps no copy of; undefined when it has none. */
  report(mappingId: string): Promise<SyncReport | undefined>;
}

/** Steps the due mappings (see SyncService.runDueSyncs). */
export async function runDueSyncs(deps: SyncDeps, options: { limit: number }): Promise<Array<{ mappingId: string; outcome?: SyncStepOutcome; error?: unknown }>> {
  const due = await findDue(deps.db, deps.clock.now(), options.limit);
  const results: Array<{ mappingId: string; outcome?: SyncStepOutcome; error?: unknown }> = [];
  for (const mappingId of due) {
    const mapping = await loadRemoteMapping(deps.db, mappingId);
    if (!mapping) continue;
    try {
      results.push({ mappingId, outcome: await syncStep(deps, mapping) });
    } catch (error) {
      results.push({ mappingId, error });
    }
  }
  return results;
}

/** Builds the sync service over its dependencies. */
export function createSyncService(deps: SyncDeps): SyncService {
  return {
    runDueSyncs: (options) => runDueSyncs(deps, options),
    async syncNow(mappingId, options = {}) {
      const mapping = await loadRemoteMapping(deps.db, mappingId);
      if (!mapping) return undefined;
      await ensureSyncState(deps.db, mappingId);
      let outcome: SyncStepOutcome | undefined;
      for (let step = 0; step < (options.maxSteps ?? 1); step += 1) {
        outcome = await syncStep(deps, mapping);
        if (outcome.caughtUp || outcome.status !== 'pending') break;
      }
      return outcome;
    },
    requestSync: (mappingId) => markDue(deps.db, mappingId, deps.clock.now()),
    async report(mappingId) {
      const state = await readSyncState(deps.db, mappingId);
      if (!state) return undefined;
      return { ...state, files: await countByState(deps.db, mappingId), problems: await findProblemFiles(deps.db, mappingId, 50) };
    },
  };
}
