import type { Database } from '../../db/port.ts';
import { systemClock, type Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { RuntimePrincipal } from '../runtime/index.ts';
import {
  ModelError,
  type IntelligenceMonth,
  type MeteredCaller,
  type MeteredRequest,
  type MeteredResult,
  type ModelIdentity,
  type ModelPort,
  type UsageReceipt,
} from './contract.ts';
import { costOf, monthOf } from './ledger/cost.ts';
import { meteredPort, type MeterRecord } from './ledger/meter.ts';
import type { LedgerEntry, LedgerRow, StoredError } from './ledger/rows.ts';
import { findLive, findRow, finish, markDispatched, monthSums, recentRows, reserve, staleRows } from './ledger/store.ts';

/** How long a reservation may wait for its first model call before expiry releases it. */
export const DEFAULT_DISPATCH_WINDOW_MS = 60_000;
/** How long after its latest model call a dispatched request may take to settle before expiry charges it. */
export const DEFAULT_SETTLE_WINDOW_MS = 10 * 60_000;
/** Most rows one expiry pass finishes (maintenance runs it again; a request's own pass looks at its organization). */
const EXPIRY_BATCH = 100;
/** Most rows `recent` answers. */
export const MAX_RECENT_ROWS = 200;

/** What expiry did. */
export interface ExpiryResult {
  /** Reserved rows never dispatched by their deadline: their reservation came back. */
  released: number;
  /** Dispatched rows never settled by their deadline (the process died mid-call): charged their reservation. */
  billableFailures: number;
}

/** Metered model calls against the intelligence ledger (docs/budgets.md). */
export interface ModelsService {
  /** Whether a model is configured; without one every metered operation answers `unavailable`. */
  readonly available: boolean;
  readonly identity: ModelIdentity | null;
  /**
   * Runs one metered request: replays a finished request of the same key, or reserves its bounded cost, runs
   * `work` with the metered model, and settles, releases or records a billable failure (spec 8 rule 4).
   */
  runMetered<T extends Record<string, unknown>>(request: MeteredRequest<T>): Promise<MeteredResult<T>>;
  /** Finishes running rows past their deadlines (all organizations, or one). */
  expire(now?: Date, organizationId?: string): Promise<ExpiryResult>;
  /** The organization's current month (UTC), with its budget as the caller read it from the organization's settings. */
  month(organizationId: string, budgetMicrodollars: number | undefined): Promise<IntelligenceMonth>;
  /** The organization's latest ledger rows, newest first, without stored results (at most MAX_RECENT_ROWS). */
  recent(organizationId: string, limit: number): Promise<LedgerEntry[]>;
}

/** What the models service runs with. */
export interface ModelsServiceOptions {
  db: Database;
  /** The configured model, or undefined when none is. */
  model: ModelPort | undefined;
  clock?: Clock;
  dispatchWindowMs?: number;
  settleWindowMs?: number;
}

/** The metered caller of an authenticated Product Runtime principal, from its server-held records. */
export function meteredCallerOf(principal: RuntimePrincipal): MeteredCaller {
  return {
    organizationId: principal.organization.id,
    installationId: principal.installationId,
    principalId: principal.principalId,
    budgetMicrodollars: principal.organization.settings.intelligenceBudgetMicrodollarsMonthly,
    sublimitMicrodollars: principal.intelligenceSublimitMicrodollars,
    maxConcurrent: principal.organization.settings.maxConcurrentIntelligence,
  };
}

/** Creates the models service: the metered runner over the ledger. */
export function createModelsService(options: ModelsServiceOptions): ModelsService {
  const { db, model } = options;
  const clock = options.clock ?? systemClock;
  const dispatchWindowMs = options.dispatchWindowMs ?? DEFAULT_DISPATCH_WINDOW_MS;
  const settleWindowMs = options.settleWindowMs ?? DEFAULT_SETTLE_WINDOW_MS;

  async function expire(now: Date = clock.now(), organizationId?: string): Promise<ExpiryResult> {
    const result: ExpiryResult = { released: 0, billableFailures: 0 };
    for (const stale of await staleRows(db, now, organizationId, EXPIRY_BATCH)) {
      if (stale.state === 'reserved') {
        if (await finish(db, stale.id, { kind: 'release' }, now, { states: ['reserved'], staleAt: now })) result.released += 1;
        continue;
      }
      const row = await findRow(db, stale.id);
      if (!row) continue;
      const finished = await finish(
        db,
        stale.id,
        {
          kind: 'billable',
          charge: row.reservedMicrodollars,
          excess: 0,
          usage: row.usage,
          usageUnknown: true,
          error: { code: 'model_timeout', message: 'The model request did not finish before its settle deadline.', accepted: 'unknown' },
          expired: true,
        },
        now,
        { states: ['dispatched'], staleAt: now },
      );
      if (finished) result.billableFailures += 1;
    }
    return result;
  }

  function replay<T extends Record<string, unknown>>(row: LedgerRow, request: MeteredRequest<T>): MeteredResult<T> {
    if (row.fingerprint !== request.fingerprint) {
      throw new KgateError('idempotency_key_reused', 'The idempotency key was already used with a different request.');
    }
    if (row.state === 'reserved' || row.state === 'dispatched' || !row.receipt) {
      throw new KgateError('idempotency_key_in_flight', 'A request with the same idempotency key is still running.');
    }
    const receipt: UsageReceipt = { ...row.receipt, replayed: true };
    request.onReceipt?.(receipt);
    if (row.state === 'settled' && row.result) return { data: row.result as T, receipt, replayed: true };
    const error = row.error ?? { code: 'model_interrupted', message: 'The request failed after the model accepted it.', accepted: 'unknown' };
    throw new ModelError(error.code as ModelError['code'], error.message, error.accepted, undefined, error.details);
  }

  async function execute<T extends Record<string, unknown>>(id: string, reserved: number, port: ModelPort, request: MeteredRequest<T>): Promise<MeteredResult<T>> {
    const { model: metered, record } = meteredPort(port, {
      signal: request.signal,
      dispatch: () => {
        const now = clock.now();
        return markDispatched(db, id, now, new Date(now.getTime() + settleWindowMs));
      },
    });
    let data: T;
    try {
      data = await request.work({ model: metered, signal: request.signal });
    } catch (error) {
      await failed(id, reserved, port, record, error, request);
      throw error;
    }
    const charge = chargeOf(record, reserved, port);
    const row = await finish(db, id, { kind: 'settle', ...charge, usage: record.usage, usageUnknown: record.usageUnknown, result: data }, clock.now());
    if (!row?.receipt) {
      // Expiry released the reservation (the work took longer than the dispatch window without calling the model).
      throw new KgateError('unavailable', 'The request took too long before calling the model; nothing was charged. Try again.');
    }
    request.onReceipt?.(row.receipt);
    return { data, receipt: row.receipt, replayed: false };
  }

  async function failed<T extends Record<string, unknown>>(id: string, reserved: number, port: ModelPort, record: MeterRecord, error: unknown, request: MeteredRequest<T>): Promise<void> {
    if (!record.accepted) {
      // Nothing reached the model or it refused before doing any work: the reservation comes back, the key is free.
      await finish(db, id, { kind: 'release' }, clock.now());
      return;
    }
    const charge = chargeOf(record, reserved, port);
    const stored = storedErrorOf(error);
    const row = (await finish(db, id, { kind: 'billable', ...charge, usage: record.usage, usageUnknown: record.usageUnknown, error: stored }, clock.now())) ?? (await findRow(db, id));
    if (row?.receipt) request.onReceipt?.(row.receipt);
  }

  return {
    available: model !== undefined,
    identity: model?.identity ?? null,
    expire,
    async runMetered<T extends Record<string, unknown>>(request: MeteredRequest<T>): Promise<MeteredResult<T>> {
      if (!model) throw new KgateError('unavailable', 'No model is configured for this service.');
      checkBound(request.bound);
      const { caller } = request;
      await expire(clock.now(), caller.organizationId);
      // A conflict means another request of the same key committed its row meanwhile: look again (a few times at most).
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const existing = await findLive(db, caller.principalId, request.key);
        if (existing) return replay(existing, request);
        if (!caller.budgetMicrodollars) {
          throw new KgateError('intelligence_budget_unset', "The organization's monthly intelligence budget is not set; metered intelligence fails closed.");
        }
        const now = clock.now();
        const id = newId(now.getTime());
        const reserved = costOf(request.bound, model.prices);
        const outcome = await reserve(db, {
          id,
          caller,
          key: request.key,
          fingerprint: request.fingerprint,
          kind: request.kind,
          month: monthOf(now),
          reservedMicrodollars: reserved,
          model: model.identity,
          requestId: request.requestId,
          now,
          dispatchDeadline: new Date(now.getTime() + dispatchWindowMs),
          budgetMicrodollars: caller.budgetMicrodollars,
        });
        if (outcome === 'reserved') return execute(id, reserved, model, request);
      }
      throw new KgateError('idempotency_key_in_flight', 'A request with the same idempotency key is still running.');
    },
    async month(organizationId: string, budgetMicrodollars: number | undefined): Promise<IntelligenceMonth> {
      const month = monthOf(clock.now());
      const sums = await monthSums(db, organizationId, month);
      return {
        month,
        budgetMicrodollars: budgetMicrodollars ?? null,
        reservedMicrodollars: sums.reserved,
        settledMicrodollars: sums.settled,
        billableFailureMicrodollars: sums.billableFailure,
        requests: sums.counts,
      };
    },
    async recent(organizationId: string, limit: number): Promise<LedgerEntry[]> {
      const rows = await recentRows(db, organizationId, Math.max(1, Math.min(MAX_RECENT_ROWS, Math.floor(limit))));
      return rows.map(entryOf);
    },
  };
}

