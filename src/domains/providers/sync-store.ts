import type { Sql } from '../../db/port.ts';
import type { RemoteMapping } from './contract.ts';
import type { RemoteKind, RemoteRoot } from './port.ts';

/** Where a mapping's synchronization stands: a full listing under way, or following the change cursor. */
export type SyncPhase = 'listing' | 'incremental';

/** A mapping's sync status as its owner sees it. */
export type SyncStatus = 'pending' | 'running' | 'idle' | 'error' | 'rate_limited';

/** What a step resumes from (a row of remote_sync, its progress columns). */
export interface SyncProgress {
  phase: SyncPhase;
  /** The change cursor to continue from; null until taken (before a listing's first page). */
  changeCursor: string | null;
  /** The listing page to continue from; null: from the start; LISTING_COMPLETE: every page applied. */
  listPage: string | null;
  /** Counts full listings: files a listing did not mark with its generation are gone. */
  generation: number;
}

/** The whole sync state of a mapping, for its owner's page. */
export interface SyncState extends SyncProgress {
  status: SyncStatus;
  nextRunAt: Date;
  lastSuccessAt: Date | null;
  lastErrorCode: string | null;
  lastError: string | null;
  failures: number;
  notesSynced: number;
  /** Until when a process holds the mapping's sync; null when none does. */
  leaseUntil: Date | null;
  updatedAt: Date;
}

/** list_page once a listing's pages are all applied, and only the removal of what it did not see is left. */
export const LISTING_COMPLETE = 'kgate:listing-complete';

interface Row {
  phase: SyncPhase;
  change_cursor: string | null;
  list_page: string | null;
  generation: number;
  status: SyncStatus;
  next_run_at: Date;
  last_success_at: Date | null;
  last_error_code: string | null;
  last_error: string | null;
  failures: number;
  notes_synced: number;
  lease_until: Date | null;
  updated_at: Date;
  [key: string]: unknown;
}

function toState(row: Row): SyncState {
  return {
    phase: row.phase,
    changeCursor: row.change_cursor,
    listPage: row.list_page,
    generation: Number(row.generation),
    status: row.status,
    nextRunAt: row.next_run_at,
    lastSuccessAt: row.last_success_at,
    lastErrorCode: row.last_error_code,
    lastError: row.last_error,
    failures: row.failures,
    notesSynced: row.notes_synced,
    leaseUntil: row.lease_until,
    updatedAt: row.updated_at,
  };
}

/** Creates the mapping's sync row when it has none (due at once). The mapping service calls it at creation. */
export async function ensureSyncState(sql: Sql, mappingId: string): Promise<void> {
  await sql.query('INSERT INTO remote_sync (mapping_id) VALUES ($1) ON CONFLICT (mapping_id) DO NOTHING', [mappingId]);
}

/** The mapping's sync state; undefined when it has no row. */
export async function readSyncState(sql: Sql, mappingId: string): Promise<SyncState | undefined> {
  const rows = await sql.query<Row>('SELECT * FROM remote_sync WHERE mapping_id = $1', [mappingId]);
  return rows[0] && toState(rows[0]);
}

/**
 * Takes the mapping's lease when no process holds it (none, or expired: `lease_until < now`), in one statement, so
 * that across processes one step at a time runs; returns the state to resume from, with the mapping's device-held
 * encryption flag as it is now, or undefined when another process holds it.
 */
export async function takeLease(
  sql: Sql,
  mappingId: string,
  owner: string,
  now: Date,
  until: Date,
): Promise<(SyncState & { deviceEncrypted: boolean }) | undefined> {
  const rows = await sql.query<Row & { device_encrypted: boolean }>(
    `UPDATE remote_sync s SET lease_owner = $2, lease_until = $4, status = 'running', updated_at = now()
       FROM mappings m
      WHERE s.mapping_id = $1 AND m.id = s.mapping_id AND (s.lease_until IS NULL OR s.lease_until < $3)
      RETURNING s.*, m.device_encrypted`,
    [mappingId, owner, now, until],
  );
  const row = rows[0];
  return row && { ...toState(row), deviceEncrypted: row.device_encrypted };
}

/**
 * Renews the lease inside a step's transaction and checks that this step still holds it: false when another
 * process took it over (this step's lease expired), and then the transaction must not commit.
 */
export async function renewLease(sql: Sql, mappingId: string, owner: string, until: Date): Promise<boolean> {
  const rows = await sql.query('UPDATE remote_sync SET lease_until = $3, updated_at = now() WHERE mapping_id = $1 AND lease_owner = $2 RETURNING 1', [
    mappingId,
    owner,
    until,
  ]);
  return rows.length === 1;
}

/** Stores where the step got to (in the transaction that applied it). */
export async function saveProgress(sql: Sql, mappingId: string, progress: SyncProgress): Promise<void> {
  await sql.query(
    'UPDATE remote_sync SET phase = $2, change_cursor = $3, list_page = $4, generation = $5, updated_at = now() WHERE mapping_id = $1',
    [mappingId, progress.phase, progress.changeCursor, progress.listPage, progress.generation],
  );
}

