/**
 * A local fake of the Dropbox API v2 subset kgate uses, on 127.0.0.1 (port 0): OAuth 2 (authorize, token, revoke),
 * users/get_current_account, files/list_folder (+ continue, get_latest_cursor), get_metadata, download, upload and
 * delete_v2, with Dropbox's routing (RPC endpoints under `urls.api` take JSON bodies; content endpoints under
 * `urls.content` take the `Dropbox-API-Arg` header), its error unions and status codes, rate limiting (429 with
 * Retry-After) and server errors on demand, and "another device" helpers that change files as the Dropbox app would.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderUrls } from '../../../src/domains/providers/port.ts';
import { currentAccount, deleteV2, download, getMetadata, upload } from './files.ts';
import { continuePage, firstPage, latestCursor, listedFolder, pageLimit } from './listing.ts';
import type { DropboxConsent } from './oauth.ts';
import { FAKE_ACCOUNT_ID, FakeDropboxOAuth } from './oauth.ts';
import type { StoredNode } from './store.ts';
import { DropboxStore, dropboxContentHash, nameOf } from './store.ts';
import type { FakeAnswer, Json } from './wire.ts';
import { badInput, checkFields, json, parseJson, readBody, send, text } from './wire.ts';

export { DROPBOX_APP_SCOPES } from './oauth.ts';
export type { DropboxConsent } from './oauth.ts';

/** How the fake starts. */
export interface DropboxFakeOptions {
  /** Redirect URIs registered for the app; more with `registerRedirectUri`. */
  redirectUris?: string[];
  /** Lifetime of access tokens in seconds (Dropbox: 14400). */
  accessTokenTtlSeconds?: number;
  /** Lifetime of authorization codes in seconds (default 600; `expireCodes` ends them at once). */
  codeTtlSeconds?: number;
  /** Server-side cap on entries per list_folder page, below any `limit` asked for (Dropbox's page size is approximate). */
  pageSize?: number;
  /** The account behind every token. */
  account?: { displayName?: string; email?: string };
}

/** A file as a test sees it. */
export interface DropboxFakeFile {
  id: string;
  /** Display path, with the leading '/'. */
  path: string;
  rev: string;
  content: Buffer;
  text: string;
  contentHash: string;
}

/** One request the fake received. */
export interface DropboxFakeRequest {
  method: string;
  /** Dropbox's path, e.g. `/2/files/upload` or `/oauth2/token`. */
  path: string;
  host: 'api' | 'content' | 'oauth';
}

/** A running fake Dropbox. */
export interface DropboxFake {
  urls: ProviderUrls;
  /** The registered app's key and secret. */
  clientId: string;
  clientSecret: string;
  /** Every request received, in order. */
  requests: DropboxFakeRequest[];
  /** The account id every token belongs to. */
  accountId: string;
  registerRedirectUri(uri: string): void;
  /** What the simulated user does on the next consent pages (until changed). */
  setConsent(consent: DropboxConsent): void;
  /** The next `count` API or content requests answer 429 with Retry-After and Dropbox's RateLimitError. */
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** The next `count` API or content requests answer this server error. */
  failNext(count: number, status?: number): void;
  /** Every access token issued so far is expired (refresh tokens keep working). */
  expireAccessTokens(): void;
  /** The user removes the app's access: every token stops working. */
  revokeAll(): void;
  /** Authorization codes not yet exchanged expire. */
  expireCodes(): void;
  /** Every cursor issued so far answers 409 `reset`. */
  resetCursors(): void;
  /** Tokens of a fresh grant, without the browser (scopes default to read and write). */
  issueTokens(scopes?: string[]): { accessToken: string; refreshToken: string };
  /** Grants not revoked. */
  liveGrants(): number;
  /** Another device writes a file (new rev; parents created). */
  putFile(path: string, content: string | Buffer): DropboxFakeFile;
  /** Another device creates a folder (and its parents). */
  createFolder(path: string): void;
  /** Another device moves or renames a file or folder. */
  move(from: string, to: string): void;
  /** Another device deletes a file or folder (files go to deleted files). */
  remove(path: string): void;
  file(path: string): DropboxFakeFile | null;
  folderExists(path: string): boolean;
  /** The newest deleted-files entry at a path. */
  trashed(path: string): DropboxFakeFile | null;
  /** Every file path (display case), sorted. */
  paths(): string[];
  close(): Promise<void>;
}

