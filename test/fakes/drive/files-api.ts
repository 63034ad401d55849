/**
 * The Drive v3 endpoints the adapter uses, over the fake's store: about, files (list with `q` and paging, get with
 * `fields` or `alt=media`, metadata create and patch, multipart create and media update uploads, generateIds and
 * creates with a pre-generated id: a second create with the same id answers 409) and changes (start page token,
 * list). Partial responses follow `fields`; defaults are Drive's own short ones, so a client that forgets to ask for
 * `version` does not get it. With only the drive.file scope (`access: 'app'`) a request sees the files the app
 * created and those the user picked, and nothing else: others are not found, and listings leave them out.
 */
import { FOLDER_MIME, type DriveStore, type FakeFile } from './store.ts';
import { badRequest, driveError, invalidValue, notFound, parseFields, parseQuery, selectFields, type FakeAnswer, type QueryTerm } from './wire.ts';

/** One API request as the router hands it over. */
export interface ApiRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Settings the endpoints read. */
export interface ApiSettings {
  /** Largest page the fake answers whatever `pageSize` asks (small values make tests page). */
  maxPageSize: number;
  user: { displayName: string; emailAddress: string; permissionId: string };
}

const FILE_DEFAULT = 'kind,id,name,mimeType';
const LIST_DEFAULT = `kind,incompleteSearch,nextPageToken,files(${FILE_DEFAULT})`;
const CHANGES_DEFAULT = `kind,nextPageToken,newStartPageToken,changes(kind,changeType,time,removed,fileId,file(${FILE_DEFAULT}))`;
const WRITABLE = new Set(['name', 'mimeType', 'parents', 'trashed', 'description']);

/** What a request's grant lets it see: every file (drive, drive.readonly), or the app's own (drive.file alone). */
export type FileAccess = 'all' | 'app';

/** Answers one Drive API request, or null when no endpoint has that method and path. */
export function driveApi(store: DriveStore, settings: ApiSettings, request: ApiRequest, access: FileAccess = 'all'): FakeAnswer | null {
  const { method, path } = request;
  const visible = (file: FakeFile | undefined): file is FakeFile => file !== undefined && (access === 'all' || store.appMaySee(file));
  if (method === 'GET' && path === '/drive/v3/files/generateIds') return generateIds(store, request);
  const fileId = /^\/(?:upload\/)?drive\/v3\/files\/([^/]+)$/.exec(path)?.[1];
  if (method === 'GET' && path === '/drive/v3/about') return about(settings, request);
  if (method === 'GET' && path === '/drive/v3/files') return listFiles(store, settings, request, visible);
  if (method === 'POST' && path === '/drive/v3/files') return createFromMetadata(store, request, visible);
  if (method === 'POST' && path === '/upload/drive/v3/files') return createFromUpload(store, request, visible);
  if (method === 'GET' && path === '/drive/v3/changes/startPageToken') return partial(200, { kind: 'drive#startPageToken', startPageToken: store.startPageToken() }, request, 'kind,startPageToken');
  if (method === 'GET' && path === '/drive/v3/changes') return listChanges(store, settings, request);
  if (fileId !== undefined) {
    const id = decodeURIComponent(fileId);
    if (!visible(store.get(id))) return notFound(id);
    const upload = path.startsWith('/upload/');
    if (method === 'GET' && !upload) return getFile(store, id, request);
    if (method === 'PATCH' && !upload) return patchMetadata(store, id, request);
    if (method === 'PATCH' && upload) return updateFromUpload(store, id, request);
  }
  return null;
}

/** Whether a request changes files (needs the full `drive` scope). */
export function isWrite(method: string): boolean {
  return method !== 'GET';
}

function partial(status: number, resource: unknown, request: ApiRequest, fallback: string): FakeAnswer {
  const mask = parseFields(request.query.get('fields') ?? fallback);
  if (!mask) return invalidValue('fields', `Invalid field selection ${request.query.get('fields') ?? ''}`);
  return { status, json: selectFields(resource, mask) };
}

function about(settings: ApiSettings, request: ApiRequest): FakeAnswer {
  // about.get has no default fields: Drive requires the parameter.
  if (!request.query.get('fields')) return driveError(400, 'required', "The 'fields' parameter is required for this method.", { location: 'fields' });
  return partial(200, { kind: 'drive#about', user: { kind: 'drive#user', me: true, ...settings.user } }, request, '');
}

function pageSize(request: ApiRequest, settings: ApiSettings, fallback: number): number | FakeAnswer {
  const raw = request.query.get('pageSize');
  if (raw === null) return Math.min(fallback, settings.maxPageSize);
  const size = Number(raw);
  if (!Number.isInteger(size) || size < 1 || size > 1000) return invalidValue('pageSize', `Invalid value '${raw}'. Values must be within the range: [1, 1000]`);
  return Math.min(size, settings.maxPageSize);
}

function matches(store: DriveStore, file: FakeFile, terms: QueryTerm[]): boolean {
  return terms.every((term) => {
    if (term.kind === 'parent') return file.parents.includes(store.resolveId(term.id));
    if (term.kind === 'trashed') return file.trashed === term.value;
    if (term.kind === 'name') return file.name === term.value;
    return (file.mimeType === term.value) === term.equal;
  });
}

