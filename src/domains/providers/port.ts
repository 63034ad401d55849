/**
 * The provider port: what kgate needs from a cloud drive or a code host, once, so that connections, mappings, sync
 * and governed writes are written once over three adapters (drive/, dropbox/, github/). An adapter speaks its
 * provider's real HTTP API against base URLs from settings (the real services in production, local fakes in tests)
 * and translates the provider's answers, including its errors, into the types below. It holds no state: the
 * connection's tokens, the mapping's root and the sync cursor are ours and are handed in.
 */

/** The remote provider kinds (spec 1.1: two cloud storage kinds and one code-hosting kind). */
export type RemoteKind = 'drive' | 'dropbox' | 'github';

/** Where a provider is reached: settings, so the same code runs against the real services and the fakes. */
export interface ProviderUrls {
  /** The API origin (Drive `https://www.googleapis.com`, Dropbox `https://api.dropboxapi.com`, GitHub `https://api.github.com`). */
  api: string;
  /** Where file bodies are up- and downloaded when that is another origin (Dropbox `https://content.dropboxapi.com`). */
  content: string;
  /** The OAuth authorization endpoint, a whole URL. */
  authorize: string;
  /** The OAuth token endpoint, a whole URL. */
  token: string;
  /** The token revocation endpoint, a whole URL (GitHub revokes a grant through its API instead). */
  revoke: string;
}

/** One HTTP request to a provider. Header names are lower-case. */
export interface ProviderRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Largest response body accepted for this request; the call's remaining byte budget bounds it too. */
  maxBytes?: number;
  /**
   * True when repeating the request could do its effect twice (a create without a concurrency token): such a request
   * is sent once, and a transient failure is answered, not retried.
   */
  once?: boolean;
}

/** A provider's answer. Header names are lower-case; repeated headers joined with ', '. */
export interface ProviderResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Bounded HTTP without credentials (OAuth token requests): time and size bounded, private addresses refused unless configured. */
export type ProviderHttp = (request: ProviderRequest) => Promise<ProviderResponse>;

/**
 * One operation's access to its provider: every request carries the connection's access token, counts against the
 * operation's budget (requests, bytes, wall time), and is retried on rate limits and server errors (Retry-After,
 * else exponential backoff with jitter) while the budget lasts. An expired access token is refreshed once and the
 * request sent again. Any other answer, 4xx included, is returned for the adapter to interpret.
 */
export interface ProviderCall {
  readonly urls: ProviderUrls;
  send(request: ProviderRequest): Promise<ProviderResponse>;
}

/** Why a provider operation failed; stable, so that the domain maps each to its own error code. */
export type ProviderErrorCode =
  /** The provider's concurrency token did not match (Dropbox rev, GitHub sha, Drive version): nothing was written. */
  | 'conflict'
  /** The file, folder, repository or branch does not exist (or the connection may not see it). */
  | 'not_found'
  /** The access token is not accepted even after a refresh. */
  | 'unauthorized'
  /** The grant is gone: the refresh token was refused (revoked at the provider, or expired). */
  | 'revoked'
  /** The connection lacks the permission (scope) for this request. */
  | 'forbidden'
  /** Still rate limited when the budget ran out; `retryAfterMs` says when to come back. */
  | 'rate_limited'
  /** Server errors or network failures outlasted the retries. */
  | 'unavailable'
  /** A file is larger than kgate accepts, or a response larger than its bound. */
  | 'too_large'
  /** The operation's bound on requests, bytes, traversal depth or entries, or wall time, was reached. */
  | 'budget_exhausted'
  /** The provider refused the request as malformed (a name it does not accept, a path outside the root). */
  | 'invalid'
  /** The provider answered something the adapter does not understand. */
  | 'protocol';

/** The only error adapters and calls throw. The message never holds a token or a file body. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';

  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    readonly details: { status?: number; retryAfterMs?: number; bound?: string } = {},
  ) {
    super(message);
  }
}

/** Tokens and grant as the provider's token endpoint answered them. */
export interface ProviderTokens {
  accessToken: string;
  /** Null when the provider issues none (a GitHub OAuth App token does not expire). */
  refreshToken: string | null;
  /** When the access token expires; null when it does not. */
  expiresAt: Date | null;
  /** The scopes actually granted, as the provider named them. */
  scopes: string[];
}

/** What a connection may do, decided from the scopes actually granted (never from what was asked for). */
export interface ProviderCapabilities {
  read: boolean;
  /** Provider file-write capability (spec 3.1). */
  write: boolean;
}

/** The provider account behind a connection. */
export interface ProviderIdentity {
  id: string;
  name: string;
}

/** The remote root of a mapping as the owner chose it: an explicit folder, or a repository, branch and folder. */
export type RemoteRoot =
  /** A Drive folder by id ('root' is My Drive itself); `path` is how the owner named it, for display only. */
  | { kind: 'drive'; folderId: string; path: string }
  /** A Dropbox folder path ('' is the root the app sees), lower-case comparisons are the provider's. */
  | { kind: 'dropbox'; path: string }
  /** A GitHub repository, branch and folder ('' is the repository's top). */
  | { kind: 'github'; owner: string; repo: string; branch: string; folder: string };

/** One file under a mapping's root. Folders are traversed, never returned. */
export interface RemoteEntry {
  /** Path below the root, '/'-separated, with the names the provider shows (display case). */
  path: string;
  /** The provider's id of the file: Drive file id, Dropbox `id:...`, GitHub the path below the repository top. */
  fileId: string;
  /** The provider's concurrency token and revision: Drive `version`, Dropbox `rev`, GitHub blob `sha`. */
  revision: string;
  size: number;
  /** Last modification time as the provider reports it (ISO 8601), when it does. */
  modifiedAt: string | null;
}

