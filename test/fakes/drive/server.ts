/**
 * A local fake of Google Drive v3 and Google's OAuth endpoints on 127.0.0.1 (port 0), for adapter and sync tests:
 * the same paths as `www.googleapis.com`, `accounts.google.com` and `oauth2.googleapis.com` on one origin, bearer
 * tokens checked on every API request, faults to inject (rate limits, server errors, expired or revoked tokens), and
 * "another device" editing the same files.
 */
import type { IncomingMessage } from 'node:http';
import type { ProviderUrls } from '../../../src/domains/providers/port.ts';
import { DriveDevice } from './device.ts';
import { driveApi, isWrite, type ApiSettings, type FileAccess } from './files-api.ts';
import { DRIVE_FILE_SCOPE, DRIVE_READONLY_SCOPE, DRIVE_SCOPE, FakeGoogleOAuth, type Consent } from './oauth.ts';
import { DriveStore, type FakeFile } from './store.ts';
import { driveError, serveFake, takeMatching, type FakeAnswer } from './wire.ts';

/** Settings of {@link startDriveFake}. */
export interface DriveFakeOptions {
  /** Redirect URIs registered for the OAuth client; default `http://127.0.0.1/callback`. */
  redirectUris?: string[];
  /** Largest page of files or changes the fake answers (default 1000, Drive's own maximum). */
  maxPageSize?: number;
  accessTokenTtlSeconds?: number;
  /** Lifetime of an authorization code (default 60 s). */
  codeTtlSeconds?: number;
  user?: ApiSettings['user'];
}

/** One logged request. */
export interface LoggedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
}

