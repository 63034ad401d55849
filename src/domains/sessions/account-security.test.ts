import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import {
  SESSION_TTL_MS,
  SIGN_IN_ADDRESS_LOCKOUT_MS,
  SIGN_IN_ADDRESS_MAX_FAILURES,
  SIGN_IN_CLEAN_ADDRESS_LOCK_MS,
  SIGN_IN_LOCKOUT_MS,
  SIGN_IN_MAX_FAILURES,
} from './index.ts';

describe('sign-in throttles per address and per account, password change and session management', () => {
  let db: Database;
  let services: Services;
  let now = new Date('2026-11-22T10:00:00Z');
  const clock: Clock = { now: () => now };
  const advance = (ms: number) => (now = new Date(now.getTime() + ms));
  const PASSWORD = 'correct horse battery';
  const NEW_PASSWORD = 'a brand new passphrase';
  let counter = 0;
  // Distinct addresses per test: TEST-NET-3 with the test's counter in the third octet.
  const addressOf = (n: number) => `203.0.${counter}.${n}`;

  beforeAll(async () => {
    ({ db, services } = await openDomainDatabase('account-security', clock));
  });
  afterAll(() => db.close());

  async function newAccount(label: string): Promise<{ email: string; accountId: string }> {
    counter += 1;
    const email = `${label}-${counter}@example.test`;
    const { account } = await services.accounts.ensureAccount({ email, plan: 'developer', password: PASSWORD });
    return { email, accountId: account.id };
  }

  type Outcome = { code: string; message?: string; details?: Record<string, unknown> };
  const failure = (promise: Promise<unknown>): Promise<Outcome> =>
    promise.then(
      () => ({ code: 'resolved' }),
      (error: Outcome) => error,
    );
  const lockAccount = async (email: string, from: string) => {
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i += 1) {
      expect((await failure(services.sessions.signIn(email, `guess ${i}`, from))).code).toBe('unauthenticated');
    }
  };
  const accountRow = async (accountId: string) =>
    (await db.query<{ password_hash: string; password_changed_at: Date | null; updated_at: Date }>(
      'SELECT password_hash, password_changed_at, updated_at FROM accounts WHERE id = $1',
      [accountId],
    ))[0]!;
  const sessionRows = async (accountId: string) =>
    db.query<{ id: string; revoked_at: Date | null }>('SELECT id, revoked_at FROM web_sessions WHERE account_id = $1 ORDER BY id', [accountId]);

  it('keeps the owner out for a minute at most when a stranger locked the account from another address', async () => {
    const { email, accountId } = await newAccount('owner');
    const stranger = addressOf(1);
    const owner = addressOf(2);
    await lockAccount(email, stranger);
    advance(1000);
    // The stranger's address failed: the full lock, password unchecked.
    expect(await failure(services.sessions.signIn(email, PASSWORD, stranger))).toMatchObject({
      code: 'rate_limited',
      details: { reason: 'sign_in_account_locked', retryAfterSeconds: SIGN_IN_LOCKOUT_MS / 1000 - 1 },
    });
    // The owner's address has not failed: refused only for the rest of the first minute.
    const refused = await failure(services.sessions.signIn(email, PASSWORD, owner));
    expect(refused).toMatchObject({ code: 'rate_limited', details: { reason: 'sign_in_account_locked' } });
    expect(refused.details!.retryAfterSeconds).toBe(SIGN_IN_CLEAN_ADDRESS_LOCK_MS / 1000 - 1);
    expect(await sessionRows(accountId)).toEqual([]);
    // Being refused did not make the owner's address one that failed.
    const [ownerRecord] = await db.query<{ failures: number }>('SELECT failures FROM sign_in_address_failures WHERE address_key = $1', [owner]);
    expect(ownerRecord!.failures).toBe(0);
    advance(SIGN_IN_CLEAN_ADDRESS_LOCK_MS);
    expect((await services.sessions.signIn(email, PASSWORD, owner)).session.accountId).toBe(accountId);
    // The right password cleared the account's failures.
    expect(await db.query('SELECT 1 FROM sign_in_failures WHERE email_key = $1', [email])).toEqual([]);
  });

  it('while an account is locked, gives addresses that have not failed one check a minute between them', async () => {
    const { email } = await newAccount('distributed');
    await lockAccount(email, addressOf(1));
    advance(SIGN_IN_CLEAN_ADDRESS_LOCK_MS);
    // A fresh address gets one check, and renews the short lock at once.
    const results = await Promise.all([2, 3, 4].map((n) => failure(services.sessions.signIn(email, 'another guess', addressOf(n)))));
    expect(results.map((r) => r.code).sort()).toEqual(['rate_limited', 'rate_limited', 'unauthenticated']);
    advance(SIGN_IN_CLEAN_ADDRESS_LOCK_MS - 1000);
    expect((await failure(services.sessions.signIn(email, PASSWORD, addressOf(5)))).code).toBe('rate_limited');
    advance(1000);
    // The address whose guess was checked has failed now: the full lock applies to it.
    const checked = [2, 3, 4].find((_, i) => results[i]!.code === 'unauthenticated')!;
    const again = await failure(services.sessions.signIn(email, PASSWORD, addressOf(checked)));
    expect(again.details!.retryAfterSeconds).toBeGreaterThan(SIGN_IN_CLEAN_ADDRESS_LOCK_MS / 1000);
    expect((await services.sessions.signIn(email, PASSWORD, addressOf(5))).token).toBeTruthy();
  });

  it('locks an address that failed twenty times, across accounts, and a success does not wipe its count', async () => {
    const guesser = addressOf(9);
    const target = await newAccount('guessed');
    for (let i = 0; i < SIGN_IN_ADDRESS_MAX_FAILURES - 1; i += 1) {
      expect((await failure(services.sessions.signIn(`nobody-${i}-${counter}@example.test`, 'guess', guesser))).code).toBe('unauthenticated');
    }
    // A right password from the address is not a failure, and does not forget the others.
    const mine = await newAccount('guesser-own');
    expect((await services.sessions.signIn(mine.email, PASSWORD, guesser)).token).toBeTruthy();
    expect((await failure(services.sessions.signIn(`nobody-last-${counter}@example.test`, 'guess', guesser))).code).toBe('unauthenticated');
    const locked = await failure(services.sessions.signIn(target.email, PASSWORD, guesser));
    expect(locked).toMatchObject({
      code: 'rate_limited',
      message: 'Too many failed sign-ins from your network address; try again later.',
      details: { reason: 'sign_in_address_locked', retryAfterSeconds: SIGN_IN_ADDRESS_LOCKOUT_MS / 1000 },
    });
    // Nothing was counted against the account, and no session opened.
    expect(await db.query('SELECT 1 FROM sign_in_failures WHERE email_key = $1', [target.email])).toEqual([]);
    expect(await sessionRows(target.accountId)).toEqual([]);
    // Another address is not affected.
    expect((await services.sessions.signIn(target.email, PASSWORD, addressOf(10))).token).toBeTruthy();
    advance(SIGN_IN_ADDRESS_LOCKOUT_MS);
    expect((await services.sessions.signIn(target.email, PASSWORD, guesser)).token).toBeTruthy();
  });

  it('checks no more than twenty passwords from one address when guesses at many accounts arrive at once', async () => {
    const guesser = addressOf(11);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => failure(services.sessions.signIn(`burst-${i}-${counter}@example.test`, 'guess', guesser))),
    );
    const codes = results.map((r) => r.code);
    expect(codes.filter((code) => code === 'unauthenticated')).toHaveLength(SIGN_IN_ADDRESS_MAX_FAILURES);
    expect(codes.filter((code) => code === 'rate_limited')).toHaveLength(30 - SIGN_IN_ADDRESS_MAX_FAILURES);
    advance(SIGN_IN_ADDRESS_LOCKOUT_MS);
  });

  it('changes the password with the current one, ends every other session at once and keeps this one', async () => {
    const { email, accountId } = await newAccount('change');
    const here = await services.sessions.signIn(email, PASSWORD, addressOf(1));
    const other = await services.sessions.signIn(email, PASSWORD, addressOf(2));
    const third = await services.sessions.signIn(email, PASSWORD, addressOf(3));
    const before = await accountRow(accountId);
    expect(before.password_changed_at).toBeNull();
    const { endedSessions } = await services.sessions.changePassword({
      session: here.session,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      clientAddress: addressOf(1),
    });
    expect(endedSessions).toBe(2);
    expect(await services.sessions.resolve(here.token)).toEqual(here.session);
    expect(await services.sessions.resolve(other.token)).toBeUndefined();
    expect(await services.sessions.resolve(third.token)).toBeUndefined();
    const after = await accountRow(accountId);
    expect(after.password_hash).not.toBe(before.password_hash);
    expect(after.password_changed_at).toEqual(now);
    expect((await failure(services.sessions.signIn(email, PASSWORD, addressOf(4)))).code).toBe('unauthenticated');
    expect((await services.sessions.signIn(email, NEW_PASSWORD, addressOf(4))).token).toBeTruthy();
  });

  it('a wrong current password, a short new one or a throttled attempt changes nothing', async () => {
    const { email, accountId } = await newAccount('unchanged');
    const here = await services.sessions.signIn(email, PASSWORD, addressOf(1));
    await services.sessions.signIn(email, PASSWORD, addressOf(2));
    const before = { account: await accountRow(accountId), sessions: await sessionRows(accountId) };
    const change = (currentPassword: string, newPassword = NEW_PASSWORD) =>
      failure(services.sessions.changePassword({ session: here.session, currentPassword, newPassword, clientAddress: addressOf(1) }));

    expect(await change('not the password')).toMatchObject({
      code: 'forbidden',
      details: { field: 'current_password', reason: 'wrong_current_password' },
    });
    expect(await change(PASSWORD, 'short')).toMatchObject({
      code: 'invalid_request',
      details: { field: 'new_password', reason: 'password_too_short' },
    });
    // A wrong current password counts as a failed sign-in: after five, the form is throttled like sign-in.
    for (let i = 1; i < SIGN_IN_MAX_FAILURES; i += 1) expect((await change(`wrong ${i}`)).code).toBe('forbidden');
    expect(await change(PASSWORD)).toMatchObject({ code: 'rate_limited', details: { reason: 'sign_in_account_locked' } });

    expect(await accountRow(accountId)).toEqual(before.account);
    expect(await sessionRows(accountId)).toEqual(before.sessions);
    expect(before.sessions.every((row) => row.revoked_at === null)).toBe(true);
    advance(SIGN_IN_LOCKOUT_MS);
  });

  it('lists live sessions without secrets, ends one of the account and no other account, and signs out everywhere', async () => {
    const { email, accountId } = await newAccount('list');
    const stranger = await newAccount('list-other');
    const strangerSession = await services.sessions.signIn(stranger.email, PASSWORD, addressOf(1));
    const first = await services.sessions.signIn(email, PASSWORD, addressOf(1));
    advance(60_000);
    const second = await services.sessions.signIn(email, PASSWORD, addressOf(1));
    const ended = await services.sessions.signIn(email, PASSWORD, addressOf(1));
    await services.sessions.signOut(ended.token);

    const listed = await services.sessions.listSessions(accountId);
    expect(listed.truncated).toBe(false);
    expect(listed.sessions.map((s) => s.id)).toEqual([second.session.id, first.session.id]);
    expect(listed.sessions[0]).toEqual({
      id: second.session.id,
      createdAt: second.session.createdAt,
      expiresAt: new Date(second.session.createdAt.getTime() + SESSION_TTL_MS),
      lastSeenAt: second.session.createdAt,
    });
    expect(JSON.stringify(listed)).not.toContain(first.token.slice(4));

    // Another account's session, a malformed id and an ended session: refused alike, nothing changes.
    for (const id of [strangerSession.session.id, 'not-a-uuid', ended.session.id]) {
      expect(await services.sessions.endSession(accountId, id)).toBe(false);
    }
    expect(await services.sessions.resolve(strangerSession.token)).toBeDefined();

    expect(await services.sessions.endSession(accountId, first.session.id)).toBe(true);
    expect(await services.sessions.resolve(first.token)).toBeUndefined();
    expect(await services.sessions.resolve(second.token)).toBeDefined();

    const third = await services.sessions.signIn(email, PASSWORD, addressOf(1));
    expect(await services.sessions.signOutEverywhere(accountId)).toBe(2);
    expect(await services.sessions.resolve(second.token)).toBeUndefined();
    expect(await services.sessions.resolve(third.token)).toBeUndefined();
    expect((await services.sessions.listSessions(accountId)).sessions).toEqual([]);
    expect(await services.sessions.resolve(strangerSession.token)).toBeDefined();
  });

  it('purges address records whose window and lock are over', async () => {
    const address = addressOf(1);
    await failure(services.sessions.signIn(`purge-${counter}@example.test`, 'guess', address));
    advance(SESSION_TTL_MS + 25 * 60 * 60_000);
    await services.sessions.purgeExpired();
    expect(await db.query('SELECT 1 FROM sign_in_address_failures WHERE address_key = $1', [address])).toEqual([]);
  });
});
