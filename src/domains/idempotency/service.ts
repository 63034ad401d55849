import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_RETENTION_MS,
  type BeginResult,
  type IdempotencyClaim,
  type IdempotentCommit,
  type IdempotentOutcome,
  type SharedWork,
  type StoredOutcome,
} from './contract.ts';
import { requestFingerprint } from './fingerprint.ts';
import { isRetryable, storedError } from './outcomes.ts';
import { createSharedCommits } from './shared-commits.ts';
import * as store from './store.ts';

/** What identifies one request for idempotency: who sends it, its key, the operation and its validated input. */
export interface IdempotentRequest {
  accountId: string;
  /**
   * Whose keys these are when not the account's own: a product's service principal acts for a customer account, and
   * its keys are its own, so that two products of one customer (or the customer's scripts) never collide.
   */
  principalScope?: string;
  key: string;
  operation: string;
  input: unknown;
}

/**
 * Idempotency for applied changes (IETF draft "The Idempotency-Key HTTP Header Field"): the first request with a
 * key runs; a retry with the same key and the same request gets the stored outcome; the same key with a different
 * request is rejected with `idempotency_key_reused`; while the first still runs, others get
 * `idempotency_key_in_flight`.
 */
export interface IdempotencyService {
  /**
   * Runs `work` at most once for a request, and is the one place where a key is claimed and completed: the key is
   * claimed first; `work` runs inside a database transaction, and its value is stored under the key in that same
   * transaction, so a change and its replayable answer commit together. A failure rolls the change back and is
   * stored too (a retry answers the same), except failures worth retrying, which release the key. A retry of a
   * finished request gets its stored outcome and runs nothing.
   */
  run<T>(request: IdempotentRequest, work: (commit: IdempotentCommit) => Promise<T>): Promise<IdempotentOutcome<T>>;
  /**
   * `run` with a stage before the transaction: once the key is claimed, `stage` runs outside any database
   * transaction (a provider write over HTTP must not hold one open: on PGlite it would stall every other query),
   * then `work` runs in the transaction with what the stage returned, and the outcome is stored with it. A stage
   * failure is stored or releases the key exactly as a failure of `work` would.
   */
  runStaged<S, T>(
    request: IdempotentRequest,
    stage: (claim: { scope: string; key: string }) => Promise<S>,
    work: (commit: IdempotentCommit, staged: S) => Promise<T>,
  ): Promise<IdempotentOutcome<T>>;
  /**
   * `run` for work that may share its transaction with concurrent work of its lane (group commit, see SharedWork):
   * the work waits for its group, whose transaction claims the key, runs the work and stores its outcome. A key held
   * or finished by another request goes the way of `run` (in flight, reused, replay). Outcomes are stored and
   * answered exactly as `run` would.
   */
  runShared<P, R, T>(request: IdempotentRequest, work: SharedWork<P, R, T>): Promise<IdempotentOutcome<T>>;
  /** Claims a key (lower level than `run`, for tests of the claim rules). */
  begin(claim: IdempotencyClaim): Promise<BeginResult>;
  purgeExpired(): Promise<number>;
}

/** The claim of a request: keys are scoped to the account (or to the service principal acting for it), so two never share one. */
export function claimOf(request: IdempotentRequest): IdempotencyClaim {
  return {
    scope: request.principalScope ?? `account:${request.accountId}`,
    key: request.key,
    operation: request.operation,
    fingerprint: requestFingerprint(request.operation, request.input),
  };
}

/** Builds the idempotency service. */
export function createIdempotencyService(db: Database): IdempotencyService {
  const inFlight = () =>
    new KgateError('idempotency_key_in_flight', 'A request with this idempotency key is still running.', { retryAfterSeconds: 1 });

  async function begin(claim: IdempotencyClaim): Promise<BeginResult> {
    if (await store.claimKey(db, claim, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS)) return { kind: 'run' };
    const row = await store.findKey(db, claim.scope, claim.key);
    // Gone between the two statements (purged or released): claim again once.
    if (!row) {
      if (await store.claimKey(db, claim, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS)) return { kind: 'run' };
      throw inFlight();
    }
    if (row.operation !== claim.operation || row.fingerprint !== claim.fingerprint) {
      throw new KgateError(
        'idempotency_key_reused',
        'This idempotency key was already used with a different request; use a new key for a new request.',
      );
    }
    if (row.state === 'completed' && row.outcome) return { kind: 'replay', outcome: JSON.parse(row.outcome) as StoredOutcome };
    throw inFlight();
  }

  const runAlone = async <T>(claim: IdempotencyClaim, work: (commit: IdempotentCommit) => Promise<T>, stage?: () => Promise<unknown>): Promise<T> => {
    try {
      const staged = stage ? await stage() : undefined;
      return await db.transaction(async (sql) => {
        const result = await work({ sql, key: claim.key, scope: claim.scope, staged });
        await store.completeKey(sql, claim.scope, claim.key, { kind: 'result', value: result });
        return result;
      });
    } catch (error) {
      if (error instanceof KgateError && !isRetryable(error)) {
        await store.completeKey(db, claim.scope, claim.key, storedError(error));
      } else {
        await store.releaseKey(db, claim.scope, claim.key);
      }
      throw error;
    }
  };
  const shared = createSharedCommits(db, { begin, runAlone });

  return {
    begin,
    async run(request, work) {
      const claim = claimOf(request);
      const begun = await begin(claim);
      if (begun.kind === 'replay') return { replayed: true, outcome: begun.outcome };
      return { replayed: false, value: await runAlone(claim, work) };
    },
    async runStaged(request, stage, work) {
      const claim = claimOf(request);
      const begun = await begin(claim);
      if (begun.kind === 'replay') return { replayed: true, outcome: begun.outcome };
      // The stage's value travels on the commit; `work` gets it back typed as its stage returned it.
      return {
        replayed: false,
        value: await runAlone(claim, (commit) => work(commit, commit.staged as Awaited<ReturnType<typeof stage>>), () => stage({ scope: claim.scope, key: claim.key })),
      };
    },
    runShared: (request, work) => shared.submit(claimOf(request), work),
    purgeExpired: () => store.purgeExpired(db),
  };
}
