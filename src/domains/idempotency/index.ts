/** Idempotency: replay-safe applied changes keyed by (principal, Idempotency-Key). */
export { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS, IdempotencyKeySchema } from './contract.ts';
export type { BeginResult, GroupHooks, GroupRunner, IdempotencyClaim, IdempotentCommit, IdempotentOutcome, Settled, SharedMember, SharedWork, StoredOutcome } from './contract.ts';
export { requestFingerprint } from './fingerprint.ts';
export { claimOf, createIdempotencyService } from './service.ts';
export { runGroupOfOne } from './shared-commits.ts';
export type { IdempotencyService, IdempotentRequest } from './service.ts';
