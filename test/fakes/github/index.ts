/**
 * A local fake of GitHub for the adapter's tests (node:http on 127.0.0.1, port 0): the OAuth endpoints of a GitHub App
 * or an OAuth App, the REST subset kgate uses (user, repository, branch, trees, blobs, compare, contents) over a real
 * little git model, GitHub's error bodies and rate-limit answers, injected faults, and "another device" that commits
 * straight to a branch.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderUrls } from '../../../src/domains/providers/port.ts';
import { allowed } from './access.ts';
import { getContents, writeContents } from './contents.ts';
import type { Commit } from './git.ts';
import { authorize, revokeGrant, token, user } from './oauth.ts';
import { compare, getBlob, getBranch, getRepository, getTree } from './repos.ts';
import { FakeState, sendError, type GithubFakeOptions, type LoggedRequest, type RateLimitKind, type Repository } from './state.ts';

export type { GithubFakeOptions } from './state.ts';
export { FAKE_USER } from './state.ts';

/** Where "another device" acts: a repository and branch (defaults: the fake's first repository, its default branch). */
export interface DeviceTarget {
  owner?: string;
  repo?: string;
  branch?: string;
}

/** A started fake. */
export interface GithubFake {
  urls: ProviderUrls;
  origin: string;
  clientId: string;
  clientSecret: string;
  /** The registered callback URL. */
  callbackUrl: string;
  /** Every request, in order (OAuth endpoints included). */
  requests: LoggedRequest[];
  state: FakeState;
  close(): Promise<void>;
  /** What the user answers on the next consent screens: deny, or grant these scopes instead of those asked. */
  setConsent(consent: { deny?: boolean; scopes?: string[] | null }): void;
  /** Tokens as if the OAuth flow had just run (for tests of the file API). */
  issueTokens(scopes?: string[]): { accessToken: string; refreshToken: string | null };
  /** The next `n` API requests are rate limited for `retryAfterSeconds`: GitHub's secondary limit by default. */
  rateLimitNext(n: number, retryAfterSeconds: number, kind?: RateLimitKind): void;
  /** The next `n` API requests fail with `status` (a 5xx). */
  failNext(n: number, status?: number): void;
  /** The next `n` contents writes meet a branch that another device moved meanwhile (409, nothing written). */
  raceNextWrites(n: number): void;
  /** The next `n` contents writes are committed but answered 502, as when an answer is lost on the way. */
  loseNextWriteAnswers(n: number): void;
  expireAccessTokens(): void;
  revokeAll(): void;
  createRepository(owner: string, name: string, options?: { private?: boolean; defaultBranch?: string }): Repository;
  /** One commit of "another device": each path set to content, or removed with null. */
  commit(changes: Record<string, string | Buffer | null>, target?: DeviceTarget & { message?: string }): Commit;
  putFile(path: string, content: string | Buffer, target?: DeviceTarget): Commit;
  deleteFile(path: string, target?: DeviceTarget): Commit;
  moveFile(from: string, to: string, target?: DeviceTarget): Commit;
  /** Points a branch at another commit (a force push), or creates it there. */
  setBranch(commitSha: string, target?: DeviceTarget): void;
  /** The branch head commit. */
  head(target?: DeviceTarget): Commit;
  /** The file at a path of the branch head (or of a commit), or null. */
  file(path: string, target?: DeviceTarget & { commit?: string }): { content: string; sha: string } | null;
  /** The commits of a branch, newest first. */
  history(target?: DeviceTarget): Commit[];
}