/** How a step ended, as stored: the status, when to run next, and the error if any (never a token or a body). */
export type StepEnding =
  | { kind: 'caught_up'; nextRunAt: Date; notesSynced: number; at: Date }
  | { kind: 'more'; nextRunAt: Date }
  | { kind: 'failed'; status: 'error' | 'rate_limited'; nextRunAt: Date; code: string; message: string };

/** Ends the step: stores its ending and gives the lease back (only if this step still holds it). */
export async function endStep(sql: Sql, mappingId: string, owner: string, ending: StepEnding): Promise<void> {
  const release = 'lease_owner = NULL, lease_until = NULL, updated_at = now()';
  if (ending.kind === 'caught_up') {
    await sql.query(
      `UPDATE remote_sync SET status = 'idle', next_run_at = $3, failures = 0, last_success_at = $5, last_error_code = NULL,
              last_error = NULL, notes_synced = $4, ${release}
        WHERE mapping_id = $1 AND lease_owner = $2`,
      [mappingId, owner, ending.nextRunAt, ending.notesSynced, ending.at],
    );
  } else if (ending.kind === 'more') {
    await sql.query(`UPDATE remote_sync SET status = 'pending', next_run_at = $3, ${release} WHERE mapping_id = $1 AND lease_owner = $2`, [
      mappingId,
      owner,
      ending.nextRunAt,
    ]);
  } else {
    await sql.query(
      `UPDATE remote_sync SET status = $3, next_run_at = $4, failures = failures + 1, last_error_code = $5, last_error = $6, ${release}
        WHERE mapping_id = $1 AND lease_owner = $2`,
      [mappingId, owner, ending.status, ending.nextRunAt, ending.code, ending.message],
    );
  }
}

/** Marks the mapping due at once (the owner's "sync now"); a step under way is not disturbed. */
export async function markDue(sql: Sql, mappingId: string, now: Date): Promise<void> {
  await sql.query('UPDATE remote_sync SET next_run_at = $2 WHERE mapping_id = $1', [mappingId, now]);
}

/** Up to `limit` mappings due for a step, most overdue first: not leased, and behind an active connection. */
export async function findDue(sql: Sql, now: Date, limit: number): Promise<string[]> {
  const rows = await sql.query<{ mapping_id: string }>(
    `SELECT s.mapping_id FROM remote_sync s
       JOIN mappings m ON m.id = s.mapping_id
       JOIN provider_connections c ON c.id = m.provider_connection_id
      WHERE s.next_run_at <= $1 AND (s.lease_until IS NULL OR s.lease_until < $1) AND c.status = 'active'
      ORDER BY s.next_run_at LIMIT $2`,
    [now, limit],
  );
  return rows.map((row) => row.mapping_id);
}

/**
 * Turns device-held encryption on for a mapping (never off: that is the owner's decision, docs/providers.md);
 * true when it was off.
 */
export async function turnOnDeviceEncryption(sql: Sql, mappingId: string): Promise<boolean> {
  const rows = await sql.query('UPDATE mappings SET device_encrypted = true, updated_at = now() WHERE id = $1 AND NOT device_encrypted RETURNING 1', [
    mappingId,
  ]);
  return rows.length === 1;
}

/** How many notes the copy holds (synced remote files). */
export async function countSynced(sql: Sql, mappingId: string): Promise<number> {
  const rows = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM remote_files WHERE mapping_id = $1 AND state = 'synced'", [mappingId]);
  return rows[0]!.n;
}

function rootOf(provider: RemoteKind, config: unknown): RemoteRoot | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const root = config as RemoteRoot;
  return root.kind === provider ? root : undefined;
}

/** A remote mapping as the server holds it (undefined: none, hosted, or without a usable root). */
export async function loadRemoteMapping(sql: Sql, mappingId: string): Promise<RemoteMapping | undefined> {
  const rows = await sql.query<{
    id: string;
    workspace_id: string;
    owner_account_id: string;
    vault_id: string;
    provider: string;
    remote_config: unknown;
    provider_connection_id: string | null;
    device_encrypted: boolean;
  }>(
    `SELECT id, workspace_id, owner_account_id, vault_id, provider, remote_config, provider_connection_id, device_encrypted
       FROM mappings WHERE id = $1 AND provider <> 'hosted'`,
    [mappingId],
  );
  const row = rows[0];
  if (!row || row.provider_connection_id === null) return undefined;
  const provider = row.provider as RemoteKind;
  const root = rootOf(provider, row.remote_config);
  if (!root) return undefined;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    ownerAccountId: row.owner_account_id,
    vaultId: row.vault_id,
    provider,
    root,
    connectionId: row.provider_connection_id,
    deviceEncrypted: row.device_encrypted,
  };
}
