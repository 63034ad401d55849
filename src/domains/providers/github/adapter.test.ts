import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderHttp } from '../../../app/provider-http.ts';
import { FAKE_USER, startGithubFake, type GithubFake, type GithubFakeOptions } from '../../../../test/fakes/github/index.ts';
import { createProviderCall, type MeteredProviderCall, type ProviderBudget } from '../call.ts';
import { ProviderError, type RemoteEntry, type RemoteRoot, type TraversalLimits } from '../port.ts';
import { githubAdapter } from './adapter.ts';
import { gitBlobSha } from './files.ts';

const http = createProviderHttp({ allowPrivateAddresses: true, allowInsecureHttp: true });
const LIMITS: TraversalLimits = { maxDepth: 8, maxEntries: 500 };
const BUDGET: ProviderBudget = { maxRequests: 100, maxBytes: 4 * 1024 * 1024, wallMs: 20_000 };
const ROOT: RemoteRoot = { kind: 'github', owner: 'octo-owner', repo: 'notes', branch: 'main', folder: 'vault' };

let fake: GithubFake;
async function start(options: GithubFakeOptions = {}): Promise<void> {
  await fake.close();
  fake = await startGithubFake(options);
}
beforeEach(async () => {
  fake = await startGithubFake();
});
afterEach(async () => {
  await fake.close();
});

type Tokens = { accessToken: string; refreshToken: string | null };

