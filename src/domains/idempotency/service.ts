import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_RETENTION_MS,
  type BeginResult,
  type IdempotencyClaim,
  type StoredOutcome,
} from './contract.ts';
import * as store from './store.ts';

/**
 * Idempotency for applied changes (IETF draft "The Idempotency-Key HTTP Header Field"): the first request with a
 * key runs; a retry with the same key and the same request gets the stored outcome; the same key with a different
 * request is rejected with `idempotency_key_reused`; while the first still runs, others get
 * `idempotency_key_in_flight`.
 */
export interface IdempotencyService {
  begin(claim: IdempotencyClaim): Promise<BeginResult>;
  /** Stores the outcome; pass the apply transaction so that the change and its answer commit together. */
  complete(claim: IdempotencyClaim, outcome: StoredOutcome, sql?: Sql): Promise<void>;
  /** Forgets a claim whose request failed in a way worth retrying (server error, rate limit). */
  release(claim: IdempotencyClaim): Promise<void>;
  purgeExpired(): Promise<number>;
}

/** Builds the idempotency service. */
export function createIdempotencyService(db: Database): IdempotencyService {
  return {
    async begin(claim) {
      if (await store.claimKey(db, claim, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS)) return { kind: 'run' };
      const row = await store.findKey(db, claim.scope, claim.key);
      // Gone between the two statements (purged or released): claim again once.
      if (!row) {
        if (await store.claimKey(db, claim, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS)) return { kind: 'run' };
        throw new KgateError('idempotency_key_in_flight', 'A request with this idempotency key is still running.', {
          retryAfterSeconds: 1,
        });
      }
      if (row.operation !== claim.operation || row.fingerprint !== claim.fingerprint) {
        throw new KgateError(
          'idempotency_key_reused',
          'This idempotency key was already used with a different request; use a new key for a new request.',
        );
      }
      if (row.state === 'completed' && row.outcome) return { kind: 'replay', outcome: JSON.parse(row.outcome) as StoredOutcome };
      throw new KgateError('idempotency_key_in_flight', 'A request with this idempotency key is still running.', {
        retryAfterSeconds: 1,
      });
    },
    complete: (claim, outcome, sql = db) => store.completeKey(sql, claim.scope, claim.key, outcome),
    release: (claim) => store.releaseKey(db, claim.scope, claim.key),
    purgeExpired: () => store.purgeExpired(db),
  };
}
