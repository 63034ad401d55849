import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderHttp } from '../../../app/provider-http.ts';
import { DRIVE_READONLY_SCOPE, DRIVE_SCOPE, startDriveFake, type DriveFake } from '../../../../test/fakes/drive/index.ts';
import { createProviderCall, type MeteredProviderCall, type ProviderBudget } from '../call.ts';
import { ProviderError, type RemoteEntry, type RemoteRoot, type TraversalLimits } from '../port.ts';
import { driveAdapter } from './adapter.ts';

const http = createProviderHttp({ allowPrivateAddresses: true, allowInsecureHttp: true });
const LIMITS: TraversalLimits = { maxDepth: 8, maxEntries: 500 };
const BUDGET: ProviderBudget = { maxRequests: 200, maxBytes: 4 * 1024 * 1024, wallMs: 20_000 };

let fake: DriveFake;
beforeEach(async () => {
  fake = await startDriveFake({ maxPageSize: 2 });
});
afterEach(async () => {
  await fake.close();
});

/** A connection's tokens, refreshed through the adapter as the connections service would. */
function connection(scopes = [DRIVE_SCOPE]): { accessToken: string; refreshToken: string } {
  return fake.issueTokens(scopes);
}

function callFor(tokens: { accessToken: string; refreshToken: string }, budget: ProviderBudget = BUDGET): MeteredProviderCall {
  return createProviderCall({
    urls: fake.urls,
    http,
    adapter: driveAdapter,
    budget,
    token: {
      current: () => Promise.resolve(tokens.accessToken),
      refresh: async () => {
        const fresh = await driveAdapter.refresh(http, fake.urls, { clientId: fake.clientId, clientSecret: fake.clientSecret, refreshToken: tokens.refreshToken });
        tokens.accessToken = fresh.accessToken;
        tokens.refreshToken = fresh.refreshToken!;
        return fresh.accessToken;
      },
    },
  });
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error: unknown = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return error;
}

async function rootOf(path: string, call = callFor(connection())): Promise<RemoteRoot> {
  return driveAdapter.resolveRoot(call, { kind: 'drive', folderId: '', path });
}

