import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDropboxFake, type DropboxFake } from '../../../../test/fakes/dropbox/index.ts';
import { createProviderHttp } from '../../../app/provider-http.ts';
import { createProviderCall, type MeteredProviderCall } from '../call.ts';
import { ProviderError, type RemoteEntry, type RemoteRoot } from '../port.ts';
import { dropboxAdapter } from './adapter.ts';

const http = createProviderHttp({ allowPrivateAddresses: true, allowInsecureHttp: true });
const REDIRECT = 'http://127.0.0.1:9/account/connections/dropbox/callback';
const NOTES: RemoteRoot = { kind: 'dropbox', path: '/Notes' };
const WIDE = { maxDepth: 10, maxEntries: 1000 };

let fake: DropboxFake;
beforeEach(async () => {
  fake = await startDropboxFake({ redirectUris: [REDIRECT] });
});
afterEach(async () => {
  await fake.close();
});

/** A call as the connections service builds it: the fake's tokens, refreshed through the adapter after a 401. */
function connect(tokens = fake.issueTokens()): MeteredProviderCall & { waits: number[] } {
  let access = tokens.accessToken;
  const waits: number[] = [];
  const call = createProviderCall({
    urls: fake.urls,
    http,
    adapter: dropboxAdapter,
    token: {
      current: () => Promise.resolve(access),
      async refresh() {
        const fresh = await dropboxAdapter.refresh(http, fake.urls, { clientId: fake.clientId, clientSecret: fake.clientSecret, refreshToken: tokens.refreshToken });
        access = fresh.accessToken;
        return access;
      },
    },
    budget: { maxRequests: 200, maxBytes: 16 * 1024 * 1024, wallMs: 20_000 },
    // Waits really happen (the Retry-After of these tests is at most 1 s); they are recorded, never timed.
    sleep: async (ms) => {
      waits.push(ms);
      await delay(ms);
    },
  });
  return Object.assign(call, { waits });
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The owner's browser at Dropbox: follows the authorization URL and reads where Dropbox sends it back. */
async function consent(write: boolean, challenge: string, redirectUri = REDIRECT): Promise<{ status: number; back: URL | null }> {
  const url = dropboxAdapter.authorizationUrl(fake.urls, { clientId: fake.clientId, redirectUri, state: 'st-1', codeChallenge: challenge, write });
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  return { status: response.status, back: location ? new URL(location) : null };
}

function paths(entries: RemoteEntry[]): string[] {
  return entries.map((entry) => entry.path).sort();
}

describe('Dropbox OAuth', () => {
  it('exchanges a code with its PKCE verifier once, refuses a wrong verifier, and decides capabilities from the granted scopes', async () => {
    const { verifier, challenge } = pkce();
    const { status, back } = await consent(true, challenge);
    expect(status).toBe(302);
    expect(back?.origin + back!.pathname).toBe(REDIRECT);
    expect(back?.searchParams.get('state')).toBe('st-1');
    const code = back!.searchParams.get('code')!;
    const input = { clientId: fake.clientId, clientSecret: fake.clientSecret, code, codeVerifier: verifier, redirectUri: REDIRECT };
    const tokens = await dropboxAdapter.exchangeCode(http, fake.urls, input);
    expect(tokens.refreshToken).toBeTruthy();
    expect(tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    expect(tokens.scopes.sort()).toEqual(['account_info.read', 'files.content.read', 'files.content.write', 'files.metadata.read']);
    expect(dropboxAdapter.capabilities(tokens.scopes)).toEqual({ read: true, write: true });
    // Codes are single-use.
    expect((await failure(dropboxAdapter.exchangeCode(http, fake.urls, input))).code).toBe('invalid');

    const other = pkce();
    const again = await consent(false, other.challenge);
    const wrong = dropboxAdapter.exchangeCode(http, fake.urls, { ...input, code: again.back!.searchParams.get('code')!, codeVerifier: verifier });
    expect((await failure(wrong)).code).toBe('invalid');

    // Codes are short-lived.
    const third = pkce();
    const late = await consent(false, third.challenge);
    fake.expireCodes();
    const expired = dropboxAdapter.exchangeCode(http, fake.urls, { ...input, code: late.back!.searchParams.get('code')!, codeVerifier: third.verifier });
    expect((await failure(expired)).code).toBe('invalid');
  });

  it('grants read only when the user grants fewer scopes, redirects a refusal, and never redirects to an unregistered URI', async () => {
    const { verifier, challenge } = pkce();
    fake.setConsent({ grantOnly: ['account_info.read', 'files.metadata.read', 'files.content.read'] });
    const granted = await consent(true, challenge);
    const tokens = await dropboxAdapter.exchangeCode(http, fake.urls, {
      clientId: fake.clientId, clientSecret: fake.clientSecret, code: granted.back!.searchParams.get('code')!, codeVerifier: verifier, redirectUri: REDIRECT,
    });
    expect(dropboxAdapter.capabilities(tokens.scopes)).toEqual({ read: true, write: false });
    // A read-only connection is refused a write by Dropbox itself (missing_scope).
    const call = connect({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken! });
    const write = dropboxAdapter.write(call, { kind: 'dropbox', path: '' }, { path: 'a.md', content: Buffer.from('x'), expected: null, message: 'm' });
    expect((await failure(write)).code).toBe('forbidden');
    expect(fake.file('/a.md')).toBeNull();

    fake.setConsent({ deny: true });
    const denied = await consent(false, challenge);
    expect(denied.back?.searchParams.get('error')).toBe('access_denied');
    expect(denied.back?.searchParams.get('code')).toBeNull();

    fake.setConsent({});
    const foreign = await consent(false, challenge, 'https://attacker.example/callback');
    expect(foreign.status).toBe(400);
    expect(foreign.back).toBeNull();
  });

  it('refreshes without rotating the refresh token, and answers revoked once the user removed the app', async () => {
    const tokens = fake.issueTokens();
    const input = { clientId: fake.clientId, clientSecret: fake.clientSecret, refreshToken: tokens.refreshToken };
    const first = await dropboxAdapter.refresh(http, fake.urls, input);
    const second = await dropboxAdapter.refresh(http, fake.urls, input);
    expect(first.refreshToken).toBe(tokens.refreshToken);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(first.expiresAt!.getTime()).toBeGreaterThan(Date.now());

    fake.revokeAll();
    expect((await failure(dropboxAdapter.refresh(http, fake.urls, input))).code).toBe('revoked');
    // A call whose token is refused refreshes once, and the refused refresh ends it as revoked.
    expect((await failure(dropboxAdapter.identity(connect(tokens)))).code).toBe('revoked');
  });

  it('revokes the grant (also with an expired access token) and succeeds when it is already gone', async () => {
    const tokens = fake.issueTokens();
    const input = { clientId: fake.clientId, clientSecret: fake.clientSecret, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
    expect(fake.liveGrants()).toBe(1);
    await dropboxAdapter.revoke(http, fake.urls, input);
    expect(fake.liveGrants()).toBe(0);
    expect((await failure(dropboxAdapter.refresh(http, fake.urls, input))).code).toBe('revoked');
    await dropboxAdapter.revoke(http, fake.urls, input);

    const later = fake.issueTokens();
    fake.expireAccessTokens();
    await dropboxAdapter.revoke(http, fake.urls, { ...input, accessToken: later.accessToken, refreshToken: later.refreshToken });
    expect(fake.liveGrants()).toBe(0);
  });
});

describe('Dropbox identity and roots', () => {
  it('names the account and resolves a typed folder in display case', async () => {
    const call = connect();
    expect(await dropboxAdapter.identity(call)).toEqual({ id: fake.accountId, name: 'Franz Ferdinand' });
    fake.putFile('/Notes/Daily/a.md', '# a');
    expect(await dropboxAdapter.resolveRoot(call, { kind: 'dropbox', path: 'notes/daily/' })).toEqual({ kind: 'dropbox', path: '/Notes/Daily' });
    expect(await dropboxAdapter.resolveRoot(call, { kind: 'dropbox', path: '/' })).toEqual({ kind: 'dropbox', path: '' });
    expect((await failure(dropboxAdapter.resolveRoot(call, { kind: 'dropbox', path: '/Missing' }))).code).toBe('not_found');
    expect((await failure(dropboxAdapter.resolveRoot(call, { kind: 'dropbox', path: '/Notes/Daily/a.md' }))).code).toBe('not_found');
    expect((await failure(dropboxAdapter.resolveRoot(call, { kind: 'dropbox', path: '/Notes/../x' }))).code).toBe('invalid');
  });
});

describe('Dropbox listing and changes', () => {
  it('lists every file below the root in pages of the entry bound, with ids and revs', async () => {
    const written = ['a.md', 'b.md', 'Sub/c.md', 'Sub/Deep/d.md', 'Sub/Deep/e.txt', 'f.md', 'Über/ü.md'].map((path) => fake.putFile(`/Notes/${path}`, `# ${path}`));
    fake.putFile('/Elsewhere/x.md', 'outside the root');
    const call = connect();
    const entries: RemoteEntry[] = [];
    let page: string | null = null;
    let pages = 0;
    do {
      const result = await dropboxAdapter.list(call, NOTES, page, { maxDepth: 5, maxEntries: 3 });
      entries.push(...result.entries);
      page = result.next;
      pages += 1;
    } while (page !== null && pages < 20);
    expect(paths(entries)).toEqual(['Sub/Deep/d.md', 'Sub/Deep/e.txt', 'Sub/c.md', 'a.md', 'b.md', 'f.md', 'Über/ü.md'].sort());
    expect(pages).toBeGreaterThan(3);
    const a = entries.find((entry) => entry.path === 'a.md')!;
    expect(a).toEqual({ path: 'a.md', fileId: written[0]!.id, revision: written[0]!.rev, size: Buffer.byteLength('# a.md'), modifiedAt: expect.any(String) });
    expect(fake.requests.filter((request) => request.path === '/2/files/list_folder')).toHaveLength(1);
  });

  it('stops at the depth bound and at a page larger than the entry bound', async () => {
    fake.putFile('/Notes/one/two/three/deep.md', 'deep');
    const call = connect();
    const deep = await failure(dropboxAdapter.list(call, NOTES, null, { maxDepth: 2, maxEntries: 100 }));
    expect(deep.code).toBe('budget_exhausted');
    expect(deep.details.bound).toBe('depth');
    for (let i = 0; i < 6; i += 1) fake.putFile(`/Notes/n${i}.md`, `${i}`);
    // A listing started with pages of 5 and continued under a bound of 2: the page is refused, not cut.
    const first = await dropboxAdapter.list(call, NOTES, null, { maxDepth: 5, maxEntries: 5 });
    const wide = await failure(dropboxAdapter.list(call, NOTES, first.next, { maxDepth: 5, maxEntries: 2 }));
    expect(wide.details.bound).toBe('entries');
  });

  it('reports edits, creations, renames and deletions by another device after the cursor, nothing outside the root', async () => {
    fake.putFile('/Notes/a.md', 'a1');
    fake.putFile('/Notes/b.md', 'b1');
    fake.putFile('/Notes/d.md', 'd1');
    fake.putFile('/Notes/Sub/s.md', 's1');
    const call = connect();
    const cursor = await dropboxAdapter.changeCursor(call, NOTES);
    const edited = fake.putFile('/Notes/a.md', 'a2');
    fake.putFile('/Notes/new.md', 'new');
    fake.move('/Notes/b.md', '/Notes/Renamed/c.md');
    fake.remove('/Notes/d.md');
    fake.remove('/Notes/Sub');
    fake.putFile('/Elsewhere/x.md', 'outside');
    const page = await dropboxAdapter.changes(call, NOTES, cursor, WIDE);
    if (page.relist) throw new Error('expected exact changes');
    expect(paths(page.changed)).toEqual(['Renamed/c.md', 'a.md', 'new.md']);
    expect(page.changed.find((entry) => entry.path === 'a.md')?.revision).toBe(edited.rev);
    // A deleted folder is reported once, for itself; deleted entries carry paths only.
    expect(page.removed.sort()).toEqual(['Sub', 'b.md', 'd.md']);
    expect(page.more).toBe(false);
    const quiet = await dropboxAdapter.changes(call, NOTES, page.cursor, WIDE);
    expect(quiet).toEqual({ relist: false, changed: [], removed: [], cursor: expect.any(String), more: false });
  });

  it('pages changes, and relists with a fresh cursor when Dropbox resets one or a page exceeds the bound', async () => {
    const call = connect();
    const root: RemoteRoot = { kind: 'dropbox', path: '' };
    const cursor = await dropboxAdapter.changeCursor(call, root);
    for (let i = 0; i < 5; i += 1) fake.putFile(`/n${i}.md`, `${i}`);
    const limits = { maxDepth: 5, maxEntries: 2 };
    // The cursor's pages are larger than this caller's bound: it is handed a cursor of its own size to relist from.
    const oversized = await dropboxAdapter.changes(call, root, cursor, limits);
    expect(oversized.relist).toBe(true);
    for (let i = 5; i < 10; i += 1) fake.putFile(`/n${i}.md`, `${i}`);
    const seen: string[] = [];
    let next = oversized.cursor;
    for (let more = true, rounds = 0; more && rounds < 10; rounds += 1) {
      const page = await dropboxAdapter.changes(call, root, next, limits);
      if (page.relist) throw new Error('unexpected relist');
      expect(page.changed.length + page.removed.length).toBeLessThanOrEqual(2);
      seen.push(...page.changed.map((entry) => entry.path));
      next = page.cursor;
      more = page.more;
    }
    expect(seen.sort()).toEqual(['n5.md', 'n6.md', 'n7.md', 'n8.md', 'n9.md']);

    fake.resetCursors();
    const reset = await dropboxAdapter.changes(call, root, next, limits);
    expect(reset.relist).toBe(true);
    fake.putFile('/after.md', 'after');
    const resumed = await dropboxAdapter.changes(call, root, reset.cursor, limits);
    expect(resumed.relist === false && resumed.changed.map((entry) => entry.path)).toEqual(['after.md']);
  });
});

describe('Dropbox reads and conditional writes', () => {
  it('reads a file with the metadata of the same revision, bounded in size', async () => {
    const stored = fake.putFile('/Notes/Über/ä.md', '# Grüße');
    const call = connect();
    const { entry, content } = await dropboxAdapter.read(call, NOTES, 'Über/ä.md', 1024);
    expect(content.toString('utf8')).toBe('# Grüße');
    expect(entry).toMatchObject({ path: 'Über/ä.md', fileId: stored.id, revision: stored.rev });
    expect((await failure(dropboxAdapter.read(call, NOTES, 'Über/ä.md', 4))).code).toBe('too_large');
    expect((await failure(dropboxAdapter.read(call, NOTES, 'missing.md', 1024))).code).toBe('not_found');
    // Paths are case-insensitive at Dropbox; the answer names the file as Dropbox displays it.
    expect((await dropboxAdapter.stat(call, NOTES, 'über/Ä.MD'))?.path).toBe('Über/ä.md');
    expect(await dropboxAdapter.stat(call, NOTES, 'Über')).toBeNull();
  });

  it('creates only where nothing is, and replaces only the expected revision: another device\'s edit is never lost', async () => {
    const call = connect();
    const created = await dropboxAdapter.write(call, NOTES, { path: 'Neu/Straße.md', content: Buffer.from('v1'), expected: null, message: 'create' });
    expect(fake.file('/Notes/Neu/Straße.md')).toMatchObject({ text: 'v1', rev: created.revision, id: created.fileId });
    const again = await failure(dropboxAdapter.write(call, NOTES, { path: 'Neu/Straße.md', content: Buffer.from('other'), expected: null, message: 'create' }));
    expect(again.code).toBe('conflict');
    expect(fake.file('/Notes/Neu/Straße.md')?.text).toBe('v1');

    const updated = await dropboxAdapter.write(call, NOTES, { path: 'Neu/Straße.md', content: Buffer.from('v2'), expected: { fileId: created.fileId, revision: created.revision }, message: 'update' });
    expect(updated.revision).not.toBe(created.revision);
    expect(updated.fileId).toBe(created.fileId);

    const theirs = fake.putFile('/Notes/Neu/Straße.md', 'edited on the phone');
    const stale = await failure(dropboxAdapter.write(call, NOTES, { path: 'Neu/Straße.md', content: Buffer.from('v3'), expected: { fileId: updated.fileId, revision: updated.revision }, message: 'update' }));
    expect(stale.code).toBe('conflict');
    expect(fake.file('/Notes/Neu/Straße.md')).toMatchObject({ text: 'edited on the phone', rev: theirs.rev });
    // No "conflicted copy" either: Dropbox was told not to rename.
    expect(fake.paths()).toEqual(['/Notes/Neu/Straße.md']);

    // An update of a file another device deleted is a conflict, not a re-creation (strict_conflict).
    fake.remove('/Notes/Neu/Straße.md');
    const gone = await failure(dropboxAdapter.write(call, NOTES, { path: 'Neu/Straße.md', content: Buffer.from('v4'), expected: { fileId: theirs.id, revision: theirs.rev }, message: 'update' }));
    expect(gone.code).toBe('conflict');
    expect(fake.file('/Notes/Neu/Straße.md')).toBeNull();
  });

  it('answers a create that meets exactly its own bytes as written (a retried upload that had landed)', async () => {
    const call = connect();
    const landed = fake.putFile('/Notes/same.md', 'same bytes');
    const entry = await dropboxAdapter.write(call, NOTES, { path: 'same.md', content: Buffer.from('same bytes'), expected: null, message: 'create' });
    expect(entry).toMatchObject({ fileId: landed.id, revision: landed.rev });
  });

  it('trashes a file into Dropbox\'s deleted files only at the expected revision', async () => {
    const call = connect();
    const file = fake.putFile('/Notes/old.md', 'keep me restorable');
    const changed = fake.putFile('/Notes/old.md', 'changed on the laptop');
    const stale = await failure(dropboxAdapter.trash(call, NOTES, { path: 'old.md', expected: { fileId: file.id, revision: file.rev }, message: 'delete' }));
    expect(stale.code).toBe('conflict');
    expect(fake.file('/Notes/old.md')?.text).toBe('changed on the laptop');
    await dropboxAdapter.trash(call, NOTES, { path: 'old.md', expected: { fileId: changed.id, revision: changed.rev }, message: 'delete' });
    expect(fake.file('/Notes/old.md')).toBeNull();
    expect(fake.trashed('/Notes/old.md')).toMatchObject({ text: 'changed on the laptop', rev: changed.rev });
    const missing = await failure(dropboxAdapter.trash(call, NOTES, { path: 'old.md', expected: { fileId: changed.id, revision: changed.rev }, message: 'delete' }));
    expect(missing.code).toBe('not_found');
  });
});

describe('Dropbox through the call: rate limits, server errors, expired tokens', () => {
  it('waits out a 429 with Retry-After, then succeeds', async () => {
    fake.putFile('/Notes/a.md', 'a');
    const call = connect();
    fake.rateLimitNext(1, 1);
    const page = await dropboxAdapter.list(call, NOTES, null, WIDE);
    expect(paths(page.entries)).toEqual(['a.md']);
    expect(call.waits).toEqual([1000]);
    expect(fake.requests.filter((request) => request.path === '/2/files/list_folder')).toHaveLength(2);
  });

  it('retries a server error, then succeeds', async () => {
    fake.putFile('/Notes/a.md', 'a');
    const call = connect();
    fake.failNext(1, 503);
    expect((await dropboxAdapter.stat(call, NOTES, 'a.md'))?.path).toBe('a.md');
    expect(call.spent.retries).toBe(1);
    expect(fake.requests.filter((request) => request.path === '/2/files/get_metadata')).toHaveLength(2);
  });

  it('refreshes an expired access token once and sends the request again', async () => {
    const call = connect();
    fake.expireAccessTokens();
    const before = fake.requests.length;
    expect((await dropboxAdapter.identity(call)).id).toBe(fake.accountId);
    expect(call.spent.refreshed).toBe(true);
    expect(fake.requests.slice(before).map((request) => request.path)).toEqual(['/2/users/get_current_account', '/oauth2/token', '/2/users/get_current_account']);
  });
});
