import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase, TEST_ENGINE } from '../../../test/support/database.ts';
import type { Database } from '../../db/port.ts';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS, type IdempotencyClaim } from './contract.ts';
import { claimKey, claimKeys, completeKey, keyId } from './store.ts';

describe('claiming idempotency keys', () => {
  let db: Database;
  const claim = (key: string, fingerprint = 'f1'): IdempotencyClaim => ({ scope: 'account:store-test', key, operation: 'test', fingerprint });
  const claimOne = (c: IdempotencyClaim) => claimKey(db, c, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS);
  const row = async (key: string) =>
    (await db.query<{ state: string; fingerprint: string; outcome: string | null }>('SELECT state, fingerprint, outcome FROM idempotency_keys WHERE key = $1', [key]))[0];

  beforeAll(async () => {
    db = (await openTestDatabase()).db;
  });
  afterAll(() => db.close());
  beforeEach(async () => {
    await db.exec('DELETE FROM idempotency_keys');
  });

  it('claims a new key once: a second claim of a key held in flight or completed is refused and changes nothing', async () => {
    expect(await claimOne(claim('k'))).toBe(true);
    expect(await claimOne(claim('k'))).toBe(false);
    expect(await claimOne(claim('k', 'f2'))).toBe(false);
    expect(await row('k')).toEqual({ state: 'in_flight', fingerprint: 'f1', outcome: null });
    await completeKey(db, 'account:store-test', 'k', { kind: 'result', value: 1 });
    expect(await claimOne(claim('k'))).toBe(false);
    expect(await row('k')).toEqual({ state: 'completed', fingerprint: 'f1', outcome: JSON.stringify({ kind: 'result', value: 1 }) });
  });

  it('takes over a key whose lease ran out for the same request only, and any key past its retention', async () => {
    expect(await claimOne(claim('lease'))).toBe(true);
    await db.query("UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE key = 'lease'");
    expect(await claimOne(claim('lease', 'other request'))).toBe(false);
    expect(await claimOne(claim('lease'))).toBe(true);
    expect(await claimOne(claim('lease'))).toBe(false);

    expect(await claimOne(claim('old'))).toBe(true);
    await completeKey(db, 'account:store-test', 'old', { kind: 'result', value: 1 });
    await db.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'old'");
    expect(await claimOne(claim('old', 'f2'))).toBe(true);
    expect(await row('old')).toEqual({ state: 'in_flight', fingerprint: 'f2', outcome: null });
  });

  it('claims several keys in one statement: the new and the takeable ones, not those held', async () => {
    expect(await claimOne(claim('held'))).toBe(true);
    expect(await claimOne(claim('expired'))).toBe(true);
    await db.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'expired'");
    const claims = [claim('expired'), claim('held'), claim('new-1'), claim('new-2')];
    const won = await claimKeys(db, claims, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS);
    expect([...won].sort()).toEqual(['expired', 'new-1', 'new-2'].map((key) => keyId('account:store-test', key)).sort());
    expect(await claimKeys(db, claims, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS)).toEqual(new Set());
  });

  // A claim that fails inside a transaction must leave the row free: the request that holds the key completes it
  // later, and must not wait for a transaction that only looked (see claimKeys). PGlite runs one transaction at a time.
  it.runIf(TEST_ENGINE === 'postgres')('leaves a key it does not claim unlocked for the rest of its transaction', async () => {
    expect(await claimOne(claim('busy'))).toBe(true);
    await db.transaction(async (sql) => {
      expect(await claimKeys(sql, [claim('busy'), claim('free')], IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS)).toEqual(new Set([keyId('account:store-test', 'free')]));
      // While this transaction stays open, another connection may lock the row of the key it did not claim.
      const other = await db.query<{ key: string }>("SELECT key FROM idempotency_keys WHERE key = 'busy' FOR UPDATE NOWAIT");
      expect(other).toEqual([{ key: 'busy' }]);
    });
  });
});