/** A call as the connections service makes one: the stored tokens, refreshed (and rotated) through the adapter. */
function callFor(tokens: Tokens = fake.issueTokens(), budget: ProviderBudget = BUDGET): MeteredProviderCall {
  return createProviderCall({
    urls: fake.urls,
    http,
    adapter: githubAdapter,
    budget,
    token: {
      current: () => Promise.resolve(tokens.accessToken),
      refresh: async () => {
        if (tokens.refreshToken === null) throw new ProviderError('revoked', 'no refresh token');
        const fresh = await githubAdapter.refresh(http, fake.urls, { clientId: fake.clientId, clientSecret: fake.clientSecret, refreshToken: tokens.refreshToken });
        Object.assign(tokens, { accessToken: fresh.accessToken, refreshToken: fresh.refreshToken });
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

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Follows the authorization URL as the owner's browser would; answers where GitHub sent it back. */
async function consent(challenge: string, redirectUri = fake.callbackUrl): Promise<URL> {
  const url = githubAdapter.authorizationUrl(fake.urls, { clientId: fake.clientId, redirectUri, state: 'state-42', codeChallenge: challenge, write: true });
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location') ?? '');
}

async function listAll(call: MeteredProviderCall, root: RemoteRoot, limits = LIMITS): Promise<{ entries: RemoteEntry[]; pages: number }> {
  const entries: RemoteEntry[] = [];
  let page: string | null = null;
  let pages = 0;
  do {
    const result = await githubAdapter.list(call, root, page, limits);
    entries.push(...result.entries);
    page = result.next;
    pages += 1;
  } while (page !== null);
  return { entries, pages };
}

function sha(text: string): string {
  return gitBlobSha(Buffer.from(text));
}

describe('GitHub OAuth', () => {
  it('exchanges a code with PKCE S256 for expiring GitHub App tokens; a wrong verifier is refused and the code is spent', async () => {
    const { verifier, challenge } = pkce();
    const url = new URL(githubAdapter.authorizationUrl(fake.urls, { clientId: fake.clientId, redirectUri: fake.callbackUrl, state: 's', codeChallenge: challenge, write: true }));
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: fake.clientId, redirect_uri: fake.callbackUrl, scope: 'repo', code_challenge: challenge, code_challenge_method: 'S256' });

    const back = await consent(challenge);
    expect(`${back.origin}${back.pathname}`).toBe(fake.callbackUrl);
    expect(back.searchParams.get('state')).toBe('state-42');
    const input = { clientId: fake.clientId, clientSecret: fake.clientSecret, code: back.searchParams.get('code') ?? '', codeVerifier: verifier, redirectUri: fake.callbackUrl };
    const tokens = await githubAdapter.exchangeCode(http, fake.urls, input);
    expect(tokens.accessToken).toMatch(/^ghu_/);
    expect(tokens.refreshToken).toMatch(/^ghr_/);
    expect(tokens.expiresAt!.getTime() - Date.now()).toBeGreaterThan(7 * 3600 * 1000);
    expect(tokens.scopes).toEqual([]);
    expect(await githubAdapter.identity(callFor(tokens))).toEqual({ id: String(FAKE_USER.id), name: FAKE_USER.login });
    expect((await failure(githubAdapter.exchangeCode(http, fake.urls, input))).code).toBe('invalid');

    const other = pkce();
    const second = await consent(other.challenge);
    const wrong = { ...input, code: second.searchParams.get('code') ?? '', codeVerifier: verifier };
    expect((await failure(githubAdapter.exchangeCode(http, fake.urls, wrong))).code).toBe('invalid');
    // The code was spent by the refused attempt: the right verifier no longer helps.
    expect((await failure(githubAdapter.exchangeCode(http, fake.urls, { ...wrong, codeVerifier: other.verifier }))).code).toBe('invalid');
    expect((await failure(githubAdapter.exchangeCode(http, fake.urls, { ...input, clientSecret: 'wrong' }))).code).toBe('unauthorized');
  });

  it('reads an OAuth App answer: scopes granted decide write, never the scopes asked; a denial and a foreign redirect URI get no code', async () => {
    await start({ flavor: 'oauth-app' });
    for (const [granted, write] of [[['repo'], true], [['public_repo'], true], [['read:user'], false]] as const) {
      fake.setConsent({ scopes: [...granted] });
      const { verifier, challenge } = pkce();
      const back = await consent(challenge);
      const tokens = await githubAdapter.exchangeCode(http, fake.urls, {
        clientId: fake.clientId, clientSecret: fake.clientSecret, code: back.searchParams.get('code') ?? '', codeVerifier: verifier, redirectUri: fake.callbackUrl,
      });
      expect(tokens).toMatchObject({ refreshToken: null, expiresAt: null, scopes: granted });
      expect(githubAdapter.capabilities(tokens.scopes)).toEqual({ read: true, write });
    }

    fake.setConsent({ deny: true });
    const denied = await consent(pkce().challenge);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('code')).toBeNull();

    fake.setConsent({});
    const foreign = await consent(pkce().challenge, 'https://evil.example/callback');
    expect(`${foreign.origin}${foreign.pathname}`).toBe(fake.callbackUrl);
    expect(foreign.searchParams.get('error')).toBe('redirect_uri_mismatch');
    expect(foreign.searchParams.get('code')).toBeNull();
  });

  it('rotates the refresh token on every refresh: the old refresh and access tokens stop working', async () => {
    const tokens = fake.issueTokens();
    const input = { clientId: fake.clientId, clientSecret: fake.clientSecret, refreshToken: tokens.refreshToken! };
    const fresh = await githubAdapter.refresh(http, fake.urls, input);
    expect(fresh.refreshToken).not.toBe(tokens.refreshToken);
    expect(fresh.accessToken).not.toBe(tokens.accessToken);
    expect((await failure(githubAdapter.refresh(http, fake.urls, input))).code).toBe('revoked');
    // The replaced access token is refused, and the call's one refresh (with the spent refresh token) says revoked.
    expect((await failure(githubAdapter.identity(callFor({ ...tokens })))).code).toBe('revoked');
    expect(await githubAdapter.identity(callFor({ accessToken: fresh.accessToken, refreshToken: fresh.refreshToken }))).toMatchObject({ name: FAKE_USER.login });
  });

  it('revokes the grant (through a refresh when the access token expired), and succeeds again when it is already gone', async () => {
    const tokens = fake.issueTokens();
    const input = { clientId: fake.clientId, clientSecret: fake.clientSecret, ...tokens };
    await githubAdapter.revoke(http, fake.urls, input);
    expect(fake.requests.filter((request) => request.method === 'DELETE').map((request) => request.path)).toEqual([`/applications/${fake.clientId}/grant`]);
    await githubAdapter.revoke(http, fake.urls, input);
    expect((await failure(githubAdapter.refresh(http, fake.urls, { ...input, refreshToken: tokens.refreshToken! }))).code).toBe('revoked');

    const later = fake.issueTokens();
    fake.expireAccessTokens();
    await githubAdapter.revoke(http, fake.urls, { clientId: fake.clientId, clientSecret: fake.clientSecret, ...later });
    expect([...fake.state.accessTokens.values()].every((entry) => entry.grant.revoked)).toBe(true);
  });
});

describe('GitHub roots and listing', () => {
  beforeEach(() => {
    fake.commit({ 'vault/a.md': 'A', 'vault/b.md': 'BB', 'vault/work/c.md': 'C', 'vault/work/deep/d.md': 'D', 'elsewhere/x.md': 'X' });
  });

  it('resolves the repository, the branch (the default one when none is given) and the folder; anything missing is not_found', async () => {
    const call = callFor();
    expect(await githubAdapter.resolveRoot(call, { ...ROOT, owner: 'Octo-Owner', repo: 'NOTES', branch: '', folder: '/vault/' })).toEqual(ROOT);
    for (const missing of [{ repo: 'absent' }, { branch: 'absent' }, { folder: 'vault/absent' }, { folder: 'vault/a.md' }]) {
      expect((await failure(githubAdapter.resolveRoot(call, { ...ROOT, ...missing }))).code).toBe('not_found');
    }
    for (const bad of [{ folder: 'vault/../x' }, { owner: 'a/b' }, { branch: 'a..b' }]) {
      expect((await failure(githubAdapter.resolveRoot(call, { ...ROOT, ...bad }))).code).toBe('invalid');
    }
    // A private repository is hidden from an OAuth App token without `repo`.
    await start({ flavor: 'oauth-app' });
    expect((await failure(githubAdapter.resolveRoot(callFor(fake.issueTokens(['read:user'])), ROOT))).code).toBe('not_found');
  });

  it('lists every file below the folder from one snapshot, in pages of at most maxEntries tree entries', async () => {
    const call = callFor();
    const limits = { maxDepth: 8, maxEntries: 2 };
    const first = await githubAdapter.list(call, ROOT, null, limits);
    fake.putFile('vault/late.md', 'pushed while listing');
    let page = first.next;
    const entries = [...first.entries];
    let pages = 1;
    while (page !== null) {
      const next = await githubAdapter.list(call, ROOT, page, limits);
      entries.push(...next.entries);
      page = next.next;
      pages += 1;
    }
    expect(entries.map((entry) => entry.path).sort()).toEqual(['a.md', 'b.md', 'work/c.md', 'work/deep/d.md']);
    expect(pages).toBe(3); // 6 entries: 4 files and 2 folders
    expect(entries.find((entry) => entry.path === 'b.md')).toEqual({ path: 'b.md', fileId: 'vault/b.md', revision: sha('BB'), size: 2, modifiedAt: null });
    expect((await listAll(callFor(), ROOT)).entries.map((entry) => entry.path)).toContain('late.md');
    expect((await failure(githubAdapter.list(call, ROOT, 'forged', limits))).code).toBe('invalid');
  });

  it('stops with budget_exhausted past the depth bound, and for a folder GitHub truncates', async () => {
    const depth = await failure(listAll(callFor(), ROOT, { maxDepth: 1, maxEntries: 500 }));
    expect(depth).toMatchObject({ code: 'budget_exhausted', details: { bound: 'depth' } });
    expect((await listAll(callFor(), ROOT, { maxDepth: 2, maxEntries: 500 })).entries).toHaveLength(4);
    fake.state.treeEntryLimit = 3;
    expect(await failure(listAll(callFor(), ROOT))).toMatchObject({ code: 'budget_exhausted', details: { bound: 'entries' } });
  });
});

describe('GitHub changes', () => {
  it('names what another device added, changed, renamed and deleted below the folder since the cursor, and nothing else', async () => {
    fake.commit({ 'vault/a.md': 'A', 'vault/b.md': 'B', 'vault/old.md': 'O', 'vault/gone.md': 'G' });
    const call = callFor();
    const cursor = await githubAdapter.changeCursor(call, ROOT);
    expect(cursor).toBe(fake.head().sha);
    expect(await githubAdapter.changes(call, ROOT, cursor, LIMITS)).toEqual({ relist: false, changed: [], removed: [], cursor, more: false });

    fake.putFile('vault/a.md', 'A, edited');
    fake.putFile('vault/new/n.md', 'N');
    fake.moveFile('vault/old.md', 'vault/moved.md');
    fake.deleteFile('vault/gone.md');
    fake.putFile('elsewhere/x.md', 'outside the folder');
    fake.moveFile('vault/b.md', 'elsewhere/b.md');
    const page = await githubAdapter.changes(call, ROOT, cursor, LIMITS);
    expect(page.relist).toBe(false);
    if (page.relist) return;
    expect(page.cursor).toBe(fake.head().sha);
    expect(page.changed.sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: 'a.md', fileId: 'vault/a.md', revision: sha('A, edited'), size: 9, modifiedAt: null },
      { path: 'moved.md', fileId: 'vault/moved.md', revision: sha('O'), size: 1, modifiedAt: null },
      { path: 'new/n.md', fileId: 'vault/new/n.md', revision: sha('N'), size: 1, modifiedAt: null },
    ]);
    expect(page.removed.sort()).toEqual(['b.md', 'gone.md', 'old.md']);
  });

  it('answers relist when the comparison cannot be complete: a rewritten branch, an unknown cursor, GitHub\'s file cap, too many changes', async () => {
    const call = callFor();
    const first = await githubAdapter.changeCursor(call, ROOT);
    fake.putFile('vault/a.md', 'A');
    const afterA = fake.head().sha;
    fake.setBranch(first);
    fake.putFile('vault/b.md', 'B'); // the branch no longer holds afterA: force-pushed
    expect(await githubAdapter.changes(call, ROOT, afterA, LIMITS)).toEqual({ relist: true, cursor: fake.head().sha });
    expect(await githubAdapter.changes(call, ROOT, 'f'.repeat(40), LIMITS)).toEqual({ relist: true, cursor: fake.head().sha });
    expect(await githubAdapter.changes(call, ROOT, 'not a sha', LIMITS)).toEqual({ relist: true, cursor: fake.head().sha });

    const before = fake.head().sha;
    fake.commit({ 'vault/1.md': '1', 'vault/2.md': '2', 'vault/3.md': '3' });
    expect(await githubAdapter.changes(call, ROOT, before, { maxDepth: 8, maxEntries: 2 })).toEqual({ relist: true, cursor: fake.head().sha });
    const beforeMany = fake.head().sha;
    fake.commit(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`vault/many/${i}.md`, String(i)])));
    expect(await githubAdapter.changes(call, ROOT, beforeMany, LIMITS)).toEqual({ relist: true, cursor: fake.head().sha });
  });
});