const API_PREFIXES = ['/user', '/repos/', '/applications/'];

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function decodeSegments(path: string): string[] | null {
  try {
    return path.split('/').filter((segment) => segment !== '').map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
}

function injectedFault(state: FakeState, res: ServerResponse): boolean {
  const { rateLimit, failure } = state.faults;
  if (rateLimit.left > 0) {
    rateLimit.left -= 1;
    if (rateLimit.kind === 'primary') {
      const reset = Math.ceil(Date.now() / 1000) + rateLimit.seconds;
      sendError(res, 403, `API rate limit exceeded for user ID 583231.`, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset), 'x-ratelimit-used': '5000' });
    } else if (rateLimit.kind === 'secondary') {
      sendError(res, 403, 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', { 'retry-after': String(rateLimit.seconds) });
    } else {
      sendError(res, 429, 'Too many requests.', { 'retry-after': String(rateLimit.seconds) });
    }
    return true;
  }
  if (failure.left > 0) {
    failure.left -= 1;
    res.writeHead(failure.status, { 'content-type': 'text/html' }).end('<h1>Server Error</h1>');
    return true;
  }
  return false;
}

async function handle(state: FakeState, origin: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', origin);
  const method = req.method ?? 'GET';
  state.requests.push({ method, path: url.pathname, query: url.search });
  const body = await readBody(req);
  if (method === 'GET' && url.pathname === '/login/oauth/authorize') return authorize(state, url.searchParams, res);
  if (!API_PREFIXES.some((prefix) => url.pathname.startsWith(prefix)) && url.pathname !== '/login/oauth/access_token') {
    return sendError(res, 404, 'Not Found');
  }
  if (injectedFault(state, res)) return;
  if (method === 'POST' && url.pathname === '/login/oauth/access_token') return token(state, body, req.headers, url.searchParams, res);
  if (!req.headers['user-agent']) {
    return sendError(res, 403, 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header.');
  }
  const segments = decodeSegments(url.pathname);
  if (!segments) return sendError(res, 400, 'Bad request');
  if (method === 'DELETE' && segments[0] === 'applications' && segments[2] === 'grant' && segments.length === 3) {
    return revokeGrant(state, segments[1] ?? '', body, req.headers, res);
  }
  const credentials = /^(?:bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!credentials) return sendError(res, 401, 'Requires authentication');
  const grant = state.authorize(credentials[1] ?? '');
  if (!grant) return sendError(res, 401, 'Bad credentials');
  res.setHeader('x-ratelimit-limit', '5000');
  res.setHeader('x-ratelimit-remaining', '4999');
  res.setHeader('x-ratelimit-reset', String(Math.ceil(Date.now() / 1000) + 3600));
  if (state.flavor === 'oauth-app') res.setHeader('x-oauth-scopes', grant.scopes.join(', '));
  if (method === 'GET' && url.pathname === '/user') return user(res);
  const [root, owner = '', name = '', area, ...rest] = segments;
  const repository = root === 'repos' ? state.repo(owner, name) : undefined;
  if (!repository || !allowed(state, grant, repository, false, res)) {
    if (!res.headersSent) sendError(res, 404, 'Not Found');
    return;
  }
  const request = { state, grant, repository, method, segments: rest, query: url.searchParams, headers: req.headers, body, res, origin };
  const joined = rest.join('/');
  if (method === 'GET' && area === undefined) return getRepository(request);
  if (method === 'GET' && area === 'branches' && rest.length > 0) return getBranch(request, joined);
  if (method === 'GET' && area === 'git' && rest[0] === 'trees' && rest.length === 2) return getTree(request, rest[1] ?? '');
  if (method === 'GET' && area === 'git' && rest[0] === 'blobs' && rest.length === 2) return getBlob(request, rest[1] ?? '');
  if (method === 'GET' && area === 'compare' && rest.length > 0) return compare(request, joined);
  if (area === 'contents') {
    if (method === 'GET') return getContents(request, joined);
    if (method === 'PUT' || method === 'DELETE') return writeContents(request, joined);
  }
  sendError(res, 404, 'Not Found');
}

/** Starts the fake with one private repository `octo-owner/notes` (branch `main`, one commit holding README.md). */
export async function startGithubFake(options: GithubFakeOptions = {}): Promise<GithubFake> {
  const state = new FakeState(options);
  const server = createServer((req, res) => {
    handle(state, origin, req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500, 'Server Error');
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const first = state.createRepository('octo-owner', 'notes');
  state.commit(first, 'main', new Map([['README.md', Buffer.from('# Notes\n')]]), 'Initial commit');

  function target(where: DeviceTarget = {}): { repository: Repository; branch: string } {
    const repository = where.owner && where.repo ? state.repo(where.owner, where.repo) : first;
    if (!repository) throw new Error(`no repository ${where.owner ?? ''}/${where.repo ?? ''}`);
    return { repository, branch: where.branch ?? repository.defaultBranch };
  }
  function head(where?: DeviceTarget): Commit {
    const { repository, branch } = target(where);
    const sha = repository.branches.get(branch);
    const commit = sha === undefined ? undefined : state.store.commits.get(sha);
    if (!commit) throw new Error(`no branch ${branch}`);
    return commit;
  }
  function commit(changes: Record<string, string | Buffer | null>, where: DeviceTarget & { message?: string } = {}): Commit {
    const { repository, branch } = target(where);
    const edits = new Map(Object.entries(changes).map(([path, content]) => [path, content === null ? null : Buffer.from(content)]));
    return state.commit(repository, branch, edits, where.message ?? 'Edit from another device');
  }

  function file(path: string, where: DeviceTarget & { commit?: string } = {}): { content: string; sha: string } | null {
    const tree = state.store.commits.get(where.commit ?? head(where).sha)?.tree ?? '';
    const entry = state.store.lookup(tree, path);
    if (!entry || entry.type !== 'blob') return null;
    return { content: (state.store.blobs.get(entry.sha) ?? Buffer.alloc(0)).toString('utf8'), sha: entry.sha };
  }

  return {
    urls: {
      api: origin,
      content: origin,
      authorize: `${origin}/login/oauth/authorize`,
      token: `${origin}/login/oauth/access_token`,
      revoke: `${origin}/applications/${state.clientId}/grant`,
    },
    origin,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    callbackUrl: state.callbackUrl,
    requests: state.requests,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    setConsent(consent) {
      state.consent = { deny: consent.deny ?? false, scopes: consent.scopes ?? null };
    },
    issueTokens(scopes = ['repo']) {
      const answer = state.issue({ id: state.id(), scopes: state.flavor === 'oauth-app' ? scopes : [], revoked: false });
      return { accessToken: String(answer.access_token), refreshToken: answer.refresh_token === undefined ? null : String(answer.refresh_token) };
    },
    rateLimitNext(n, retryAfterSeconds, kind = 'secondary') {
      state.faults.rateLimit = { left: n, seconds: retryAfterSeconds, kind };
    },
    failNext(n, status = 502) {
      state.faults.failure = { left: n, status };
    },
    raceNextWrites(n) {
      state.faults.branchRaces = n;
    },
    loseNextWriteAnswers(n) {
      state.faults.lostAnswers = n;
    },
    expireAccessTokens() {
      for (const entry of state.accessTokens.values()) entry.expiresAt = Date.now() - 1000;
    },
    revokeAll() {
      for (const entry of state.accessTokens.values()) entry.grant.revoked = true;
    },
    createRepository: (owner, name, repoOptions) => state.createRepository(owner, name, repoOptions),
    commit,
    putFile: (path, content, where) => commit({ [path]: content }, { ...where, message: `Update ${path}` }),
    deleteFile: (path, where) => commit({ [path]: null }, { ...where, message: `Delete ${path}` }),
    moveFile(from, to, where) {
      const current = file(from, where);
      if (!current) throw new Error(`no file ${from}`);
      const blob = state.store.blobs.get(current.sha) ?? Buffer.alloc(0);
      return commit({ [from]: null, [to]: blob }, { ...where, message: `Move ${from} to ${to}` });
    },
    setBranch(commitSha, where) {
      const { repository, branch } = target(where);
      repository.branches.set(branch, commitSha);
    },
    head,
    file,
    history(where) {
      const out: Commit[] = [];
      let sha: string | undefined = head(where).sha;
      while (sha !== undefined) {
        const entry = state.store.commits.get(sha);
        if (!entry) break;
        out.push(entry);
        sha = entry.parents[0];
      }
      return out;
    },
  };
}
