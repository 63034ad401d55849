/** Idempotency: replay-safe applied changes keyed by (principal, Idempotency-Key). */
export { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS, IdempotencyKeySchema } from './contract.ts';
export type { BeginResult, IdempotencyClaim, StoredOutcome } from './contract.ts';
export { createIdempotencyService } from './service.ts';
export type { IdempotencyService } from './service.ts';
