import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import type { Services } from '../../app/services.ts';
import { SESSION_TTL_MS, SIGN_IN_LOCKOUT_MS, SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS } from './index.ts';

describe('browser sign-in and sessions', () => {
  let db: Database;
  let services: Services;
  let now = new Date('2026-11-21T10:00:00Z');
  const clock: Clock = { now: () => now };
  const advance = (ms: number) => (now = new Date(now.getTime() + ms));
  const PASSWORD = 'correct horse battery';
  let counter = 0;
  // Each test signs in from its own client address (TEST-NET-2), so address counts do not carry between tests.
  let address = '';
  const signIn = (email: string, password: string, from = address) => services.sessions.signIn(email, password, from);

  beforeAll(async () => {
    ({ db, services } = await openDomainDatabase('sessions', clock));
  });
  afterAll(() => db.close());

  async function newAccount(label: string): Promise<{ email: string; accountId: string }> {
    counter += 1;
    address = `198.51.100.${counter}`;
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
  const sessionRows = async (accountId: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM web_sessions WHERE account_id = $1', [accountId]))[0]!.n;

  it('signs in with e-mail (any case) and password, storing only the hash of the session secret', async () => {
    const { email, accountId } = await newAccount('ok');
    const { token, session } = await signIn(`  ${email.toUpperCase()} `, PASSWORD);
    expect(token).toMatch(/^kgs_[A-Za-z0-9_-]{43}$/);
    expect(session).toMatchObject({ accountId, email, createdAt: now, expiresAt: new Date(now.getTime() + SESSION_TTL_MS) });
    const rows = await db.query('SELECT * FROM web_sessions WHERE account_id = $1', [accountId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(rows)).not.toContain(token.slice(4));
    expect(await services.sessions.resolve(token)).toEqual(session);
  });

  it('answers a wrong password and an unknown e-mail with the same error, and opens no session', async () => {
    const { email, accountId } = await newAccount('wrong');
    const wrongPassword = await failure(signIn(email, 'not the password'));
    const unknownEmail = await failure(signIn('nobody-here@example.test', PASSWORD));
    const noPasswordAccount = await services.accounts.ensureAccount({ email: 'nopassword@example.test', plan: 'free' });
    const noPassword = await failure(signIn('nopassword@example.test', ''));
    for (const error of [wrongPassword, unknownEmail, noPassword]) {
      expect(error).toMatchObject({ code: 'unauthenticated', message: 'The e-mail or password is wrong.' });
    }
    expect(await sessionRows(accountId)).toBe(0);
    expect(await sessionRows(noPasswordAccount.account.id)).toBe(0);
    expect(await failure(signIn('x'.repeat(300), PASSWORD))).toMatchObject({ code: 'unauthenticated' });
  });

  it('locks an account after five failures for fifteen minutes for the address that failed, without checking the password', async () => {
    const { email, accountId } = await newAccount('lock');
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i += 1) {
      expect(await failure(signIn(email, `wrong ${i}`))).toMatchObject({ code: 'unauthenticated' });
      advance(1000);
    }
    const locked = await failure(signIn(email, PASSWORD));
    expect(locked).toMatchObject({ code: 'rate_limited', details: { reason: 'sign_in_account_locked' } });
    const retryAfter = locked.details!.retryAfterSeconds as number;
    // The lock started at the fifth attempt, one second ago.
    expect(retryAfter).toBe(SIGN_IN_LOCKOUT_MS / 1000 - 1);
    // The account is locked, not other accounts.
    expect((await failure(signIn(`other-${email}`, PASSWORD))).code).toBe('unauthenticated');
    // Ten minutes on, the address that failed is still within its window: still locked, the password unchecked.
    advance(10 * 60_000);
    expect(await failure(signIn(email, PASSWORD))).toMatchObject({
      code: 'rate_limited',
      details: { reason: 'sign_in_account_locked', retryAfterSeconds: retryAfter - 600 },
    });
    advance(retryAfter * 1000 - 10 * 60_000);
    expect((await signIn(email, PASSWORD)).session.accountId).toBe(accountId);
    expect(await db.query('SELECT * FROM sign_in_failures WHERE email_key = $1', [email])).toEqual([]);
  });

  it('forgets failures after the window and after a success', async () => {
    const { email } = await newAccount('window');
    for (let i = 0; i < SIGN_IN_MAX_FAILURES - 1; i += 1) await failure(signIn(email, 'wrong'));
    advance(SIGN_IN_WINDOW_MS);
    for (let i = 0; i < SIGN_IN_MAX_FAILURES - 1; i += 1) await failure(signIn(email, 'wrong'));
    await signIn(email, PASSWORD);
    for (let i = 0; i < SIGN_IN_MAX_FAILURES - 1; i += 1) await failure(signIn(email, 'wrong'));
    expect((await signIn(email, PASSWORD)).token).toBeTruthy();
  });

  it('checks no more than five passwords of an address when guesses arrive at once', async () => {
    const { email } = await newAccount('burst');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => failure(signIn(email, `guess ${i}`))));
    const codes = results.map((r) => r.code);
    expect(codes.filter((code) => code === 'unauthenticated')).toHaveLength(SIGN_IN_MAX_FAILURES);
    expect(codes.filter((code) => code === 'rate_limited')).toHaveLength(12 - SIGN_IN_MAX_FAILURES);
    const [record] = await db.query<{ locked_until: Date | null }>('SELECT locked_until FROM sign_in_failures WHERE email_key = $1', [email]);
    expect(record!.locked_until).toEqual(new Date(now.getTime() + SIGN_IN_LOCKOUT_MS));
    // Locked: even the right password is not checked.
    expect((await failure(signIn(email, PASSWORD))).code).toBe('rate_limited');
  });

  it('a session ends after twelve hours, at sign-out, and when the account is suspended', async () => {
    const { email, accountId } = await newAccount('life');
    const first = await signIn(email, PASSWORD);
    advance(SESSION_TTL_MS - 1);
    expect(await services.sessions.resolve(first.token)).toBeDefined();
    advance(1);
    expect(await services.sessions.resolve(first.token)).toBeUndefined();

    const second = await signIn(email, PASSWORD);
    await services.sessions.signOut(second.token);
    expect(await services.sessions.resolve(second.token)).toBeUndefined();
    const [row] = await db.query<{ revoked_at: Date }>('SELECT revoked_at FROM web_sessions WHERE id = $1', [second.session.id]);
    expect(row!.revoked_at).toEqual(now);

    const third = await signIn(email, PASSWORD);
    await services.accounts.setStatus(accountId, 'suspended');
    expect(await services.sessions.resolve(third.token)).toBeUndefined();
    await services.accounts.setStatus(accountId, 'active');
    expect(await services.sessions.resolve(third.token)).toBeDefined();
  });

  it('a suspended account learns it is suspended only with the right password', async () => {
    const { email, accountId } = await newAccount('suspended');
    await services.accounts.setStatus(accountId, 'suspended');
    expect(await failure(signIn(email, 'wrong password'))).toMatchObject({ code: 'unauthenticated' });
    expect(await failure(signIn(email, PASSWORD))).toMatchObject({ code: 'account_inactive' });
    expect(await sessionRows(accountId)).toBe(0);
  });

  it('ignores malformed and unknown cookie values, and derives a CSRF token per session', async () => {
    const { email } = await newAccount('shape');
    const { token } = await signIn(email, PASSWORD);
    for (const value of ['', 'kgs_', `${token}x`, token.replace('kgs_', 'kgp_'), `kgs_${'A'.repeat(43)}`]) {
      expect(await services.sessions.resolve(value)).toBeUndefined();
    }
    await services.sessions.signOut('garbage');
    const csrf = services.sessions.csrfTokenOf(token);
    expect(csrf).toBe(services.sessions.csrfTokenOf(token));
    expect(csrf).not.toContain(token.slice(4));
    const other = await signIn(email, PASSWORD);
    expect(services.sessions.csrfTokenOf(other.token)).not.toBe(csrf);
  });

  it('purges ended sessions and finished attempt records', async () => {
    const { email } = await newAccount('purge');
    const { session } = await signIn(email, PASSWORD);
    await failure(signIn(email, 'wrong'));
    advance(SESSION_TTL_MS + 25 * 60 * 60_000);
    expect(await services.sessions.purgeExpired()).toBeGreaterThanOrEqual(2);
    expect(await db.query('SELECT 1 FROM web_sessions WHERE id = $1', [session.id])).toEqual([]);
    expect(await db.query('SELECT 1 FROM sign_in_failures WHERE email_key = $1', [email])).toEqual([]);
  });
});
