/**
 * The GitHub fake's state: the registered application, the user, grants and tokens, repositories with branches over
 * the git object store, and the faults to inject. Routes (oauth.ts, rest.ts) read and change it; index.ts exposes it
 * to tests as "another device".
 */
import type { ServerResponse } from 'node:http';
import { ObjectStore, type Commit } from './git.ts';

/** Which kind of GitHub application the fake plays (both use the same OAuth endpoints; their token answers differ). */
export type AppFlavor =
  /** A GitHub App's user access tokens: expire after `accessTokenTtlSeconds`, come with a rotating refresh token, `scope` is ''. */
  | 'github-app'
  /** An OAuth App: tokens that do not expire, no refresh token, `scope` lists the granted scopes. */
  | 'oauth-app';

/** Settings of the fake. */
export interface GithubFakeOptions {
  flavor?: AppFlavor;
  /** The registered callback URL; authorize redirects only there. */
  callbackUrl?: string;
  /** A GitHub App's permission on repository contents (a write with `read` answers 403). Default 'write'. */
  appContents?: 'read' | 'write';
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  /** Most entries a recursive tree answers before `truncated: true` (GitHub: 100,000). */
  treeEntryLimit?: number;
  /** Most files a comparison lists (GitHub: 300). */
  compareFileLimit?: number;
  /** Contents API answers larger files without content (GitHub: 1 MB). */
  contentsInlineLimit?: number;
}

/** A repository and its branches (branch name -> head commit sha). */
export interface Repository {
  id: number;
  owner: string;
  name: string;
  private: boolean;
  defaultBranch: string;
  branches: Map<string, string>;
}

/** The user's authorization of the application; revoking it ends every token issued under it. */
export interface Grant {
  id: number;
  scopes: string[];
  revoked: boolean;
}

export interface AccessToken {
  grant: Grant;
  /** Epoch ms; null for tokens that do not expire. */
  expiresAt: number | null;
  /** False once a refresh replaced it. */
  live: boolean;
}

export interface RefreshToken {
  grant: Grant;
  expiresAt: number;
  live: boolean;
}

export interface PendingCode {
  redirectUri: string;
  scopes: string[];
  challenge: string | null;
  expiresAt: number;
  used: boolean;
}

/** The user every token of the fake belongs to. */
export const FAKE_USER = { id: 583231, login: 'octo-owner', name: 'Octo Owner' } as const;

/** A logged request. */
export interface LoggedRequest {
  method: string;
  path: string;
  query: string;
}

/** The shared state of one fake server. */
export class FakeState {
  readonly store = new ObjectStore();
  readonly repos = new Map<string, Repository>();
  readonly codes = new Map<string, PendingCode>();
  readonly accessTokens = new Map<string, AccessToken>();
  readonly refreshTokens = new Map<string, RefreshToken>();
  readonly requests: LoggedRequest[] = [];
  readonly clientId = 'Iv23liFakeKgate01';
  readonly clientSecret = 'fake-client-secret-0123456789abcdef01234567';
  readonly flavor: AppFlavor;
  readonly callbackUrl: string;
  appContents: 'read' | 'write';
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  treeEntryLimit: number;
  compareFileLimit: number;
  contentsInlineLimit: number;
  /** What the user answers on the next consent screens. */
  consent: { deny: boolean; scopes: string[] | null } = { deny: false, scopes: null };
  faults = {
    rateLimit: { left: 0, seconds: 0, kind: 'secondary' as RateLimitKind },
    failure: { left: 0, status: 502 },
    /** Contents writes that find the branch moved under them by another device's commit (GitHub's 409 "is at X but expected Y"). */
    branchRaces: 0,
    /** Contents writes whose commit is made but whose answer is lost (502 after the fact). */
    lostAnswers: 0,
  };
  private nextId = 1;
  private clock = 0;

  constructor(options: GithubFakeOptions) {
    this.flavor = options.flavor ?? 'github-app';
    this.callbackUrl = options.callbackUrl ?? 'http://127.0.0.1:9/account/connections/github/callback';
    this.appContents = options.appContents ?? 'write';
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 28_800;
    this.refreshTokenTtlSeconds = options.refreshTokenTtlSeconds ?? 15_811_200;
    this.treeEntryLimit = options.treeEntryLimit ?? 100_000;
    this.compareFileLimit = options.compareFileLimit ?? 300;
    this.contentsInlineLimit = options.contentsInlineLimit ?? 1024 * 1024;
  }

  id(): number {
    this.nextId += 1;
    return this.nextId;
  }

  // Commit times strictly increase so that two commits in the same second still differ, as on a real clock.
  commitTime(): number {
    this.clock = Math.max(this.clock + 1, Math.floor(Date.now() / 1000));
    return this.clock;
  }

  repo(owner: string, name: string): Repository | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  createRepository(owner: string, name: string, options: { private?: boolean; defaultBranch?: string } = {}): Repository {
    const repository: Repository = {
      id: this.id(),
      owner,
      name,
      private: options.private ?? true,
      defaultBranch: options.defaultBranch ?? 'main',
      branches: new Map(),
    };
    this.repos.set(`${owner}/${name}`.toLowerCase(), repository);
    return repository;
  }

  /** Commits changes (path -> content, or null to remove) on top of a branch, creating the branch when absent. */
  commit(repository: Repository, branch: string, changes: Map<string, Buffer | null>, message: string): Commit {
    const parent = repository.branches.get(branch);
    const base = parent === undefined ? null : (this.store.commits.get(parent)?.tree ?? null);
    const edits = new Map([...changes].map(([path, content]) => [path, content === null ? null : { content }]));
    const tree = this.store.edit(base, edits);
    const commit = this.store.putCommit({ tree, parents: parent === undefined ? [] : [parent], message, time: this.commitTime() });
    repository.branches.set(branch, commit.sha);
    return commit;
  }

  /** A new access token (and refresh token for a GitHub App) under a grant, answered as the token endpoint does. */
  issue(grant: Grant): Record<string, string | number> {
    const access = `${this.flavor === 'github-app' ? 'ghu' : 'gho'}_${randomToken()}`;
    const expiring = this.flavor === 'github-app';
    this.accessTokens.set(access, { grant, expiresAt: expiring ? Date.now() + this.accessTokenTtlSeconds * 1000 : null, live: true });
    if (!expiring) return { access_token: access, token_type: 'bearer', scope: grant.scopes.join(',') };
    const refresh = `ghr_${randomToken()}${randomToken()}`;
    this.refreshTokens.set(refresh, { grant, expiresAt: Date.now() + this.refreshTokenTtlSeconds * 1000, live: true });
    return {
      access_token: access,
      expires_in: this.accessTokenTtlSeconds,
      refresh_token: refresh,
      refresh_token_expires_in: this.refreshTokenTtlSeconds,
      token_type: 'bearer',
      scope: '',
    };
  }

  /** The grant behind a usable access token, or null (unknown, replaced, expired or revoked). */
  authorize(token: string): Grant | null {
    const entry = this.accessTokens.get(token);
    if (!entry || !entry.live || entry.grant.revoked) return null;
    if (entry.expiresAt !== null && entry.expiresAt <= Date.now()) return null;
    return entry.grant;
  }
}

/** How the fake answers a rate limit: GitHub's primary limit, its secondary limit, or a plain 429. */
export type RateLimitKind = 'primary' | 'secondary' | '429';

function randomToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < 36; i += 1) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
}

/** GitHub's REST error body: `{ message, documentation_url, status }`. */
export function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { message, documentation_url: 'https://docs.github.com/rest', status: String(status) }, headers);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}
