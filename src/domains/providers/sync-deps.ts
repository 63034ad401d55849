import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { NoteMirror } from '../notes/index.ts';
import type { MeteredProviderCall, ProviderBudget } from './call.ts';
import type { AdapterRegistry, CallFactory, RemoteMapping } from './contract.ts';
import type { ProviderAdapter, TraversalLimits } from './port.ts';
import type { SyncPhase, SyncProgress } from './sync-store.ts';

/** Settings of synchronization; each has a default from contract.ts or sync.ts. */
export interface SyncSettings {
  /** Wait after a step that caught up before the next (default 60 s). */
  pollIntervalMs?: number;
  /** Most files one mapping may hold (default MAX_REMOTE_FILES). */
  maxFiles?: number;
  /** Largest note copied (default MAX_REMOTE_NOTE_BYTES). */
  maxNoteBytes?: number;
  /** Bounds of each listing or change page (default TRAVERSAL_LIMITS). */
  limits?: TraversalLimits;
  /** What one step may spend at the provider (default PROVIDER_BUDGETS.syncStep). */
  budget?: ProviderBudget;
  /** For the jitter of backoffs (default Math.random). */
  random?: () => number;
}

/** What the sync engine needs: the database, the adapters and calls, the notes mirror, the clock. */
export interface SyncDeps {
  db: Database;
  adapters: AdapterRegistry;
  callFor: CallFactory;
  /** Writes the mapping's synchronized copy (notes domain, createNoteMirror). */
  mirror: NoteMirror;
  clock: Clock;
  settings?: SyncSettings;
  /** Told once a mapping's record changed (device-held encryption turned on): the authority cache forgets it. */
  onMappingChanged?: (mappingId: string) => void;
  /**
   * Told after each committed unit of work (a page, a sweep batch); what it throws ends the step as a crash would
   * (tests use it to stop a sync between pages).
   */
  afterCommit?: (info: { mappingId: string; phase: SyncPhase }) => void | Promise<void>;
}

/** What a step has done so far. */
export interface StepCounters {
  /** Transactions committed (pages, partial pages, sweeps, cursors). */
  commits: number;
  pages: number;
  downloads: number;
  created: number;
  updated: number;
  removed: number;
}

/** One step's working state: the mapping as it is now, its lease, its provider call, and where it stands. */
export interface StepContext {
  deps: SyncDeps;
  mapping: RemoteMapping;
  adapter: ProviderAdapter;
  call: MeteredProviderCall;
  /** This step's lease owner id. */
  owner: string;
  progress: SyncProgress;
  counters: StepCounters;
}

/** The step no longer holds its lease (it expired and another process took the mapping): it stops, storing nothing. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** The mapping holds more files than MAX_REMOTE_FILES: the page is not applied and the step fails. */
export class FileLimitError extends Error {
  override readonly name = 'FileLimitError';
}
