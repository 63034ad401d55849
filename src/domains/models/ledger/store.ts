import type { Database, Sql } from '../../../db/port.ts';
import { KgateError } from '../../../kernel/errors.ts';
import type { MeteredCaller, MeteredKind, ModelIdentity, ModelUsage } from '../contract.ts';
import { monthStart } from './cost.ts';
import { LEDGER_COLUMNS, LEDGER_SUMMARY_COLUMNS, type LedgerRecord, type LedgerRow, type LedgerState, receiptOf, rowOf, type StoredError } from './rows.ts';

// Every change of a row and of the counters it holds happens in one transaction that takes its locks in the same
// order (the ledger row, then the organization's month, the installation's month, the running count), so that
// concurrent requests, settlements and expiry never deadlock and the counters always equal what the rows hold.

/** How long a refused caller waits before trying for a concurrency slot again (details.retryAfterSeconds). */
export const CONCURRENCY_RETRY_AFTER_SECONDS = 5;

/** The live (not released) row of a principal's key, if any. */
export async function findLive(sql: Sql, principalId: string, key: string): Promise<LedgerRow | undefined> {
  const rows = await sql.query<LedgerRecord>(
    `SELECT ${LEDGER_COLUMNS} FROM intelligence_ledger WHERE principal_id = $1 AND idempotency_key = $2 AND state <> 'released'`,
    [principalId, key],
  );
  return rows[0] ? rowOf(rows[0]) : undefined;
}

/** A row by id. */
export async function findRow(sql: Sql, id: string): Promise<LedgerRow | undefined> {
  const rows = await sql.query<LedgerRecord>(`SELECT ${LEDGER_COLUMNS} FROM intelligence_ledger WHERE id = $1`, [id]);
  return rows[0] ? rowOf(rows[0]) : undefined;
}

/** A new reservation. */
export interface NewReservation {
  id: string;
  caller: MeteredCaller;
  key: string;
  fingerprint: string;
  kind: MeteredKind;
  month: string;
  reservedMicrodollars: number;
  model: ModelIdentity;
  requestId: string;
  now: Date;
  dispatchDeadline: Date;
  /** The organization budget; the caller has refused undefined and 0 already. */
  budgetMicrodollars: number;
}

/**
 * Records the row and adds its reservation to the organization's and installation's month and to the running
 * count, in one transaction of conditional statements: each counter grows only while it stays within its ceiling,
 * and a refusal throws (intelligence_budget_exhausted, intelligence_concurrency_exhausted), which rolls everything
 * back. Answers `conflict` when a live row of the same key exists (the caller looks it up again); a concurrent
 * insert of the same key waits for the other transaction on the unique index.
 */
export async function reserve(db: Database, r: NewReservation): Promise<'reserved' | 'conflict'> {
  return db.transaction(async (tx) => {
    const inserted = await tx.query(
      `INSERT INTO intelligence_ledger (id, organization_id, installation_id, principal_id, idempotency_key, fingerprint,
         metered_kind, month_start, state, reserved_microdollars, model, request_id, created_at, dispatch_deadline)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::date, 'reserved', $9, $10::jsonb, $11, $12, $13)
       ON CONFLICT (principal_id, idempotency_key) WHERE state <> 'released' DO NOTHING
       RETURNING id`,
      [
        r.id,
        r.caller.organizationId,
        r.caller.installationId,
        r.caller.principalId,
        r.key,
        r.fingerprint,
        r.kind,
        monthStart(r.month),
        r.reservedMicrodollars,
        JSON.stringify(r.model),
        r.requestId,
        r.now,
        r.dispatchDeadline,
      ],
    );
    if (inserted.length === 0) return 'conflict';
    const start = monthStart(r.month);
    const organization = await tx.query(
      `INSERT INTO intelligence_organization_months AS m (organization_id, month_start, held_microdollars, ceiling_microdollars)
       SELECT $1, $2::date, $3::bigint, $4::bigint WHERE $3::bigint <= $4::bigint
       ON CONFLICT (organization_id, month_start) DO UPDATE
         SET held_microdollars = m.held_microdollars + EXCLUDED.held_microdollars, ceiling_microdollars = EXCLUDED.ceiling_microdollars
         WHERE m.held_microdollars + EXCLUDED.held_microdollars <= EXCLUDED.ceiling_microdollars
       RETURNING held_microdollars`,
      [r.caller.organizationId, start, r.reservedMicrodollars, r.budgetMicrodollars],
    );
    if (organization.length === 0) {
      const held = await heldOf(tx, 'intelligence_organization_months', 'organization_id', r.caller.organizationId, start);
      throw exhausted('organization', r.budgetMicrodollars, held, r.reservedMicrodollars);
    }
    const sublimit = r.caller.sublimitMicrodollars;
    const installation = await tx.query(
      `INSERT INTO intelligence_installation_months AS m (installation_id, month_start, held_microdollars, ceiling_microdollars)
       SELECT $1, $2::date, $3::bigint, $4::bigint WHERE $4::bigint IS NULL OR $3::bigint <= $4::bigint
       ON CONFLICT (installation_id, month_start) DO UPDATE
         SET held_microdollars = m.held_microdollars + EXCLUDED.held_microdollars, ceiling_microdollars = EXCLUDED.ceiling_microdollars
         WHERE EXCLUDED.ceiling_microdollars IS NULL OR m.held_microdollars + EXCLUDED.held_microdollars <= EXCLUDED.ceiling_microdollars
       RETURNING held_microdollars`,
      [r.caller.installationId, start, r.reservedMicrodollars, sublimit],
    );
    if (installation.length === 0) {
      const held = await heldOf(tx, 'intelligence_installation_months', 'installation_id', r.caller.installationId, start);
      throw exhausted('installation', sublimit ?? 0, held, r.reservedMicrodollars);
    }
    const ceiling = r.caller.maxConcurrent ?? null;
    const running = await tx.query(
      `INSERT INTO intelligence_running AS c (organization_id, running, ceiling)
       SELECT $1, 1, $2::integer WHERE $2::integer IS NULL OR $2::integer >= 1
       ON CONFLICT (organization_id) DO UPDATE SET running = c.running + 1, ceiling = EXCLUDED.ceiling
         WHERE EXCLUDED.ceiling IS NULL OR c.running + 1 <= EXCLUDED.ceiling
       RETURNING running`,
      [r.caller.organizationId, ceiling],
    );
    if (running.length === 0) {
      throw new KgateError(
        'intelligence_concurrency_exhausted',
        "The organization's maxConcurrentIntelligence model calls are already running.",
        { limit: ceiling, retryAfterSeconds: CONCURRENCY_RETRY_AFTER_SECONDS },
      );
    }
    return 'reserved';
  });
}