function generateIds(store: DriveStore, request: ApiRequest): FakeAnswer {
  const count = Number(request.query.get('count') ?? '10');
  if (!Number.isInteger(count) || count < 1 || count > 1000) return invalidValue('count', 'Invalid value for count.');
  const space = request.query.get('space') ?? 'drive';
  if (space !== 'drive') return invalidValue('space', 'Only the drive space is supported here.');
  const ids = Array.from({ length: count }, () => store.generateId());
  return partial(200, { kind: 'drive#generatedIds', space, ids }, request, 'kind,space,ids');
}

function listFiles(store: DriveStore, settings: ApiSettings, request: ApiRequest, visible: (file: FakeFile) => boolean): FakeAnswer {
  const q = request.query.get('q') ?? '';
  const terms = q === '' ? [] : parseQuery(q);
  if (!terms) return invalidValue('q');
  const size = pageSize(request, settings, 100);
  if (typeof size !== 'number') return size;
  // The page token is opaque to clients; here it carries the offset and the query it belongs to.
  const token = request.query.get('pageToken');
  let offset = 0;
  if (token !== null) {
    const [at, forQuery] = Buffer.from(token, 'base64url').toString('utf8').split('\n');
    offset = Number(at);
    if (forQuery !== q || !Number.isInteger(offset) || offset < 0) return invalidValue('pageToken', 'Invalid Value');
  }
  const found = store.all().filter((file) => visible(file) && matches(store, file, terms));
  const page = found.slice(offset, offset + size);
  const next = offset + size < found.length ? Buffer.from(`${offset + size}\n${q}`).toString('base64url') : undefined;
  return partial(
    200,
    { kind: 'drive#fileList', incompleteSearch: false, ...(next ? { nextPageToken: next } : {}), files: page.map((file) => store.present(file)) },
    request,
    LIST_DEFAULT,
  );
}

function getFile(store: DriveStore, id: string, request: ApiRequest): FakeAnswer {
  const file = store.get(id);
  if (!file) return notFound(id);
  if (request.query.get('alt') === 'media') {
    if (file.mimeType.startsWith('application/vnd.google-apps.')) {
      return driveError(403, 'fileNotDownloadable', 'Only files with binary content can be downloaded. Use Export with Docs Editors files.', { location: 'alt' });
    }
    return { status: 200, raw: file.content, headers: { 'content-type': file.mimeType } };
  }
  return partial(200, store.present(file), request, FILE_DEFAULT);
}

function readJson(body: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8') || '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The pre-generated id of a create (files.generateIds), checked as Drive does: an id it did not hand out is refused,
 * and an id already in use is 409 (what makes a retried create safe). Undefined when the create names none.
 */
function createdId(store: DriveStore, metadata: Record<string, unknown>): string | FakeAnswer | undefined {
  const { id } = metadata;
  delete metadata.id;
  if (id === undefined) return undefined;
  if (typeof id !== 'string' || id === '') return badRequest('Invalid id.');
  if (store.get(id)) return driveError(409, 'duplicate', 'A file already exists with the provided ID.', { location: 'id' });
  if (!store.isGeneratedId(id)) return driveError(400, 'invalid', 'The provided file ID is not usable.', { location: 'id' });
  return id;
}

/** Checks metadata of a create or update; answers the refusal Drive would send, or null. */
function refuseMetadata(store: DriveStore, metadata: Record<string, unknown>, visible: (file: FakeFile | undefined) => boolean = () => true): FakeAnswer | null {
  for (const key of Object.keys(metadata)) {
    if (!WRITABLE.has(key)) return driveError(403, 'fieldNotWritable', `The resource body includes fields which are not directly writable.`);
  }
  if (metadata.name !== undefined && (typeof metadata.name !== 'string' || metadata.name === '')) return badRequest('Invalid name.');
  if (metadata.parents !== undefined) {
    const parents = metadata.parents;
    if (!Array.isArray(parents) || parents.length !== 1 || typeof parents[0] !== 'string') {
      return driveError(403, 'cannotAddParent', 'Increasing the number of parents is not allowed.');
    }
    const parent = store.get(parents[0]);
    if (!parent || !visible(parent) || parent.mimeType !== FOLDER_MIME) return notFound(parents[0]);
  }
  return null;
}

function createFromMetadata(store: DriveStore, request: ApiRequest, visible: (file: FakeFile | undefined) => boolean): FakeAnswer {
  const metadata = readJson(request.body);
  if (!metadata) return badRequest('Invalid JSON payload received.');
  const id = createdId(store, metadata);
  if (typeof id === 'object') return id;
  const refused = refuseMetadata(store, metadata, visible);
  if (refused) return refused;
  const file = store.create({
    ...(id ? { id } : {}),
    name: typeof metadata.name === 'string' ? metadata.name : 'Untitled',
    mimeType: typeof metadata.mimeType === 'string' ? metadata.mimeType : 'application/octet-stream',
    parents: Array.isArray(metadata.parents) ? (metadata.parents as string[]) : [store.rootId],
  });
  // The app sees what it created, whatever its scope.
  store.grantApp(file.id);
  return partial(200, store.present(file), request, FILE_DEFAULT);
}

function patchMetadata(store: DriveStore, id: string, request: ApiRequest): FakeAnswer {
  const file = store.get(id);
  if (!file || file.id === store.rootId) return notFound(id);
  const metadata = readJson(request.body);
  if (!metadata) return badRequest('Invalid JSON payload received.');
  if (metadata.parents !== undefined) return driveError(403, 'parentsNotWritable', 'The parents field is not directly writable in update requests. Use the addParents and removeParents parameters instead.');
  const refused = refuseMetadata(store, metadata);
  if (refused) return refused;
  const addParents = request.query.get('addParents')?.split(',').filter(Boolean);
  const removeParents = request.query.get('removeParents')?.split(',').filter(Boolean);
  for (const parent of addParents ?? []) {
    if (store.get(parent)?.mimeType !== FOLDER_MIME) return notFound(parent);
  }
  store.updateMetadata(file, {
    ...(typeof metadata.name === 'string' ? { name: metadata.name } : {}),
    ...(typeof metadata.trashed === 'boolean' ? { trashed: metadata.trashed } : {}),
    ...(addParents ? { addParents } : {}),
    ...(removeParents ? { removeParents } : {}),
  });
  return partial(200, store.present(file), request, FILE_DEFAULT);
}

function header(request: ApiRequest, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** Splits a `multipart/related` body into its parts (headers lower-cased, body bytes). */
function multipartParts(contentType: string, body: Buffer): Array<{ headers: Record<string, string>; body: Buffer }> | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!/^multipart\/related/i.test(contentType) || !boundary) return null;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: Array<{ headers: Record<string, string>; body: Buffer }> = [];
  let at = body.indexOf(delimiter);
  if (at < 0) return null;
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    const next = body.indexOf(delimiter, at);
    if (next < 0) return null;
    const part = body.subarray(at + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) return null;
    const headers: Record<string, string> = {};
    for (const line of part.subarray(0, split).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    parts.push({ headers, body: part.subarray(split + 4) });
    at = next;
  }
}

