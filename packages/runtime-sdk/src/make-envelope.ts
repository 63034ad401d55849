/**
 * Envelopes the SDK builds itself: every answer of the local adapter, and the hosted adapter's few answers that
 * the server did not give (an operation the server does not offer, a token endpoint refusal).
 */
import { randomUUID } from 'node:crypto';
import {
  RUNTIME_CONTRACT_VERSION,
  type ErrorEnvelope,
  type OkEnvelope,
  type PartialEnvelope,
  type RuntimeProblem,
  type UnavailableEnvelope,
} from './envelope.js';

/** A complete answer. */
export function okEnvelope<K extends string, D>(kind: K, data: D, requestId: string = randomUUID()): OkEnvelope<K, D> {
  return { version: RUNTIME_CONTRACT_VERSION, kind, status: 'ok', data, receipts: [], problems: [], requestId };
}

/** Data with the problems that kept it from being complete. */
export function partialEnvelope<K extends string, D>(kind: K, data: D, problems: RuntimeProblem[], requestId: string = randomUUID()): PartialEnvelope<K, D> {
  return { version: RUNTIME_CONTRACT_VERSION, kind, status: 'partial', data, receipts: [], problems, requestId };
}

/** A capability that is not available here, and why. */
export function unavailableEnvelope<K extends string>(kind: K, problem: RuntimeProblem, requestId: string = randomUUID()): UnavailableEnvelope<K> {
  return { version: RUNTIME_CONTRACT_VERSION, kind, status: 'unavailable', data: null, receipts: [], problems: [problem], requestId };
}

/** A failed call. */
export function errorEnvelope(problem: RuntimeProblem, httpStatus?: number, requestId: string = randomUUID()): ErrorEnvelope {
  return {
    version: RUNTIME_CONTRACT_VERSION,
    kind: 'service.problem',
    status: 'error',
    data: null,
    receipts: [],
    problems: [problem],
    requestId,
    ...(httpStatus !== undefined ? { httpStatus } : {}),
  };
}

/** A problem with details only when there are some. */
export function problem(code: string, message: string, details?: Record<string, unknown>): RuntimeProblem {
  return details ? { code, message, details } : { code, message };
}
