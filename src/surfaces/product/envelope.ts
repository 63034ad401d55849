import type { Context } from 'hono';
import { ERROR_CODES, type ErrorCode } from '../../kernel/error-codes.ts';
import type { KgateError } from '../../kernel/errors.ts';
import { RUNTIME_VERSION, type RuntimeReservation } from '../../domains/runtime/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';

/** The status of a V1 envelope (docs/runtime.md, "The V1 envelope"). */
export type EnvelopeStatus = 'ok' | 'partial' | 'unavailable' | 'error';

/** One problem of an envelope: a stable code, a message for people, and machine-readable details. */
export interface EnvelopeProblem {
  code: ErrorCode;
  message: string;
  details?: Readonly<Record<string, unknown>>;
}

/** A receipt of what a call consumed. */
export type Receipt = OperationReceipt | Readonly<Record<string, unknown>>;
/** The receipt of the organization's monthly operation a call reserved; every metered call's first receipt. */
export type OperationReceipt = { kind: 'service.product-runtime-operation'; requestId: string } & RuntimeReservation;

/** Every Product Runtime response but the token endpoint and the OpenAPI document. */
export interface EnvelopeV1 {
  version: typeof RUNTIME_VERSION;
  kind: string;
  status: EnvelopeStatus;
  data: unknown;
  receipts: Receipt[];
  problems: EnvelopeProblem[];
  requestId: string;
}

/** The header of the runtime contract's version (spec 9.4). */
export const RUNTIME_VERSION_HEADER = 'X-Service-Runtime-Version';

/** The data kind of a failed call. */
export const PROBLEM_KIND = 'service.problem';

/** The receipt of a metered call. */
export function operationReceipt(requestId: string, reservation: RuntimeReservation): OperationReceipt {
  return { kind: 'service.product-runtime-operation', requestId, ...reservation };
}

/** Answers an envelope with the HTTP status of its outcome; every answer names the contract version it speaks. */
export function sendEnvelope(c: Context<HttpEnv>, envelope: Omit<EnvelopeV1, 'version' | 'requestId'>, status = 200): Response {
  const body: EnvelopeV1 = { version: RUNTIME_VERSION, ...envelope, requestId: c.get('requestId') ?? '' };
  c.header(RUNTIME_VERSION_HEADER, String(RUNTIME_VERSION));
  c.header('Cache-Control', 'no-store');
  return c.body(JSON.stringify(body), status as 200, { 'Content-Type': 'application/json' });
}

/** Answers a failure as an envelope of status `error`, with the code's HTTP status and its Retry-After. */
export function sendProblem(c: Context<HttpEnv>, error: KgateError, receipts: Receipt[] = []): Response {
  const retryAfter = error.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
  if (error.code === 'unauthenticated' || error.code === 'principal_revoked') {
    c.header('WWW-Authenticate', `Bearer realm="kgate-product-runtime"${c.req.header('authorization') ? ', error="invalid_token"' : ''}`);
  }
  const problem: EnvelopeProblem = { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  return sendEnvelope(c, { kind: PROBLEM_KIND, status: 'error', data: null, receipts, problems: [problem] }, HTTP_STATUS[error.code]);
}

/** A problem of a known code, for `partial` and `unavailable` answers. */
export function problemOf(code: ErrorCode, message: string = ERROR_CODES[code], details?: Record<string, unknown>): EnvelopeProblem {
  return { code, message, ...(details ? { details } : {}) };
}
