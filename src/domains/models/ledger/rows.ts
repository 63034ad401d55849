import type { MeteredKind, ModelIdentity, ModelUsage, UsageReceipt } from '../contract.ts';

/** The states of a ledger row (docs/budgets.md has the transitions). */
export const LEDGER_STATES = ['reserved', 'dispatched', 'settled', 'billable_failure', 'released'] as const;
/** See LEDGER_STATES. */
export type LedgerState = (typeof LEDGER_STATES)[number];
/** States of a request still running: its reservation is held and it counts against the concurrency ceiling. */
export const RUNNING_STATES: readonly LedgerState[] = ['reserved', 'dispatched'];

/** The error of a billable failure, stored for replay (never a stack or provider body). */
export interface StoredError {
  code: string;
  message: string;
  accepted: 'no' | 'yes' | 'unknown';
  details?: Record<string, unknown>;
}

/** One ledger row as the domain reads it. */
export interface LedgerRow {
  id: string;
  organizationId: string;
  installationId: string;
  principalId: string;
  key: string;
  fingerprint: string;
  kind: MeteredKind;
  /** `YYYY-MM` (UTC) of the reservation. */
  month: string;
  state: LedgerState;
  reservedMicrodollars: number;
  chargedMicrodollars: number;
  excessMicrodollars: number;
  usage: ModelUsage;
  usageUnknown: boolean;
  model: ModelIdentity;
  result: Record<string, unknown> | null;
  error: StoredError | null;
  receipt: UsageReceipt | null;
  requestId: string;
  createdAt: Date;
  dispatchedAt: Date | null;
  finishedAt: Date | null;
  expiredAt: Date | null;
  dispatchDeadline: Date;
  settleDeadline: Date | null;
}

/** A ledger row without its stored result, error details or receipt: what an admin page lists. */
export interface LedgerEntry {
  id: string;
  installationId: string;
  principalId: string;
  kind: MeteredKind;
  month: string;
  state: LedgerState;
  reservedMicrodollars: number;
  chargedMicrodollars: number;
  excessMicrodollars: number;
  usage: ModelUsage;
  usageUnknown: boolean;
  model: ModelIdentity;
  /** The stable code of a billable failure, or null. */
  errorCode: string | null;
  requestId: string;
  createdAt: Date;
  finishedAt: Date | null;
  /** True when expiry finished the row (its process stopped mid-request). */
  expired: boolean;
}

/** The raw row of `intelligence_ledger`. */
export interface LedgerRecord {
  id: string;
  organization_id: string;
  installation_id: string;
  principal_id: string;
  idempotency_key: string;
  fingerprint: string;
  metered_kind: string;
  month: string;
  state: string;
  reserved_microdollars: number;
  charged_microdollars: number;
  excess_microdollars: number;
  input_tokens: number;
  output_tokens: number;
  images: number;
  usage_unknown: boolean;
  model: ModelIdentity;
  result: Record<string, unknown> | null;
  error: StoredError | null;
  receipt: UsageReceipt | null;
  request_id: string;
  created_at: Date;
  dispatched_at: Date | null;
  finished_at: Date | null;
  expired_at: Date | null;
  dispatch_deadline: Date;
  settle_deadline: Date | null;
  [column: string]: unknown;
}

/** The columns of LedgerRecord (month as `YYYY-MM`). */
export const LEDGER_COLUMNS = `id, organization_id, installation_id, principal_id, idempotency_key, fingerprint, metered_kind,
  to_char(month_start, 'YYYY-MM') AS month, state, reserved_microdollars, charged_microdollars, excess_microdollars,
  input_tokens, output_tokens, images, usage_unknown, model, result, error, receipt, request_id, created_at,
  dispatched_at, finished_at, expired_at, dispatch_deadline, settle_deadline`;

/** The same columns without the stored answer and receipt, and only the code of an error: for listings. */
export const LEDGER_SUMMARY_COLUMNS = `id, organization_id, installation_id, principal_id, idempotency_key, fingerprint, metered_kind,
  to_char(month_start, 'YYYY-MM') AS month, state, reserved_microdollars, charged_microdollars, excess_microdollars,
  input_tokens, output_tokens, images, usage_unknown, model, NULL::jsonb AS result, jsonb_build_object('code', error->>'code') AS error,
  NULL::jsonb AS receipt, request_id, created_at, dispatched_at, finished_at, expired_at, dispatch_deadline, settle_deadline`;

/** A LedgerRecord as the domain reads it. */
export function rowOf(record: LedgerRecord): LedgerRow {
  return {
    id: record.id,
    organizationId: record.organization_id,
    installationId: record.installation_id,
    principalId: record.principal_id,
    key: record.idempotency_key,
    fingerprint: record.fingerprint,
    kind: record.metered_kind as MeteredKind,
    month: record.month,
    state: record.state as LedgerState,
    reservedMicrodollars: record.reserved_microdollars,
    chargedMicrodollars: record.charged_microdollars,
    excessMicrodollars: record.excess_microdollars,
    usage: { inputTokens: record.input_tokens, outputTokens: record.output_tokens, images: record.images },
    usageUnknown: record.usage_unknown,
    model: record.model,
    result: record.result,
    error: record.error,
    receipt: record.receipt,
    requestId: record.request_id,
    createdAt: record.created_at,
    dispatchedAt: record.dispatched_at,
    finishedAt: record.finished_at,
    expiredAt: record.expired_at,
    dispatchDeadline: record.dispatch_deadline,
    settleDeadline: record.settle_deadline,
  };
}

/** The usage receipt of a finished (settled or billable) row. */
export function receiptOf(row: LedgerRow, outcome: UsageReceipt['outcome']): UsageReceipt {
  return {
    kind: 'service.product-intelligence-usage',
    requestId: row.requestId,
    ledgerId: row.id,
    meteredKind: row.kind,
    model: { provider: row.model.provider, chat: row.model.chatModel, image: row.model.imageModel },
    usage: { ...row.usage },
    reservedMicrodollars: row.reservedMicrodollars,
    costMicrodollars: row.chargedMicrodollars,
    outcome,
    month: row.month,
    replayed: false,
  };
}