async function listAll(call: MeteredProviderCall, root: RemoteRoot, limits = LIMITS): Promise<{ entries: RemoteEntry[]; pages: number }> {
  const entries: RemoteEntry[] = [];
  let page: string | null = null;
  let pages = 0;
  do {
    const result = await driveAdapter.list(call, root, page, limits);
    expect(result.entries.length).toBeLessThanOrEqual(limits.maxEntries);
    entries.push(...result.entries);
    page = result.next;
    pages += 1;
  } while (page !== null);
  return { entries, pages };
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Follows the authorization URL as the owner's browser would; answers the redirect's query. */
async function consent(write: boolean, challenge: string, redirectUri = fake.redirectUri): Promise<URLSearchParams> {
  const url = driveAdapter.authorizationUrl(fake.urls, { clientId: fake.clientId, redirectUri, state: 'state-123', codeChallenge: challenge, write });
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
  return location.searchParams;
}

describe('Drive OAuth', () => {
  it('asks for the Drive scopes with PKCE and offline access, and exchanges the code for tokens and capabilities', async () => {
    const { verifier, challenge } = pkce();
    const url = new URL(driveAdapter.authorizationUrl(fake.urls, { clientId: fake.clientId, redirectUri: fake.redirectUri, state: 's', codeChallenge: challenge, write: true }));
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: fake.clientId, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', access_type: 'offline', prompt: 'consent',
    });
    expect(url.searchParams.get('scope')!.split(' ')).toContain(DRIVE_SCOPE);

    const back = await consent(true, challenge);
    expect(back.get('state')).toBe('state-123');
    const input = { clientId: fake.clientId, clientSecret: fake.clientSecret, code: back.get('code')!, codeVerifier: verifier, redirectUri: fake.redirectUri };
    const tokens = await driveAdapter.exchangeCode(http, fake.urls, input);
    expect(tokens.refreshToken).toBeTruthy();
    expect(tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    expect(driveAdapter.capabilities(tokens.scopes)).toEqual({ read: true, write: true });
    const call = callFor({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken! });
    expect(await driveAdapter.identity(call)).toEqual({ id: '01234567890123456789', name: 'ada@example.com' });
    // A code is single-use.
    expect((await failure(driveAdapter.exchangeCode(http, fake.urls, input))).code).toBe('invalid');
  });

  it('refuses a code with the wrong PKCE verifier', async () => {
    const { challenge } = pkce();
    const back = await consent(false, challenge);
    const error = await failure(
      driveAdapter.exchangeCode(http, fake.urls, {
        clientId: fake.clientId, clientSecret: fake.clientSecret, code: back.get('code')!, codeVerifier: pkce().verifier, redirectUri: fake.redirectUri,
      }),
    );
    expect(error.code).toBe('invalid');
    expect(error.message).toContain('invalid_grant');
    expect(fake.activeGrants()).toBe(0);
  });

  it('decides capabilities from the scopes granted, not asked for; a denial and a foreign redirect URI get no code', async () => {
    const { verifier, challenge } = pkce();
    fake.consent = { grantOnly: [DRIVE_READONLY_SCOPE] };
    const back = await consent(true, challenge);
    const tokens = await driveAdapter.exchangeCode(http, fake.urls, {
      clientId: fake.clientId, clientSecret: fake.clientSecret, code: back.get('code')!, codeVerifier: verifier, redirectUri: fake.redirectUri,
    });
    expect(tokens.scopes).toEqual([DRIVE_READONLY_SCOPE]);
    expect(driveAdapter.capabilities(tokens.scopes)).toEqual({ read: true, write: false });
    expect(driveAdapter.capabilities([])).toEqual({ read: false, write: false });

    fake.consent = { deny: true };
    const denied = await consent(true, challenge);
    expect(denied.get('error')).toBe('access_denied');
    expect(denied.get('code')).toBeNull();

    const foreign = driveAdapter.authorizationUrl(fake.urls, { clientId: fake.clientId, redirectUri: 'https://evil.example/cb', state: 's', codeChallenge: challenge, write: false });
    const response = await fetch(foreign, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('refreshes without rotating the refresh token, and answers revoked once the grant is gone', async () => {
    const tokens = connection();
    const input = { clientId: fake.clientId, clientSecret: fake.clientSecret, refreshToken: tokens.refreshToken };
    const fresh = await driveAdapter.refresh(http, fake.urls, input);
    expect(fresh.accessToken).not.toBe(tokens.accessToken);
    expect(fresh.refreshToken).toBe(tokens.refreshToken);
    expect(fresh.scopes).toEqual([DRIVE_SCOPE]);
    fake.revokeAll();
    expect((await failure(driveAdapter.refresh(http, fake.urls, input))).code).toBe('revoked');
  });

  it('revokes the grant at Google, and succeeds again when it is already gone', async () => {
    const tokens = connection();
    const input = { clientId: fake.clientId, clientSecret: fake.clientSecret, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
    expect(fake.activeGrants()).toBe(1);
    await driveAdapter.revoke(http, fake.urls, input);
    expect(fake.activeGrants()).toBe(0);
    await driveAdapter.revoke(http, fake.urls, input);
    // The API refuses the old access token, and the call's one refresh answers revoked.
    expect((await failure(driveAdapter.identity(callFor(tokens)))).code).toBe('revoked');
  });
});

describe('Drive roots and listing', () => {
  beforeEach(() => {
    fake.device.put('Notes/a.md', 'A');
    fake.device.put('Notes/b.md', 'B');
    fake.device.put('Notes/Work/c.md', 'C');
    fake.device.put('Notes/Work/Deep/d.md', 'D');
    fake.device.put('Other/x.md', 'X');
  });

  it('resolves a typed path folder by folder from My Drive, and refuses what is not a folder', async () => {
    const call = callFor(connection());
    const root = await rootOf('Notes/Work', call);
    expect(root).toEqual({ kind: 'drive', folderId: fake.device.file('Notes/Work')!.id, path: 'Notes/Work' });
    expect(await driveAdapter.resolveRoot(call, { kind: 'drive', folderId: 'root', path: '' })).toMatchObject({ folderId: fake.rootId });
    expect((await failure(rootOf('Notes/Missing', call))).code).toBe('not_found');
    const fileId = fake.device.file('Notes/a.md')!.id;
    expect((await failure(driveAdapter.resolveRoot(call, { kind: 'drive', folderId: fileId, path: 'x' }))).code).toBe('not_found');
    fake.store.create({ name: 'Notes', mimeType: 'application/vnd.google-apps.folder', parents: [fake.rootId] });
    expect((await failure(rootOf('Notes', call))).code).toBe('invalid');
  });

  it('lists every file below the root in bounded pages, paging Drive too', async () => {
    const call = callFor(connection());
    const root = await rootOf('Notes', call);
    const limits = { maxDepth: 8, maxEntries: 3 };
    const { entries, pages } = await listAll(call, root, limits);
    expect(entries.map((entry) => entry.path).sort()).toEqual(['Work/Deep/d.md', 'Work/c.md', 'a.md', 'b.md']);
    const a = entries.find((entry) => entry.path === 'a.md')!;
    expect(a).toEqual({ path: 'a.md', fileId: fake.device.file('Notes/a.md')!.id, revision: String(fake.device.file('Notes/a.md')!.version), size: 1, modifiedAt: expect.any(String) });
    expect(pages).toBeGreaterThan(1);
    const listings = fake.requests.filter((request) => request.path === '/drive/v3/files' && request.query.get('q')?.endsWith('in parents and trashed = false'));
    expect(listings.some((request) => request.query.has('pageToken'))).toBe(true);
    expect(listings.every((request) => Number(request.query.get('pageSize')) <= limits.maxEntries)).toBe(true);
  });

  it('stops with budget_exhausted when a folder is deeper than allowed', async () => {
    const call = callFor(connection());
    const root = await rootOf('Notes', call);
    const error = await failure(listAll(call, root, { maxDepth: 1, maxEntries: 100 }));
    expect(error.code).toBe('budget_exhausted');
    expect(error.details.bound).toBe('depth');
    expect((await listAll(call, root, { maxDepth: 2, maxEntries: 100 })).entries).toHaveLength(4);
  });

  it('reports both files of a duplicated path and refuses to pick one; Google documents and unnameable files are left out', async () => {
    fake.device.add('Notes/a.md', 'A second a.md');
    const notes = fake.device.file('Notes')!;
    fake.store.create({ name: 'Plan', mimeType: 'application/vnd.google-apps.document', parents: [notes.id] });
    fake.store.create({ name: 'a/b.md', mimeType: 'text/markdown', parents: [notes.id], content: Buffer.from('slash') });
    const call = callFor(connection());
    const root = await rootOf('Notes', call);
    const { entries } = await listAll(call, root);
    const twins = entries.filter((entry) => entry.path === 'a.md');
    expect(twins).toHaveLength(2);
    expect(new Set(twins.map((entry) => entry.fileId)).size).toBe(2);
    expect(entries.map((entry) => entry.path).sort()).toEqual(['Work/Deep/d.md', 'Work/c.md', 'a.md', 'a.md', 'b.md']);
    expect((await failure(driveAdapter.stat(call, root, 'a.md'))).code).toBe('conflict');
    expect((await failure(driveAdapter.read(call, root, 'a.md', 1000))).code).toBe('conflict');
  });
});

describe('Drive changes', () => {
  it('says nothing changed, or relist with a fresh cursor after another device edits, renames or deletes', async () => {
    fake.device.put('Notes/a.md', 'A');
    fake.device.put('Notes/b.md', 'B');
    const call = callFor(connection());
    const root = await rootOf('Notes', call);
    let cursor = await driveAdapter.changeCursor(call, root);
    expect(await driveAdapter.changes(call, root, cursor, LIMITS)).toEqual({ relist: false, changed: [], removed: [], cursor, more: false });

    for (const edit of [() => fake.device.put('Notes/a.md', 'A2'), () => fake.device.move('Notes/b.md', 'Notes/c.md'), () => fake.device.trash('Notes/a.md'), () => fake.device.deleteForever('Notes/c.md')]) {
      edit();
      const page = await driveAdapter.changes(call, root, cursor, LIMITS);
      expect(page.relist).toBe(true);
      expect(page.cursor).not.toBe(cursor);
      cursor = page.cursor;
      // The fresh cursor was taken after the edit: from it on, nothing is pending.
      expect(await driveAdapter.changes(call, root, cursor, LIMITS)).toMatchObject({ relist: false, changed: [], removed: [] });
    }
    const { entries } = await listAll(call, root);
    expect(entries).toEqual([]);
  });

  it('pages through changes that cannot touch a listed file (Google documents) without a relist', async () => {
    const call = callFor(connection());
    const root = await rootOf('', call);
    const cursor = await driveAdapter.changeCursor(call, root);
    for (const name of ['one', 'two', 'three']) fake.store.create({ name, mimeType: 'application/vnd.google-apps.document', parents: [fake.rootId] });
    const first = await driveAdapter.changes(call, root, cursor, LIMITS);
    expect(first).toMatchObject({ relist: false, more: true });
    const second = await driveAdapter.changes(call, root, first.cursor, LIMITS);
    expect(second).toMatchObject({ relist: false, more: false, changed: [], removed: [] });
  });
});

describe('Drive reads', () => {
  it('reads a file with the version of exactly the bytes returned, even when another device writes during the read', async () => {
    fake.device.put('Notes/a.md', 'first');
    const call = callFor(connection());
    const root = await rootOf('Notes', call);
    const plain = await driveAdapter.read(call, root, 'a.md', 1000);
    expect(plain.content.toString()).toBe('first');
    expect(plain.entry.revision).toBe(String(fake.device.file('Notes/a.md')!.version));

    const id = fake.device.file('Notes/a.md')!.id;
    fake.beforeNext((request) => request.path === `/drive/v3/files/${id}` && request.query.get('alt') === 'media', () => fake.device.put('Notes/a.md', 'second'));
    const raced = await driveAdapter.read(call, root, 'a.md', 1000);
    expect(raced.content.toString()).toBe('second');
    expect(raced.entry.revision).toBe(String(fake.device.file('Notes/a.md')!.version));
    expect(raced.entry.revision).not.toBe(plain.entry.revision);

    fake.beforeNext((request) => request.path === `/drive/v3/files/${id}` && request.query.get('alt') === 'media', () => fake.device.move('Notes/a.md', 'Notes/moved.md'));
    expect((await failure(driveAdapter.read(call, root, 'a.md', 1000))).code).toBe('not_found');
    fake.device.move('Notes/moved.md', 'Notes/a.md');

    expect(await driveAdapter.stat(call, root, 'missing.md')).toBeNull();
    expect((await failure(driveAdapter.read(call, root, 'missing.md', 1000))).code).toBe('not_found');
    expect((await failure(driveAdapter.read(call, root, 'a.md', 3))).code).toBe('too_large');
  });
});

describe('Drive conditional writes', () => {
  it('creates a file (and the folders on the way) only where nothing is, and updates only the expected version', async () => {
    fake.device.put('Notes/a.md', 'A');
    const call = callFor(connection());
    const root = await rootOf('Notes', call);
    const created = await driveAdapter.write(call, root, { path: 'New/Deeper/n.md', content: Buffer.from('# New'), expected: null, message: 'create' });
    expect(fake.device.file('Notes/New/Deeper/n.md')!.content.toString()).toBe('# New');
    expect(created).toMatchObject({ path: 'New/Deeper/n.md', fileId: fake.device.file('Notes/New/Deeper/n.md')!.id, size: 5 });

    const again = await failure(driveAdapter.write(call, root, { path: 'New/Deeper/n.md', content: Buffer.from('other'), expected: null, message: 'create' }));
    expect(again.code).toBe('conflict');
    expect(fake.device.find('Notes/New/Deeper/n.md')).toHaveLength(1);
    expect(fake.device.file('Notes/New/Deeper/n.md')!.content.toString()).toBe('# New');

    const updated = await driveAdapter.write(call, root, { path: 'New/Deeper/n.md', content: Buffer.from('# Newer'), expected: { fileId: created.fileId, revision: created.revision }, message: 'update' });
    expect(updated.revision).not.toBe(created.revision);
    expect(Number(updated.revision)).toBeGreaterThan(Number(created.revision));
    expect(fake.device.file('Notes/New/Deeper/n.md')!.content.toString()).toBe('# Newer');
  });

  it("finds names that Drive's query language must escape (quote, backslash) and never a near match", async () => {
    const call = callFor(connection());
    const root = await rootOf('', call);
    const name = "O'Brien \\ it's.md";
    await driveAdapter.write(call, root, { path: `Team's/${name}`, content: Buffer.from('quoted'), expected: null, message: 'm' });
    fake.device.put(`Team's/o'brien \\ it's.md`, 'other case');
    expect((await driveAdapter.read(call, root, `Team's/${name}`, 100)).content.toString()).toBe('quoted');
    expect(fake.device.file(`Team's/${name}`)!.content.toString()).toBe('quoted');
    expect(await driveAdapter.stat(call, root, `Team's/O'Brien.md`)).toBeNull();
  });

  it('refuses a write against a version another device replaced, and the other device keeps its content', async () => {
    fake.device.put('Notes/a.md', 'A');
    const call = callFor(connection());
    const root = await rootOf('Notes', call);
    const seen = (await driveAdapter.read(call, root, 'a.md', 1000)).entry;
    fake.device.put('Notes/a.md', 'from the phone');
    const error = await failure(driveAdapter.write(call, root, { path: 'a.md', content: Buffer.from('from kgate'), expected: { fileId: seen.fileId, revision: seen.revision }, message: 'm' }));
    expect(error.code).toBe('conflict');
    expect(fake.device.file('Notes/a.md')!.content.toString()).toBe('from the phone');

    // A change landing just before the re-check is caught too: the check reads the live version.
    const current = (await driveAdapter.read(call, root, 'a.md', 1000)).entry;
    fake.beforeNext((request) => request.method === 'GET' && request.path === `/drive/v3/files/${current.fileId}`, () => fake.device.put('Notes/a.md', 'from the laptop'));
    const raced = await failure(driveAdapter.write(call, root, { path: 'a.md', content: Buffer.from('from kgate'), expected: { fileId: current.fileId, revision: current.revision }, message: 'm' }));
    expect(raced.code).toBe('conflict');
    expect(fake.device.file('Notes/a.md')!.content.toString()).toBe('from the laptop');
    expect(fake.requests.some((request) => request.method === 'PATCH')).toBe(false);
  });

  it('a create racing another device in the window leaves two files, both kept and both listed', async () => {
    fake.device.folder('Notes');
    const call = callFor(connection());
    const root = await rootOf('Notes', call);
    fake.beforeNext((request) => request.method === 'POST' && request.path === '/upload/drive/v3/files', () => fake.device.add('Notes/n.md', 'from the phone'));
    await driveAdapter.write(call, root, { path: 'n.md', content: Buffer.from('from kgate'), expected: null, message: 'm' });
    expect(fake.device.find('Notes/n.md').map((file) => file.content.toString()).sort()).toEqual(['from kgate', 'from the phone']);
    expect((await listAll(call, root)).entries.filter((entry) => entry.path === 'n.md')).toHaveLength(2);
  });

  it('moves a file to the Drive trash only at the expected version', async () => {
    fake.device.put('Notes/a.md', 'A');
    fake.device.put('Notes/b.md', 'B');
    const call = callFor(connection());
    const root = await rootOf('Notes', call);
    const a = (await driveAdapter.stat(call, root, 'a.md'))!;
    await driveAdapter.trash(call, root, { path: 'a.md', expected: { fileId: a.fileId, revision: a.revision }, message: 'm' });
    expect(fake.device.file('Notes/a.md')).toBeUndefined();
    expect(fake.device.trashed('Notes/a.md').map((file) => file.content.toString())).toEqual(['A']);
    expect((await failure(driveAdapter.trash(call, root, { path: 'a.md', expected: { fileId: a.fileId, revision: a.revision }, message: 'm' }))).code).toBe('not_found');

    const b = (await driveAdapter.stat(call, root, 'b.md'))!;
    fake.device.put('Notes/b.md', 'B2');
    expect((await failure(driveAdapter.trash(call, root, { path: 'b.md', expected: { fileId: b.fileId, revision: b.revision }, message: 'm' }))).code).toBe('conflict');
    expect(fake.device.file('Notes/b.md')!.content.toString()).toBe('B2');
    expect(fake.device.trashed('Notes/b.md')).toEqual([]);
  });

  it('refuses writes with a read-only grant', async () => {
    fake.device.put('Notes/a.md', 'A');
    const call = callFor(connection([DRIVE_READONLY_SCOPE]));
    const root = await rootOf('Notes', call);
    const error = await failure(driveAdapter.write(call, root, { path: 'b.md', content: Buffer.from('B'), expected: null, message: 'm' }));
    expect(error.code).toBe('forbidden');
    expect(fake.device.file('Notes/b.md')).toBeUndefined();
  });
});

describe('Drive faults through the call', () => {
  const isAbout = (request: { path: string }) => request.path === '/drive/v3/about';

  it("waits out Drive's 403 userRateLimitExceeded and a 429 with Retry-After, then succeeds", async () => {
    const call = callFor(connection());
    fake.rateLimitNext(1, 0, '403');
    fake.rateLimitNext(1, 0, '429');
    expect(await driveAdapter.identity(call)).toMatchObject({ name: 'ada@example.com' });
    expect(fake.requests.filter(isAbout)).toHaveLength(3);
    expect(call.spent.retries).toBe(2);
  });

  it('answers rate_limited when the limit outlasts the attempts', async () => {
    const call = callFor(connection());
    fake.rateLimitNext(10, 0, '403');
    const error = await failure(driveAdapter.identity(call));
    expect(error.code).toBe('rate_limited');
  });

  it('retries a server error, then succeeds', async () => {
    const call = callFor(connection());
    fake.failNext(1, 503);
    expect(await driveAdapter.identity(call)).toMatchObject({ id: '01234567890123456789' });
    expect(fake.requests.filter(isAbout)).toHaveLength(2);
  });

  it('refreshes once after a 401 for an expired access token, then succeeds', async () => {
    const tokens = connection();
    const before = tokens.accessToken;
    const call = callFor(tokens);
    fake.expireAccessTokens();
    expect(await driveAdapter.identity(call)).toMatchObject({ name: 'ada@example.com' });
    expect(tokens.accessToken).not.toBe(before);
    expect(call.spent.refreshed).toBe(true);
    expect(fake.requests.filter((request) => request.path === '/token')).toHaveLength(1);
  });

  it('maps Drive errors: unknown folder id is not_found, an exhausted request budget is budget_exhausted', async () => {
    const call = callFor(connection());
    expect((await failure(driveAdapter.resolveRoot(call, { kind: 'drive', folderId: 'no-such-id', path: '' }))).code).toBe('not_found');
    fake.device.put('Notes/Work/Deep/d.md', 'D');
    const small = callFor(connection(), { ...BUDGET, maxRequests: 2 });
    const error = await failure(driveAdapter.stat(small, { kind: 'drive', folderId: fake.rootId, path: '' }, 'Notes/Work/Deep/d.md'));
    expect(error).toMatchObject({ code: 'budget_exhausted', details: { bound: 'requests' } });
  });
});