type Style = 'rpc' | 'download' | 'upload';
interface RouteContext {
  arg: Record<string, Json>;
  body: Buffer;
  token: string;
}
interface Route {
  host: 'api' | 'content';
  style: Style;
  scope: string | null;
  /** Known argument fields; null for routes whose argument is Void. */
  fields: readonly string[] | null;
  handle(context: RouteContext): FakeAnswer;
}

const LIST_FOLDER_FIELDS = [
  'path', 'recursive', 'include_media_info', 'include_deleted', 'include_has_explicit_shared_members', 'include_mounted_folders',
  'limit', 'shared_link', 'include_property_groups', 'include_non_downloadable_files',
] as const;
const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain; charset=dropbox-cors-hack'];
const UPLOAD_TYPES = ['application/octet-stream', 'text/plain; charset=dropbox-cors-hack'];
const DOWNLOAD_TYPES = ['', 'text/plain', 'text/plain; charset=utf-8', 'application/octet-stream', 'application/octet-stream; charset=utf-8'];

/** Starts a fake Dropbox. */
export async function startDropboxFake(options: DropboxFakeOptions = {}): Promise<DropboxFake> {
  const store = new DropboxStore();
  const oauth = new FakeDropboxOAuth(options.accessTokenTtlSeconds ?? 14_400, options.codeTtlSeconds ?? 600);
  for (const uri of options.redirectUris ?? []) oauth.redirectUris.add(uri);
  const cap = options.pageSize ?? Number.POSITIVE_INFINITY;
  const displayName = options.account?.displayName ?? 'Franz Ferdinand';
  const email = options.account?.email ?? 'franz@example.com';
  const requests: DropboxFakeRequest[] = [];
  const faults = { rateLimited: 0, retryAfter: 1, failing: 0, status: 500 };

  const listFolder = (route: string) => (context: RouteContext): FakeAnswer => {
    const folder = listedFolder(store, route, context.arg);
    if ('answer' in folder) return folder.answer;
    const limit = pageLimit(route, context.arg);
    if ('answer' in limit) return limit.answer;
    const recursive = context.arg.recursive === true;
    return route === 'files/list_folder' ? firstPage(store, folder.rootLower, recursive, limit.limit, cap) : latestCursor(store, folder.rootLower, recursive, limit.limit);
  };
  const routes: Record<string, Route> = {
    'users/get_current_account': { host: 'api', style: 'rpc', scope: 'account_info.read', fields: null, handle: () => currentAccount(FAKE_ACCOUNT_ID, displayName, email) },
    'auth/token/revoke': { host: 'api', style: 'rpc', scope: null, fields: null, handle: ({ token }) => oauth.revoke(token) },
    'files/list_folder': { host: 'api', style: 'rpc', scope: 'files.metadata.read', fields: LIST_FOLDER_FIELDS, handle: listFolder('files/list_folder') },
    'files/list_folder/get_latest_cursor': { host: 'api', style: 'rpc', scope: 'files.metadata.read', fields: LIST_FOLDER_FIELDS, handle: listFolder('files/list_folder/get_latest_cursor') },
    'files/list_folder/continue': { host: 'api', style: 'rpc', scope: 'files.metadata.read', fields: ['cursor'], handle: ({ arg }) => continuePage(store, arg.cursor, cap) },
    'files/get_metadata': {
      host: 'api', style: 'rpc', scope: 'files.metadata.read',
      fields: ['path', 'include_media_info', 'include_deleted', 'include_has_explicit_shared_members', 'include_property_groups'],
      handle: ({ arg }) => getMetadata(store, arg),
    },
    'files/delete_v2': { host: 'api', style: 'rpc', scope: 'files.content.write', fields: ['path', 'parent_rev'], handle: ({ arg }) => deleteV2(store, arg) },
    'files/download': { host: 'content', style: 'download', scope: 'files.content.read', fields: ['path', 'rev'], handle: ({ arg }) => download(store, arg) },
    'files/upload': {
      host: 'content', style: 'upload', scope: 'files.content.write',
      fields: ['path', 'mode', 'autorename', 'client_modified', 'mute', 'property_groups', 'strict_conflict', 'content_hash'],
      handle: ({ arg, body }) => upload(store, arg, body),
    },
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, text(500, `fake failure: ${error instanceof Error ? error.message : String(error)}`)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    if (url.pathname === '/oauth2/authorize' || url.pathname === '/oauth2/token') {
      requests.push({ method, path: url.pathname, host: 'oauth' });
      if (url.pathname === '/oauth2/authorize') return send(res, method === 'GET' ? oauth.authorize(url) : text(405, 'Method not allowed'));
      if (method !== 'POST') return send(res, text(405, 'Method not allowed'));
      return send(res, oauth.token(new URLSearchParams(body.toString('utf8')), req.headers.authorization));
    }
    const match = /^\/(api|content)\/2\/(.+)$/.exec(url.pathname);
    if (!match) return send(res, text(404, 'Not found'));
    const [, host, name] = match as unknown as [string, 'api' | 'content', string];
    requests.push({ method, path: `/2/${name}`, host });
    const route = routes[name];
    if (!route) return send(res, text(404, `Unknown API function: "${name}"`));
    if (route.host !== host) return send(res, badInput(name, `This function is served from ${route.host}.dropboxapi.com`));
    if (method !== 'POST') return send(res, text(405, 'Method not allowed; use POST'));
    if (faults.rateLimited > 0) {
      faults.rateLimited -= 1;
      const error = { reason: { '.tag': 'too_many_requests' }, retry_after: faults.retryAfter };
      return send(res, json({ error_summary: 'too_many_requests/..', error }, 429, { 'retry-after': String(faults.retryAfter) }));
    }
    if (faults.failing > 0) {
      faults.failing -= 1;
      return send(res, text(faults.status, faults.status === 503 ? 'Service Unavailable' : 'Internal Server Error'));
    }
    const auth = oauth.authenticate(name, req.headers.authorization, route.scope);
    if ('answer' in auth) return send(res, auth.answer);
    const arg = parseArgument(name, route, req, url, body);
    if ('answer' in arg) return send(res, arg.answer);
    return send(res, route.handle({ arg: arg.arg, body, token: auth.token }));
  }

  const display = (path: string): string => (path.startsWith('/') ? path : `/${path}`).replace(/\/+$/, '');
  const view = (node: StoredNode | undefined): DropboxFakeFile | null =>
    node?.tag === 'file' ? { id: node.id, path: node.pathDisplay, rev: node.rev, content: node.content, text: node.content.toString('utf8'), contentHash: dropboxContentHash(node.content) } : null;

  return {
    urls: { api: `${origin}/api`, content: `${origin}/content`, authorize: `${origin}/oauth2/authorize`, token: `${origin}/oauth2/token`, revoke: `${origin}/api/2/auth/token/revoke` },
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    requests,
    accountId: FAKE_ACCOUNT_ID,
    registerRedirectUri: (uri) => void oauth.redirectUris.add(uri),
    setConsent: (consent) => void (oauth.consent = consent),
    rateLimitNext: (count, retryAfterSeconds) => Object.assign(faults, { rateLimited: count, retryAfter: retryAfterSeconds }),
    failNext: (count, status = 500) => Object.assign(faults, { failing: count, status }),
    expireAccessTokens: () => oauth.expireAccessTokens(),
    revokeAll: () => oauth.revokeAll(),
    expireCodes: () => oauth.expireCodes(),
    resetCursors: () => void (store.epoch += 1),
    issueTokens: (scopes = ['account_info.read', 'files.metadata.read', 'files.content.read', 'files.content.write']) => oauth.issue(scopes),
    liveGrants: () => oauth.liveGrants,
    putFile(path, content) {
      const target = display(path);
      if (store.get(target.toLowerCase())?.tag === 'folder') throw new Error(`a folder is at ${target}`);
      const parent = store.ensureParents(target);
      if (parent === 'file_ancestor') throw new Error(`a file is above ${target}`);
      return view(store.writeFile(`${parent}/${nameOf(target)}`, Buffer.from(content)))!;
    },
    createFolder(path) {
      // ensureParents makes every folder above its argument: name one level below the folder wanted.
      if (store.ensureParents(`${display(path)}/child`) === 'file_ancestor') throw new Error(`a file is above ${path}`);
    },
    move(from, to) {
      const moved = store.move(display(from).toLowerCase(), display(to));
      if (typeof moved === 'string') throw new Error(`cannot move ${from} to ${to}: ${moved}`);
    },
    remove(path) {
      if (!store.remove(display(path).toLowerCase())) throw new Error(`nothing at ${path}`);
    },
    file: (path) => view(store.get(display(path).toLowerCase())),
    folderExists: (path) => store.get(display(path).toLowerCase())?.tag === 'folder',
    trashed(path) {
      const entry = store.trashed(display(path).toLowerCase());
      return entry ? { id: entry.id, path: entry.pathDisplay, rev: entry.rev, content: entry.content, text: entry.content.toString('utf8'), contentHash: dropboxContentHash(entry.content) } : null;
    },
    paths: () => store.nodesUnder('', true).filter((node) => node.tag === 'file').map((node) => node.pathDisplay),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The route's argument: RPC routes read a JSON body (Void routes: no body, or `null`); content routes read the
 * `Dropbox-API-Arg` header (or the `arg` query parameter), whose JSON must be ASCII with everything else escaped.
 */
function parseArgument(name: string, route: Route, req: IncomingMessage, url: URL, body: Buffer): { arg: Record<string, Json> } | { answer: FakeAnswer } {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (route.style === 'rpc') {
    if (route.fields === null && body.length === 0 && type === '') return { arg: {} };
    if (!JSON_TYPES.includes(type)) {
      return { answer: badInput(name, `Bad HTTP "Content-Type" header: "${type}". Expecting one of "application/json", "application/json; charset=utf-8", "text/plain; charset=dropbox-cors-hack".`) };
    }
    const parsed = parseJson(body.toString('utf8'));
    if (!parsed) return { answer: badInput(name, 'request body: could not decode input as JSON') };
    if (route.fields === null) return parsed.value === null ? { arg: {} } : { answer: badInput(name, 'request body: expected null, got value') };
    const checked = checkFields(name, parsed.value, route.fields);
    return checked.ok ? { arg: checked.arg } : { answer: checked.answer };
  }
  const allowed = route.style === 'upload' ? UPLOAD_TYPES : DOWNLOAD_TYPES;
  if (!allowed.includes(type)) return { answer: badInput(name, `Bad HTTP "Content-Type" header: "${type}". Expecting one of ${allowed.filter(Boolean).map((t) => `"${t}"`).join(', ')}.`) };
  if (route.style === 'download' && body.length > 0) return { answer: badInput(name, 'This function does not take a request body.') };
  const raw = req.headers['dropbox-api-arg'];
  const header = typeof raw === 'string' ? raw : url.searchParams.get('arg');
  if (header === null) return { answer: badInput(name, 'Must provide HTTP header "Dropbox-API-Arg" or URL parameter "arg".') };
  // Node hands header bytes over as latin1: anything outside printable ASCII was not escaped by the client.
  if (/[^\x20-\x7e]/.test(header)) return { answer: badInput(name, 'HTTP header "Dropbox-API-Arg": could not decode input as JSON (characters above 0x7e must be escaped)') };
  const parsed = parseJson(header);
  if (!parsed) return { answer: badInput(name, 'HTTP header "Dropbox-API-Arg": could not decode input as JSON') };
  const checked = checkFields(name, parsed.value, route.fields ?? []);
  return checked.ok ? { arg: checked.arg } : { answer: checked.answer };
}