describe('GitHub files', () => {
  beforeEach(() => {
    fake.putFile('vault/note.md', '# Note\n');
  });

  it('reads a file with its blob sha, large ones through the raw blob; bounds and absence have their codes', async () => {
    const call = callFor();
    expect(await githubAdapter.read(call, ROOT, 'note.md', 1024)).toEqual({
      entry: { path: 'note.md', fileId: 'vault/note.md', revision: sha('# Note\n'), size: 7, modifiedAt: null },
      content: Buffer.from('# Note\n'),
    });
    expect(await githubAdapter.stat(call, ROOT, 'note.md')).toMatchObject({ revision: sha('# Note\n'), size: 7 });
    expect(await githubAdapter.stat(call, ROOT, 'absent.md')).toBeNull();
    fake.putFile('vault/sub/x.md', 'x');
    expect(await githubAdapter.stat(call, ROOT, 'sub')).toBeNull();
    expect(await failure(githubAdapter.read(call, ROOT, 'note.md', 3))).toMatchObject({ code: 'too_large' });
    expect((await failure(githubAdapter.read(call, ROOT, 'absent.md', 1024))).code).toBe('not_found');
    expect((await failure(githubAdapter.read(call, ROOT, '../README.md', 1024))).code).toBe('invalid');

    fake.state.contentsInlineLimit = 4;
    const read = await githubAdapter.read(call, ROOT, 'note.md', 1024);
    expect(read.content.toString()).toBe('# Note\n');
    expect(fake.requests.at(-1)?.path).toBe(`/repos/octo-owner/notes/git/blobs/${sha('# Note\n')}`);
  });

  it('creates and replaces files in commits on the branch, each conditional on the blob sha', async () => {
    const call = callFor();
    const created = await githubAdapter.write(call, ROOT, { path: 'new/idea.md', content: Buffer.from('idea'), expected: null, message: 'kgate: create idea' });
    expect(created).toEqual({ path: 'new/idea.md', fileId: 'vault/new/idea.md', revision: sha('idea'), size: 4, modifiedAt: null });
    expect(fake.head().message).toBe('kgate: create idea');
    const updated = await githubAdapter.write(call, ROOT, { path: 'new/idea.md', content: Buffer.from('idea 2'), expected: { fileId: created.fileId, revision: created.revision }, message: 'kgate: update' });
    expect(updated.revision).toBe(sha('idea 2'));
    expect(fake.file('vault/new/idea.md')).toEqual({ content: 'idea 2', sha: sha('idea 2') });
    // Creating over an existing file (GitHub: 422 "sha" wasn't supplied) is a conflict, and the file stays.
    const commits = fake.history().length;
    expect((await failure(githubAdapter.write(call, ROOT, { path: 'new/idea.md', content: Buffer.from('other'), expected: null, message: 'm' }))).code).toBe('conflict');
    expect(fake.file('vault/new/idea.md')?.content).toBe('idea 2');
    expect(fake.history()).toHaveLength(commits);
  });

  it('loses no update: a write against a revision another device replaced is a conflict and the other content stays', async () => {
    const call = callFor();
    const seen = (await githubAdapter.stat(call, ROOT, 'note.md'))!;
    fake.putFile('vault/note.md', '# Note\n\nfrom the phone\n');
    const commits = fake.history().length;
    const refused = await failure(githubAdapter.write(call, ROOT, { path: 'note.md', content: Buffer.from('# Note\n\nfrom kgate\n'), expected: seen, message: 'kgate: edit' }));
    expect(refused).toMatchObject({ code: 'conflict', details: { status: 409 } });
    expect(fake.file('vault/note.md')?.content).toBe('# Note\n\nfrom the phone\n');
    expect(fake.history()).toHaveLength(commits);
    // Writing the very bytes that are already there is no lost update: the write stands without a commit.
    const same = await githubAdapter.write(call, ROOT, { path: 'note.md', content: Buffer.from('# Note\n\nfrom the phone\n'), expected: seen, message: 'kgate: edit' });
    expect(same.revision).toBe(fake.file('vault/note.md')?.sha);
    expect(fake.history()).toHaveLength(commits);
  });

  it('sends a write again when only the branch moved under it, and takes a landed write whose answer was lost as done', async () => {
    const call = callFor();
    const seen = (await githubAdapter.stat(call, ROOT, 'note.md'))!;
    fake.raceNextWrites(1);
    const written = await githubAdapter.write(call, ROOT, { path: 'note.md', content: Buffer.from('v2'), expected: seen, message: 'kgate: v2' });
    expect(written.revision).toBe(sha('v2'));
    expect(fake.history().map((commit) => commit.message).slice(0, 2)).toEqual(['kgate: v2', 'Another device syncs']);

    fake.loseNextWriteAnswers(1);
    const created = await githubAdapter.write(call, ROOT, { path: 'fresh.md', content: Buffer.from('fresh'), expected: null, message: 'kgate: fresh' });
    expect(created.revision).toBe(sha('fresh'));
    expect(fake.history().filter((commit) => commit.message === 'kgate: fresh')).toHaveLength(1);

    fake.raceNextWrites(1);
    await githubAdapter.trash(call, ROOT, { path: 'fresh.md', expected: created, message: 'kgate: delete' });
    expect(fake.file('vault/fresh.md')).toBeNull();
  });

  it('deletes in a commit that keeps the file in history; a stale revision is a conflict and deletes nothing', async () => {
    const call = callFor();
    const seen = (await githubAdapter.stat(call, ROOT, 'note.md'))!;
    fake.putFile('vault/note.md', 'changed elsewhere');
    expect((await failure(githubAdapter.trash(call, ROOT, { path: 'note.md', expected: seen, message: 'kgate: delete' }))).code).toBe('conflict');
    expect(fake.file('vault/note.md')?.content).toBe('changed elsewhere');

    const current = (await githubAdapter.stat(call, ROOT, 'note.md'))!;
    await githubAdapter.trash(call, ROOT, { path: 'note.md', expected: current, message: 'kgate: delete' });
    expect(fake.file('vault/note.md')).toBeNull();
    const [deletion, before] = fake.history();
    expect(deletion?.message).toBe('kgate: delete');
    expect(fake.file('vault/note.md', { commit: before?.sha })?.content).toBe('changed elsewhere');
    expect((await failure(githubAdapter.trash(call, ROOT, { path: 'note.md', expected: current, message: 'again' }))).code).toBe('not_found');
  });

  it('refuses writes the connection may not make: a GitHub App with read-only contents is forbidden', async () => {
    await start({ appContents: 'read' });
    const refused = await failure(githubAdapter.write(callFor(), ROOT, { path: 'x.md', content: Buffer.from('x'), expected: null, message: 'm' }));
    expect(refused).toMatchObject({ code: 'forbidden', details: { status: 403 } });
    expect(fake.file('vault/x.md')).toBeNull();
  });
});

