import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/kernel/hashing.ts';
import type { Clock } from '../src/kernel/clock.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

/**
 * The account page over HTTP: password change, active sessions, sign-out everywhere, and the sign-in throttles per
 * client address and per account. The gateway trusts one proxy, so each test speaks from its own X-Forwarded-For
 * address; a movable clock stands in for waiting.
 */
describe('the account page: password, sessions and sign-in throttles', () => {
  let gateway: TestGateway;
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
  const PASSWORD = 'a long enough password';
  const NEW_PASSWORD = 'another long passphrase';
  let addressCounter = 0;
  const newAddress = () => `198.51.100.${(addressCounter += 1)}`;

  beforeAll(async () => {
    gateway = await startTestGateway({ clock, env: { KGATE_TRUST_PROXY: '1' } });
  });
  afterAll(() => gateway.stop());

  /** A page browser whose every request comes through our proxy from `address`. */
  function browserAt(address: string): PageBrowser {
    const inner = pageBrowser(gateway.url);
    const via = (headers: Record<string, string> = {}) => ({ ...headers, 'x-forwarded-for': address });
    return { cookies: inner.cookies, get: (path, headers) => inner.get(path, via(headers)), post: (path, fields, headers) => inner.post(path, fields, via(headers)) };
  }

  async function newOwner(label: string) {
    const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    return { ...owner, email };
  }

  async function signedIn(email: string, address = newAddress()): Promise<PageBrowser> {
    const browser = browserAt(address);
    expect((await signInThroughForm(browser, email, PASSWORD)).status).toBe(303);
    return browser;
  }

  const csrfOf = async (browser: PageBrowser) => hiddenField(await (await browser.get('/account')).text(), 'csrf');
  const sessionRows = async (accountId: string) =>
    gateway.db.query<{ id: string; revoked_at: Date | null }>('SELECT id, revoked_at FROM web_sessions WHERE account_id = $1 ORDER BY id', [accountId]);
  const passwordHash = async (accountId: string) =>
    (await gateway.db.query<{ password_hash: string }>('SELECT password_hash FROM accounts WHERE id = $1', [accountId]))[0]!.password_hash;
  const dataCode = (body: string) => /<p class="error" role="alert" data-code="([^"]*)">/.exec(body)?.[1];
  const isSignedIn = async (browser: PageBrowser) => (await browser.get('/account')).status === 200;

  it('shows the password form and the active sessions, this one marked, never a session secret or its hash', async () => {
    const owner = await newOwner('page');
    const other = await signedIn(owner.email);
    const browser = await signedIn(owner.email);
    const response = await browser.get('/account');
    const body = await response.text();
    expect(response.status).toBe(200);
    for (const [id, label] of [
      ['current_password', 'Current password'],
      ['new_password', 'New password'],
      ['confirm_password', 'New password again'],
    ]) {
      expect(body).toContain(`<label for="${id}">${label}</label>`);
      expect(body).toContain(`<input type="password" id="${id}"`);
    }
    expect(body).toContain('<h2 id="sessions-heading">Active sessions</h2>');
    expect(body).toContain('<strong>This session</strong>');
    expect(body.match(/<button type="submit" aria-label="End the session started [^"]+">End<\/button>/g)).toHaveLength(1);
    expect(body).toContain('<button type="submit">Sign out of every session</button>');
    expect(body.match(/<script/g)).toHaveLength(body.match(/<script src="\/assets\//g)?.length ?? 0);
    for (const jar of [browser, other]) {
      const token = jar.cookies.get('kgate_session')!;
      expect(body).not.toContain(token.slice(4));
      expect(body).not.toContain(sha256Hex(token));
    }
  });

  it('changes the password: other sessions end at once, this one stays, the old password stops working', async () => {
    const owner = await newOwner('change');
    const other = await signedIn(owner.email);
    const browser = await signedIn(owner.email);
    const before = await passwordHash(owner.accountId);
    const response = await browser.post('/account/password', {
      csrf: await csrfOf(browser),
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
      confirm_password: NEW_PASSWORD,
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/account?notice=password_changed');
    expect(await (await browser.get('/account?notice=password_changed')).text()).toContain('Your password was changed.');
    expect(await isSignedIn(other)).toBe(false);
    expect(await isSignedIn(browser)).toBe(true);
    expect(await passwordHash(owner.accountId)).not.toBe(before);
    const rows = await sessionRows(owner.accountId);
    expect(rows.filter((row) => row.revoked_at === null)).toHaveLength(1);

    expect((await signInThroughForm(browserAt(newAddress()), owner.email, PASSWORD)).status).toBe(401);
    expect((await signInThroughForm(browserAt(newAddress()), owner.email, NEW_PASSWORD)).status).toBe(303);
  });

  it('refuses a wrong current password, a mismatch, a short password and a forged form, changing nothing', async () => {
    const owner = await newOwner('refused');
    const other = await signedIn(owner.email);
    const browser = await signedIn(owner.email);
    const csrf = await csrfOf(browser);
    const hash = await passwordHash(owner.accountId);
    const sessions = await sessionRows(owner.accountId);
    const attempts: [Record<string, string>, number, string | undefined][] = [
      [{ csrf, current_password: 'not the password', new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD }, 403, 'wrong_current_password'],
      [{ csrf, current_password: PASSWORD, new_password: NEW_PASSWORD, confirm_password: `${NEW_PASSWORD}!` }, 400, 'password_confirmation_mismatch'],
      [{ csrf, current_password: PASSWORD, new_password: 'short', confirm_password: 'short' }, 400, 'password_too_short'],
      [{ csrf: `${csrf}x`, current_password: PASSWORD, new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD }, 403, undefined],
    ];
    for (const [fields, status, code] of attempts) {
      const response = await browser.post('/account/password', fields);
      const body = await response.text();
      expect(response.status).toBe(status);
      expect(dataCode(body)).toBe(code);
      expect(body).toContain('Nothing was changed.');
    }
    const foreign = await browser.post(
      '/account/password',
      { csrf, current_password: PASSWORD, new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect(await passwordHash(owner.accountId)).toBe(hash);
    expect(await sessionRows(owner.accountId)).toEqual(sessions);
    expect(await isSignedIn(other)).toBe(true);
  });

  it('ends one other session, refuses another account\'s session alike, and signs out of every session', async () => {
    const owner = await newOwner('sessions');
    const stranger = await newOwner('stranger');
    const strangerBrowser = await signedIn(stranger.email);
    const [strangerSession] = await sessionRows(stranger.accountId);
    const other = await signedIn(owner.email);
    const third = await signedIn(owner.email);
    const browser = await signedIn(owner.email);
    const page = await (await browser.get('/account')).text();
    const otherIds = [...page.matchAll(/name="session_id" value="([^"]+)"/g)].map((match) => match[1]!);
    expect(otherIds).toHaveLength(2);

    const csrf = await csrfOf(browser);
    const foreign = await browser.post('/account/sessions/end', { csrf, session_id: strangerSession!.id });
    expect(foreign.headers.get('location')).toBe('/account?notice=session_unknown');
    expect(await isSignedIn(strangerBrowser)).toBe(true);

    const otherId = (await sessionRows(owner.accountId)).find((row) => otherIds.includes(row.id))!.id;
    const ended = await browser.post('/account/sessions/end', { csrf, session_id: otherId });
    expect(ended.headers.get('location')).toBe('/account?notice=session_ended');
    const stillIn = [await isSignedIn(other), await isSignedIn(third)];
    expect(stillIn.sort()).toEqual([false, true]);
    expect(await isSignedIn(browser)).toBe(true);

    // Without the CSRF token: refused, nobody signed out.
    expect((await browser.post('/account/sessions/end-all', {})).status).toBe(403);
    expect(await isSignedIn(browser)).toBe(true);

    const all = await browser.post('/account/sessions/end-all', { csrf });
    expect(all.status).toBe(303);
    expect(all.headers.get('location')).toBe('/signin');
    expect(all.headers.getSetCookie().some((line) => /^kgate_session=;.*Max-Age=0/.test(line))).toBe(true);
    for (const jar of [other, third, browser]) expect(await isSignedIn(jar)).toBe(false);
    expect((await sessionRows(owner.accountId)).every((row) => row.revoked_at !== null)).toBe(true);
    expect(await isSignedIn(strangerBrowser)).toBe(true);
  });

  it('a stranger who locks the account keeps the owner, from an address that has not failed, out for a minute at most', async () => {
    const owner = await newOwner('lockout');
    const strangerAddress = newAddress();
    const stranger = browserAt(strangerAddress);
    for (let i = 0; i < 5; i += 1) expect((await signInThroughForm(stranger, owner.email, `guess ${i}`)).status).toBe(401);
    const strangerLocked = await signInThroughForm(stranger, owner.email, PASSWORD);
    expect(strangerLocked.status).toBe(429);
    expect(Number(strangerLocked.headers.get('retry-after'))).toBeGreaterThan(800);

    const ownerBrowser = browserAt(newAddress());
    const refused = await signInThroughForm(ownerBrowser, owner.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(dataCode(await refused.text())).toBe('sign_in_account_locked');
    expect(await sessionRows(owner.accountId)).toEqual([]);

    offsetMs += 61_000;
    expect((await signInThroughForm(ownerBrowser, owner.email, PASSWORD)).status).toBe(303);
    expect(await sessionRows(owner.accountId)).toHaveLength(1);
    // The owner's success cleared the account's failures, not the stranger address's own.
    const [record] = await gateway.db.query<{ failures: number }>('SELECT failures FROM sign_in_address_failures WHERE address_key = $1', [
      strangerAddress,
    ]);
    expect(record!.failures).toBe(5);
  });

  it('an address that failed twenty times is refused on every account, and nothing is counted or opened', async () => {
    const owner = await newOwner('guessed');
    const address = newAddress();
    const guesser = browserAt(address);
    for (let i = 0; i < 20; i += 1) {
      expect((await signInThroughForm(guesser, `nobody-${i}-${owner.email}`, 'guess')).status).toBe(401);
    }
    const refused = await signInThroughForm(guesser, owner.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(15 * 60 - 10);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    const body = await refused.text();
    expect(dataCode(body)).toBe('sign_in_address_locked');
    expect(body).toContain('Too many failed sign-ins from your network address.');
    expect(await sessionRows(owner.accountId)).toEqual([]);
    expect(await gateway.db.query('SELECT 1 FROM sign_in_failures WHERE email_key = $1', [owner.email])).toEqual([]);
    // Another address signs in to the same account at once.
    expect((await signInThroughForm(browserAt(newAddress()), owner.email, PASSWORD)).status).toBe(303);
    offsetMs += 15 * 60_000;
    expect((await signInThroughForm(guesser, owner.email, PASSWORD)).status).toBe(303);
  });
});
