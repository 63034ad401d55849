import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { IdempotencyService, StoredOutcome } from '../../domains/idempotency/index.ts';
import { applies, type Operation, type OperationContext } from './operation.ts';

/** What running an operation produced: a fresh output, or a replay of a stored outcome. */
export type OperationOutcome = { replayed: false; output: unknown } | { replayed: true; outcome: StoredOutcome };

// Failures worth retrying with the same key: the claim is released instead of stored.
const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'monthly_limit_reached', 'unavailable', 'internal', 'idempotency_key_in_flight']);

/** JSON with object keys sorted, so that equal requests hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The fingerprint of a request: SHA-256 of the operation id and its validated input. */
export function requestFingerprint(operationId: string, input: unknown): string {
  return createHash('sha256').update(canonicalJson({ operationId, input })).digest('hex');
}

/**
 * Runs a validated operation. Applying writes require an idempotency key: the first request runs and its domain
 * transaction stores the result; an identical retry replays it; a failure is stored too (so a retry answers the
 * same), except failures worth retrying, which release the key.
 */
export async function runOperation<I extends z.ZodObject>(
  operation: Operation<I>,
  ctx: Omit<OperationContext, 'idempotency'>,
  input: z.output<I>,
  idempotency: { service: IdempotencyService; key: string | undefined },
): Promise<OperationOutcome> {
  if (!applies(operation, input)) return { replayed: false, output: await operation.run(ctx, input) };
  if (idempotency.key === undefined) {
    throw new KgateError('idempotency_key_required', 'Applying a change needs an Idempotency-Key header.');
  }
  const claim = {
    scope: `account:${ctx.principal.accountId}`,
    key: idempotency.key,
    operation: operation.id,
    fingerprint: requestFingerprint(operation.id, input),
  };
  const begun = await idempotency.service.begin(claim);
  if (begun.kind === 'replay') return { replayed: true, outcome: begun.outcome };
  try {
    return { replayed: false, output: await operation.run({ ...ctx, idempotency: claim }, input) };
  } catch (error) {
    if (error instanceof KgateError && !RETRYABLE.has(error.code)) {
      await idempotency.service.complete(claim, {
        kind: 'error',
        code: error.code,
        message: error.message,
        ...(error.details ? { details: { ...error.details } } : {}),
      });
    } else {
      await idempotency.service.release(claim);
    }
    throw error;
  }
}