/** What a request is charged: its actual cost, never more than its reservation (the excess is recorded). */
function chargeOf(record: MeterRecord, reserved: number, port: ModelPort): { charge: number; excess: number } {
  if (record.usageUnknown) return { charge: reserved, excess: 0 };
  const actual = costOf(record.usage, port.prices);
  return { charge: Math.min(actual, reserved), excess: Math.max(0, actual - reserved) };
}

function storedErrorOf(error: unknown): StoredError {
  if (error instanceof ModelError) return { code: error.code, message: error.message, accepted: error.accepted, ...(error.details ? { details: { ...error.details } } : {}) };
  if (error instanceof KgateError) return { code: error.code, message: error.message, accepted: 'unknown', ...(error.details ? { details: { ...error.details } } : {}) };
  return { code: 'model_interrupted', message: 'The request failed after the model accepted it.', accepted: 'unknown' };
}

function checkBound(bound: MeteredRequest<Record<string, unknown>>['bound']): void {
  for (const value of [bound.inputTokens, bound.outputTokens, bound.images]) {
    if (!Number.isSafeInteger(value) || value < 0) throw new TypeError('a cost bound is whole non-negative numbers');
  }
}

function entryOf(row: LedgerRow): LedgerEntry {
  return {
    id: row.id,
    installationId: row.installationId,
    principalId: row.principalId,
    kind: row.kind,
    month: row.month,
    state: row.state,
    reservedMicrodollars: row.reservedMicrodollars,
    chargedMicrodollars: row.chargedMicrodollars,
    excessMicrodollars: row.excessMicrodollars,
    usage: row.usage,
    usageUnknown: row.usageUnknown,
    model: row.model,
    errorCode: row.error?.code ?? null,
    requestId: row.requestId,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    expired: row.expiredAt !== null,
  };
}