function createFromUpload(store: DriveStore, request: ApiRequest, visible: (file: FakeFile | undefined) => boolean): FakeAnswer {
  if (request.query.get('uploadType') !== 'multipart') return invalidValue('uploadType', 'Invalid upload type.');
  const parts = multipartParts(header(request, 'content-type'), request.body);
  if (!parts || parts.length !== 2) return badRequest('Malformed multipart body.');
  const metadata = readJson(parts[0]!.body);
  if (!metadata) return badRequest('Invalid JSON payload received.');
  const id = createdId(store, metadata);
  if (typeof id === 'object') return id;
  const refused = refuseMetadata(store, metadata, visible);
  if (refused) return refused;
  const file = store.create({
    ...(id ? { id } : {}),
    name: typeof metadata.name === 'string' ? metadata.name : 'Untitled',
    mimeType: typeof metadata.mimeType === 'string' ? metadata.mimeType : (parts[1]!.headers['content-type'] ?? 'application/octet-stream'),
    parents: Array.isArray(metadata.parents) ? (metadata.parents as string[]) : [store.rootId],
    content: Buffer.from(parts[1]!.body),
  });
  store.grantApp(file.id);
  return partial(200, store.present(file), request, FILE_DEFAULT);
}

function updateFromUpload(store: DriveStore, id: string, request: ApiRequest): FakeAnswer {
  if (request.query.get('uploadType') !== 'media') return invalidValue('uploadType', 'Invalid upload type.');
  const file = store.get(id);
  if (!file || file.id === store.rootId) return notFound(id);
  if (file.mimeType === FOLDER_MIME) return badRequest('A folder has no content.');
  store.updateContent(file, Buffer.from(request.body));
  return partial(200, store.present(file), request, FILE_DEFAULT);
}

function listChanges(store: DriveStore, settings: ApiSettings, request: ApiRequest): FakeAnswer {
  const token = request.query.get('pageToken');
  if (token === null) return driveError(400, 'required', 'Required parameter: pageToken', { location: 'pageToken' });
  const size = pageSize(request, settings, 100);
  if (typeof size !== 'number') return size;
  const pending = store.changesFrom(token);
  if (!pending) return invalidValue('pageToken');
  const includeRemoved = request.query.get('includeRemoved') !== 'false';
  const page = pending.slice(0, size);
  const more = pending.length > size;
  const changes = page
    .filter((change) => includeRemoved || !change.removed)
    .map((change) => ({
      kind: 'drive#change',
      changeType: 'file',
      time: change.time,
      removed: change.removed || change.file === undefined,
      fileId: change.fileId,
      ...(change.file ? { file: store.present(change.file) } : {}),
    }));
  const after = String(Number(token) + page.length);
  return partial(
    200,
    { kind: 'drive#changeList', ...(more ? { nextPageToken: after } : { newStartPageToken: store.startPageToken() }), changes },
    request,
    CHANGES_DEFAULT,
  );
}