/** Bounds of a traversal (listing or changes), so that a huge folder cannot take the operation with it. */
export interface TraversalLimits {
  /** Deepest folder level entered below the root (the root's own files are level 0). */
  maxDepth: number;
  /** Most entries (files and folders) one page may hold. */
  maxEntries: number;
}

/** One page of a full listing. `next` continues it; null when the listing is complete. */
export interface ListPage {
  entries: RemoteEntry[];
  next: string | null;
}

/**
 * One page of changes since a cursor: what changed and what went away (paths below the root), and the cursor after
 * them; `more` when the next page follows at once. `relist` when the adapter cannot say exactly what changed (a Drive
 * change outside what it can place, a GitHub comparison too large): the caller lists everything again and compares
 * revisions, and continues from `cursor` afterwards.
 */
export type ChangePage =
  | { relist: false; changed: RemoteEntry[]; removed: string[]; cursor: string; more: boolean }
  | { relist: true; cursor: string };

/** The expected current state of a file for a conditional write: its id and concurrency token, or null for "absent". */
export type ExpectedFile = { fileId: string; revision: string } | null;

/** The OAuth part of an adapter. `http` carries no credentials: these requests authenticate the application. */
export interface ProviderOAuth {
  /** The authorization URL the owner's browser is sent to (authorization code, PKCE S256 where supported, state). */
  authorizationUrl(urls: ProviderUrls, input: { clientId: string; redirectUri: string; state: string; codeChallenge: string; write: boolean }): string;
  exchangeCode(
    http: ProviderHttp,
    urls: ProviderUrls,
    input: { clientId: string; clientSecret: string; code: string; codeVerifier: string; redirectUri: string },
  ): Promise<ProviderTokens>;
  /** Throws ProviderError `revoked` when the provider refuses the refresh token (invalid_grant). */
  refresh(http: ProviderHttp, urls: ProviderUrls, input: { clientId: string; clientSecret: string; refreshToken: string }): Promise<ProviderTokens>;
  /** Revokes the grant at the provider; succeeds when it is already gone. */
  revoke(http: ProviderHttp, urls: ProviderUrls, input: { clientId: string; clientSecret: string; accessToken: string; refreshToken: string | null }): Promise<void>;
  /** Decides the capabilities from the scopes actually granted. */
  capabilities(scopes: readonly string[]): ProviderCapabilities;
}

/**
 * A provider adapter. Every file method takes the call (authentication, budget, retries) and the mapping's root;
 * paths are below the root. Each throws ProviderError only.
 */
export interface ProviderAdapter extends ProviderOAuth {
  readonly kind: RemoteKind;
  /** Who the access token belongs to. */
  identity(call: ProviderCall): Promise<ProviderIdentity>;
  /**
   * Checks and completes a root the owner typed: the Drive folder path to its id (traversing by name from My Drive),
   * the Dropbox folder exists and is a folder, the GitHub repository and branch exist. `not_found` otherwise.
   */
  resolveRoot(call: ProviderCall, root: RemoteRoot): Promise<RemoteRoot>;
  /** The change cursor at this moment: taken before a full listing, so that nothing changed during it is missed. */
  changeCursor(call: ProviderCall, root: RemoteRoot): Promise<string>;
  /** One page of the full listing of files below the root; `page` is the previous page's `next` (null to start). */
  list(call: ProviderCall, root: RemoteRoot, page: string | null, limits: TraversalLimits): Promise<ListPage>;
  /** One page of changes after `cursor` (see ChangePage). */
  changes(call: ProviderCall, root: RemoteRoot, cursor: string, limits: TraversalLimits): Promise<ChangePage>;
  /** Live metadata of one path; null when no file is there. */
  stat(call: ProviderCall, root: RemoteRoot, path: string): Promise<RemoteEntry | null>;
  /** Downloads one file with its metadata at the moment of reading (`maxBytes` bounds it: `too_large` beyond). */
  read(call: ProviderCall, root: RemoteRoot, path: string, maxBytes: number): Promise<{ entry: RemoteEntry; content: Buffer }>;
  /**
   * Writes one file conditionally: `expected` null creates it only if nothing is at the path; otherwise it replaces
   * it only while its revision is still `expected.revision`. A mismatch throws `conflict` and writes nothing (Drive
   * re-checks `version` immediately before its update; docs/providers.md names the window that leaves). Missing
   * folders on the way are created. `message` is the commit message where the provider keeps one.
   */
  write(call: ProviderCall, root: RemoteRoot, input: { path: string; content: Buffer; expected: ExpectedFile; message: string }): Promise<RemoteEntry>;
  /**
   * Deletes one file conditionally, recoverably: Drive and Dropbox move it to their trash (deleted files), GitHub
   * removes it in a commit on the mapped branch. `conflict` when its revision is no longer `expected.revision`.
   */
  trash(call: ProviderCall, root: RemoteRoot, input: { path: string; expected: { fileId: string; revision: string }; message: string }): Promise<void>;
  /**
   * Whether a response is a rate limit or transient refusal the call should wait out, beyond what every provider
   * shares (429 and 5xx with or without Retry-After): GitHub's 403 with x-ratelimit-remaining 0, Drive's 403
   * userRateLimitExceeded. Returns the wait in ms, or null when the response is not one.
   */
  transientDelay(response: ProviderResponse): number | null;
}