/** A started fake. */
export interface DriveFake {
  urls: ProviderUrls;
  clientId: string;
  clientSecret: string;
  /** The first registered redirect URI. */
  redirectUri: string;
  /** What the simulated user answers on the consent screen (default: grants every scope asked for). */
  consent: Consent;
  /** Every request in arrival order (OAuth endpoints included). */
  requests: LoggedRequest[];
  /** "Another device" editing the same Drive, and path-based reads of the stored state. */
  device: DriveDevice;
  store: DriveStore;
  /** My Drive's real id (the API also accepts `root`). */
  rootId: string;
  /** The next `n` API requests answer Drive's rate limit: 403 `userRateLimitExceeded` (default) or 429, with Retry-After. */
  rateLimitNext(n: number, retryAfterSeconds?: number, style?: '403' | '429'): void;
  /** The next `n` API requests answer a server error (500 `backendError` by default). */
  failNext(n: number, status?: number): void;
  /** Runs `action` just before the first API request that `match` accepts is handled (a change "in the window"). */
  beforeNext(match: (request: LoggedRequest) => boolean, action: () => void): void;
  expireAccessTokens(): void;
  /** The user removed the app's access at Google: every grant is revoked. */
  revokeAll(): void;
  /** Grants still alive. */
  activeGrants(): number;
  /** Issues tokens without the browser (`drive` scope unless told). */
  issueTokens(scopes?: string[]): { accessToken: string; refreshToken: string };
  /**
   * The grant behind an access token, as Google's other APIs check it (the Classroom fake): its scopes, or why it is
   * refused.
   */
  checkToken(token: string): { scopes: string[] } | 'unknown' | 'expired';
  /** The user picked a file or folder in Google Picker: an app with drive.file may use it from now on. */
  pick(fileId: string): void;
  /**
   * The first API request that `match` accepts is carried out, and its answer lost: the client gets a 503 instead
   * (a create that landed although its caller never heard so).
   */
  loseNextAnswer(match: (request: LoggedRequest) => boolean): void;
  /** The one file outside the trash at a path (from My Drive), or undefined. */
  file(path: string): FakeFile | undefined;
  /** The trashed files at a path. */
  trashed(path: string): FakeFile[];
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function basicAuth(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic\s+(.+)$/i.exec(header ?? '');
  if (!match) return null;
  const [id, secret] = Buffer.from(match[1]!, 'base64').toString('utf8').split(':');
  return id !== undefined && secret !== undefined ? { id: decodeURIComponent(id), secret: decodeURIComponent(secret) } : null;
}

const UNAUTHENTICATED = 'UNAUTHENTICATED';
const WWW_AUTHENTICATE = 'Bearer realm="https://accounts.google.com/", error="invalid_token"';

/** Starts a fake Drive on 127.0.0.1 with a registered OAuth client. */
export async function startDriveFake(options: DriveFakeOptions = {}): Promise<DriveFake> {
  const store = new DriveStore();
  const device = new DriveDevice(store);
  const redirectUris = options.redirectUris ?? ['http://127.0.0.1/callback'];
  const oauth = new FakeGoogleOAuth({
    clientId: '1234567890-kgatefake.apps.googleusercontent.com',
    clientSecret: 'GOCSPX-fake-drive-client-secret',
    redirectUris,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3599,
    codeTtlSeconds: options.codeTtlSeconds ?? 60,
    now: Date.now,
  });
  const settings: ApiSettings = {
    maxPageSize: options.maxPageSize ?? 1000,
    user: options.user ?? { displayName: 'Ada Lovelace', emailAddress: 'ada@example.com', permissionId: '01234567890123456789' },
  };
  const requests: LoggedRequest[] = [];
  const faults: Array<{ kind: 'rate'; retryAfter: number; style: '403' | '429' } | { kind: 'fail'; status: number }> = [];
  const hooks: Array<{ match: (request: LoggedRequest) => boolean; action: () => void }> = [];
  const losses: Array<(request: LoggedRequest) => boolean> = [];

  function fault(): FakeAnswer | null {
    const next = faults.shift();
    if (!next) return null;
    if (next.kind === 'fail') {
      return driveError(next.status, 'backendError', next.status === 503 ? 'Service Unavailable' : 'Internal Error');
    }
    const headers = { 'retry-after': String(next.retryAfter) };
    if (next.style === '429') return driveError(429, 'rateLimitExceeded', 'Rate limit exceeded', { domain: 'usageLimits', status: 'RESOURCE_EXHAUSTED', headers });
    return driveError(403, 'userRateLimitExceeded', 'User rate limit exceeded.', { domain: 'usageLimits', headers });
  }

  /** The grant's access to files, or the refusal Drive answers (drive.file sees only the app's own files). */
  function authorize(req: IncomingMessage, write: boolean): FakeAnswer | FileAccess {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer) {
      return driveError(401, 'required', 'Request is missing required authentication credential. Expected OAuth 2 access token.', {
        location: 'Authorization', locationType: 'header', status: UNAUTHENTICATED, headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' },
      });
    }
    const grant = oauth.check(bearer);
    if (typeof grant === 'string') {
      return driveError(401, 'authError', 'Invalid Credentials', {
        location: 'Authorization', locationType: 'header', status: UNAUTHENTICATED, headers: { 'www-authenticate': WWW_AUTHENTICATE },
      });
    }
    const allowed = write ? [DRIVE_SCOPE] : [DRIVE_SCOPE, DRIVE_READONLY_SCOPE];
    if (grant.scopes.some((scope) => allowed.includes(scope))) return 'all';
    if (grant.scopes.includes(DRIVE_FILE_SCOPE)) return 'app';
    return driveError(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.', {
      status: 'PERMISSION_DENIED',
      headers: { 'www-authenticate': `Bearer realm="https://accounts.google.com/", error="insufficient_scope", scope="${[...allowed, DRIVE_FILE_SCOPE].join(' ')}"` },
    });
  }

  async function handle(req: IncomingMessage): Promise<FakeAnswer> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const logged: LoggedRequest = { method, path: url.pathname, query: url.searchParams };
    requests.push(logged);
    const body = await readBody(req);
    if (body === null) return driveError(413, 'uploadTooLarge', 'The request is too large.');
    if (method === 'GET' && url.pathname === '/o/oauth2/v2/auth') return oauth.authorize(url.searchParams);
    if (method === 'POST' && (url.pathname === '/token' || url.pathname === '/revoke')) {
      const form = new URLSearchParams(body.toString('utf8'));
      if (url.pathname === '/revoke') return oauth.revoke(form.get('token') ?? url.searchParams.get('token'));
      return oauth.token(form, basicAuth(req.headers.authorization));
    }
    if (!url.pathname.startsWith('/drive/v3/') && !url.pathname.startsWith('/upload/drive/v3/')) return { status: 404, raw: Buffer.from('Not Found') };
    takeMatching(hooks, logged)?.action();
    const refused = fault();
    if (refused) return refused;
    const access = authorize(req, isWrite(method));
    if (typeof access === 'object') return access;
    const answer =
      driveApi(store, settings, { method, path: url.pathname, query: url.searchParams, headers: req.headers, body }, access) ??
      driveError(404, 'notFound', `Method not found.`);
    // A lost answer: the work above is done, the caller hears a server error.
    if (takeMatching(losses, logged)) return driveError(503, 'backendError', 'Service Unavailable');
    return answer;
  }

  const { origin, close } = await serveFake(handle, driveError(500, 'internalError', 'Internal Error'));

  return {
    urls: { api: origin, content: origin, authorize: `${origin}/o/oauth2/v2/auth`, token: `${origin}/token`, revoke: `${origin}/revoke` },
    clientId: oauth.options.clientId,
    clientSecret: oauth.options.clientSecret,
    redirectUri: redirectUris[0]!,
    get consent() {
      return oauth.consent;
    },
    set consent(value: Consent) {
      oauth.consent = value;
    },
    requests,
    device,
    store,
    rootId: store.rootId,
    rateLimitNext(n, retryAfterSeconds = 0, style = '403') {
      for (let i = 0; i < n; i += 1) faults.push({ kind: 'rate', retryAfter: retryAfterSeconds, style });
    },
    failNext(n, status = 500) {
      for (let i = 0; i < n; i += 1) faults.push({ kind: 'fail', status });
    },
    beforeNext(match, action) {
      hooks.push({ match, action });
    },
    expireAccessTokens: () => oauth.expireAccessTokens(),
    revokeAll: () => oauth.revokeAll(),
    activeGrants: () => oauth.activeGrants(),
    issueTokens(scopes = [DRIVE_SCOPE]) {
      const { accessToken, refreshToken } = oauth.issue(scopes);
      return { accessToken, refreshToken: refreshToken! };
    },
    checkToken: (token) => oauth.check(token),
    pick: (fileId) => store.grantApp(fileId),
    loseNextAnswer(match) {
      losses.push(match);
    },
    file: (path) => device.file(path),
    trashed: (path) => device.trashed(path),
    close,
  };
}