describe('GitHub transient answers', () => {
  it('waits out the secondary limit (Retry-After), the primary limit (x-ratelimit-reset) and a 429, then succeeds', async () => {
    for (const kind of ['secondary', 'primary', '429'] as const) {
      const call = callFor();
      fake.rateLimitNext(1, 0, kind);
      const before = fake.requests.length;
      expect(await githubAdapter.changeCursor(call, ROOT)).toBe(fake.head().sha);
      expect(fake.requests.length - before).toBe(2);
      expect(call.spent.retries).toBe(1);
    }
  });

  it('answers rate_limited with the wait when GitHub asks for longer than the call waits', async () => {
    fake.rateLimitNext(1, 3600, 'primary');
    const refused = await failure(githubAdapter.changeCursor(callFor(), ROOT));
    expect(refused.code).toBe('rate_limited');
    expect(refused.details.retryAfterMs).toBeGreaterThan(3_500_000);
  });

  it('tells a rate limit from a permission refusal', () => {
    const answer = (status: number, headers: Record<string, string>, message: string) => ({ status, headers, body: Buffer.from(JSON.stringify({ message })) });
    expect(githubAdapter.transientDelay(answer(403, {}, 'Resource not accessible by integration'))).toBeNull();
    expect(githubAdapter.transientDelay(answer(403, { 'x-ratelimit-remaining': '12' }, 'Must have admin rights'))).toBeNull();
    expect(githubAdapter.transientDelay(answer(403, {}, 'You have exceeded a secondary rate limit.'))).toBe(60_000);
    expect(githubAdapter.transientDelay(answer(429, { 'retry-after': '7' }, ''))).toBe(7000);
    expect(githubAdapter.transientDelay(answer(200, { 'x-ratelimit-remaining': '0' }, ''))).toBeNull();
  });

  it('retries a 5xx, and refreshes once after a 401 for an expired token', async () => {
    const call = callFor();
    fake.failNext(2, 502);
    expect(await githubAdapter.changeCursor(call, ROOT)).toBe(fake.head().sha);
    expect(call.spent.retries).toBe(2);

    const tokens = fake.issueTokens();
    const expired = tokens.accessToken;
    fake.expireAccessTokens();
    const refreshing = callFor(tokens);
    expect(await githubAdapter.identity(refreshing)).toMatchObject({ name: FAKE_USER.login });
    expect(refreshing.spent.refreshed).toBe(true);
    expect(tokens.accessToken).not.toBe(expired);
    fake.revokeAll();
    expect((await failure(githubAdapter.identity(callFor(tokens)))).code).toBe('revoked');
  });
});