async function heldOf(tx: Sql, table: string, column: string, id: string, start: string): Promise<number> {
  const rows = await tx.query<{ held_microdollars: number }>(`SELECT held_microdollars FROM ${table} WHERE ${column} = $1 AND month_start = $2::date`, [id, start]);
  return rows[0]?.held_microdollars ?? 0;
}

function exhausted(ceiling: 'organization' | 'installation', limit: number, held: number, needed: number): KgateError {
  const scope = ceiling === 'organization' ? "the organization's monthly intelligence budget" : "the installation's monthly intelligence sublimit";
  return new KgateError('intelligence_budget_exhausted', `The request's bounded cost does not fit in what is left of ${scope}.`, {
    ceiling,
    limitMicrodollars: limit,
    availableMicrodollars: Math.max(0, limit - held),
    neededMicrodollars: needed,
  });
}

/**
 * Marks a running row dispatched, committed before the model request leaves, and moves its settle deadline. False
 * when the row is no longer running (expiry released it): then nothing may be sent.
 */
export async function markDispatched(sql: Sql, id: string, now: Date, settleDeadline: Date): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE intelligence_ledger SET state = 'dispatched', dispatched_at = coalesce(dispatched_at, $2), settle_deadline = $3
      WHERE id = $1 AND state IN ('reserved', 'dispatched') RETURNING id`,
    [id, now, settleDeadline],
  );
  return rows.length === 1;
}

/** How a running row ends. */
export type Finish =
  | { kind: 'release' }
  | { kind: 'settle'; charge: number; excess: number; usage: ModelUsage; usageUnknown: boolean; result: Record<string, unknown> }
  | { kind: 'billable'; charge: number; excess: number; usage: ModelUsage; usageUnknown: boolean; error: StoredError; expired?: boolean };

/** Conditions that must still hold when the row is locked (expiry's view of it may be stale). */
export interface FinishGuard {
  /** The row must be in one of these states. */
  states: readonly LedgerState[];
  /** The row's deadline for its state must be before this instant. */
  staleAt?: Date;
}

/**
 * Ends a row and gives back to the counters what it no longer holds: a release gives back its reservation, a
 * settlement or billable failure the reservation less the charge, and each frees its running slot. A settlement
 * may also end a row that expiry made a billable failure (the request finished after its settle deadline): it then
 * refunds the reservation less the actual charge. Answers the finished row, or undefined when the row was not in a
 * state the guard allows (finished already by someone else), having changed nothing.
 */
export async function finish(db: Database, id: string, how: Finish, now: Date, guard?: FinishGuard): Promise<LedgerRow | undefined> {
  return db.transaction(async (tx) => {
    const locked = await tx.query<LedgerRecord>(`SELECT ${LEDGER_COLUMNS} FROM intelligence_ledger WHERE id = $1 FOR UPDATE`, [id]);
    if (!locked[0]) return undefined;
    const row = rowOf(locked[0]);
    const running = row.state === 'reserved' || row.state === 'dispatched';
    const lateSettle = how.kind === 'settle' && row.state === 'billable_failure' && row.expiredAt !== null;
    if (!running && !lateSettle) return undefined;
    if (guard && !guard.states.includes(row.state)) return undefined;
    if (guard?.staleAt) {
      const deadline = row.state === 'reserved' ? row.dispatchDeadline : row.settleDeadline;
      if (!deadline || deadline >= guard.staleAt) return undefined;
    }
    // What the row holds now against what it will hold: running rows hold their reservation, finished ones their charge.
    const heldBefore = running ? row.reservedMicrodollars : row.chargedMicrodollars;
    const charge = how.kind === 'release' ? 0 : Math.min(how.charge, row.reservedMicrodollars);
    const state: LedgerState = how.kind === 'release' ? 'released' : how.kind === 'settle' ? 'settled' : 'billable_failure';
    const usage = how.kind === 'release' ? row.usage : how.usage;
    const finished: LedgerRow = {
      ...row,
      state,
      chargedMicrodollars: charge,
      excessMicrodollars: how.kind === 'release' ? 0 : how.excess,
      usage,
      usageUnknown: how.kind === 'release' ? false : how.usageUnknown,
      result: how.kind === 'settle' ? how.result : null,
      error: how.kind === 'billable' ? how.error : null,
      finishedAt: now,
      expiredAt: how.kind === 'billable' && how.expired ? now : lateSettle ? row.expiredAt : null,
    };
    finished.receipt = how.kind === 'release' ? null : receiptOf(finished, how.kind === 'settle' ? 'settled' : 'billable_failure');
    await tx.query(
      `UPDATE intelligence_ledger SET state = $2, charged_microdollars = $3, excess_microdollars = $4, input_tokens = $5,
         output_tokens = $6, images = $7, usage_unknown = $8, result = $9::jsonb, error = $10::jsonb, receipt = $11::jsonb,
         finished_at = $12, expired_at = $13
       WHERE id = $1`,
      [
        id,
        state,
        charge,
        finished.excessMicrodollars,
        usage.inputTokens,
        usage.outputTokens,
        usage.images,
        finished.usageUnknown,
        finished.result === null ? null : JSON.stringify(finished.result),
        finished.error === null ? null : JSON.stringify(finished.error),
        finished.receipt === null ? null : JSON.stringify(finished.receipt),
        now,
        finished.expiredAt,
      ],
    );
    const delta = charge - heldBefore;
    const start = monthStart(row.month);
    if (delta !== 0) {
      await tx.query(`UPDATE intelligence_organization_months SET held_microdollars = held_microdollars + $3 WHERE organization_id = $1 AND month_start = $2::date`, [
        row.organizationId,
        start,
        delta,
      ]);
      await tx.query(`UPDATE intelligence_installation_months SET held_microdollars = held_microdollars + $3 WHERE installation_id = $1 AND month_start = $2::date`, [
        row.installationId,
        start,
        delta,
      ]);
    }
    if (running) await tx.query(`UPDATE intelligence_running SET running = running - 1 WHERE organization_id = $1`, [row.organizationId]);
    return finished;
  });
}

/** Running rows past their deadline at `now`: reserved ones past dispatch, dispatched ones past settlement. */
export async function staleRows(sql: Sql, now: Date, organizationId: string | undefined, limit: number): Promise<Array<{ id: string; state: LedgerState }>> {
  return sql.query<{ id: string; state: LedgerState }>(
    `SELECT id, state FROM intelligence_ledger
      WHERE state IN ('reserved', 'dispatched') AND ($2::uuid IS NULL OR organization_id = $2::uuid)
        AND ((state = 'reserved' AND dispatch_deadline < $1) OR (state = 'dispatched' AND settle_deadline < $1))
      ORDER BY created_at LIMIT $3`,
    [now, organizationId ?? null, limit],
  );
}

/** Sums of an organization's month, by state. */
export interface MonthSums {
  reserved: number;
  settled: number;
  billableFailure: number;
  counts: { settled: number; billableFailures: number; released: number; running: number };
}

/** What an organization's rows of a month hold, by state. */
export async function monthSums(sql: Sql, organizationId: string, month: string): Promise<MonthSums> {
  const rows = await sql.query<{ state: LedgerState; n: number; reserved: string; charged: string }>(
    `SELECT state, count(*)::int AS n, sum(reserved_microdollars)::text AS reserved, sum(charged_microdollars)::text AS charged
       FROM intelligence_ledger WHERE organization_id = $1 AND month_start = $2::date GROUP BY state`,
    [organizationId, monthStart(month)],
  );
  const of = (state: LedgerState) => rows.find((row) => row.state === state);
  const running = [of('reserved'), of('dispatched')];
  return {
    reserved: running.reduce((sum, row) => sum + Number(row?.reserved ?? 0), 0),
    settled: Number(of('settled')?.charged ?? 0),
    billableFailure: Number(of('billable_failure')?.charged ?? 0),
    counts: {
      settled: of('settled')?.n ?? 0,
      billableFailures: of('billable_failure')?.n ?? 0,
      released: of('released')?.n ?? 0,
      running: running.reduce((sum, row) => sum + (row?.n ?? 0), 0),
    },
  };
}

/** The organization's latest rows, newest first, without stored results. */
export async function recentRows(sql: Sql, organizationId: string, limit: number): Promise<LedgerRow[]> {
  const rows = await sql.query<LedgerRecord>(
    `SELECT ${LEDGER_SUMMARY_COLUMNS}
       FROM intelligence_ledger WHERE organization_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [organizationId, limit],
  );
  return rows.map(rowOf);
}
