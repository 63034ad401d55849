import { requestFingerprint } from '../../domains/idempotency/index.ts';
import { meteredCallerOf, type MeteredRequest, type ModelsService } from '../../domains/models/index.ts';
import type { RuntimePrincipal } from '../../domains/runtime/index.ts';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import { KgateError } from '../../kernel/errors.ts';
import { RUNTIME_CREDENTIALS, type OperationContext, type RuntimeCallContext } from './operation.ts';

// What every metered (model-backed) Product Runtime operation does the same way before and around its model calls
// (docs/budgets.md): the models service, the chain, the idempotency key, and the request fields the runner needs.

/** Where the education endpoints live (spec 4.7). */
export const EDUCATION_PATH = '/api/product/v1/intelligence/education';

/** The codes every metered call can answer besides its input's (docs/budgets.md, docs/models.md). */
export const METERED_ERRORS = [
  'idempotency_key_required',
  'idempotency_key_reused',
  'idempotency_key_in_flight',
  'intelligence_budget_unset',
  'intelligence_budget_exhausted',
  'intelligence_concurrency_exhausted',
  'model_unavailable',
  'model_timeout',
  'model_interrupted',
  'model_output_invalid',
  'unavailable',
] as const satisfies readonly ErrorCode[];

/**
 * What every metered education operation declares alike: Product Runtime only, one counted operation, and the
 * `metered` key rule (its error codes are METERED_ERRORS, beside its input's own).
 */
export const METERED_EDUCATION_OPERATION = {
  tags: ['runtime', 'education'],
  credentials: RUNTIME_CREDENTIALS,
  scope: 'runtime',
  allowance: 'operation',
  idempotency: 'metered',
} as const;

/** A metered call's runner, chain and key, each checked. */
export interface MeteredCall {
  models: ModelsService;
  call: RuntimeCallContext & { principal: RuntimePrincipal };
  key: string;
}

/** The Product Runtime chain of a call; an operation served only there refuses any other surface. */
export function runtimeChainOf(ctx: OperationContext): RuntimeCallContext & { principal: RuntimePrincipal } {
  if (!ctx.runtime) throw new KgateError('forbidden', 'This operation is served only by the Product Runtime.');
  return ctx.runtime;
}

/**
 * The metered runner, the Product Runtime chain and the idempotency key of a metered call. Without a configured model
 * (or a gateway built without the models service) the capability is `unavailable`, before anything is reserved.
 */
export function meteredCallOf(ctx: OperationContext, capability: string): MeteredCall {
  const models = ctx.services.models;
  if (!models?.available) throw new KgateError('unavailable', 'No model is configured for this service.', { capability });
  const call = runtimeChainOf(ctx);
  const key = ctx.idempotencyKey;
  if (key === undefined) throw new KgateError('idempotency_key_required', 'A metered call needs an Idempotency-Key header.');
  return { models, call, key };
}

/**
 * The fields of a metered request that come from the call rather than the endpoint: who pays (server records only),
 * the key and the request's fingerprint (the same key with another request is refused), the request id, the client's
 * disconnect signal, and where receipts go (the envelope's, on failures too).
 */
export function meteredRequestOf(
  metered: MeteredCall,
  operationId: string,
  input: unknown,
): Pick<MeteredRequest<Record<string, unknown>>, 'caller' | 'key' | 'fingerprint' | 'requestId' | 'signal' | 'onReceipt'> {
  const { call, key } = metered;
  return {
    caller: meteredCallerOf(call.principal),
    key,
    fingerprint: requestFingerprint(operationId, input),
    requestId: call.requestId ?? '',
    signal: call.signal ?? new AbortController().signal,
    onReceipt: (receipt) => call.receipts?.push({ ...receipt }),
  };
}
