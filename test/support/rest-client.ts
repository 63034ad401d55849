import type { TestGateway } from './gateway.ts';
import { snapshotTables } from './fixtures.ts';

/** A response with its parsed body (JSON when the server sent JSON, else text). */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Options of one request. */
export interface RequestOptions {
  token?: string | null;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json) or a raw string/Buffer body. */
  json?: unknown;
  raw?: string | Uint8Array;
  query?: Record<string, string | number | boolean | undefined>;
}

/**
 * A plain-fetch client of the Developer REST API, as scripts use it: `api.get('/notes', { query: { mappingId } })`.
 * `token` defaults to the client's token; pass `null` to send no Authorization header.
 */
export function restClient(gateway: Pick<TestGateway, 'url'>, defaultToken: string) {
  async function request<T = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = new URL(`${gateway.url}/api/dev${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? defaultToken : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    } else if (options.raw !== undefined) {
      body = options.raw;
    }
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    const parsed = type.includes('json') && text !== '' ? (JSON.parse(text) as T) : (text as unknown as T);
    return { status: response.status, headers: response.headers, body: parsed, text };
  }
  return {
    request,
    get: <T = Record<string, unknown>>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
    post: <T = Record<string, unknown>>(path: string, options?: RequestOptions) => request<T>('POST', path, options),
    delete: <T = Record<string, unknown>>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
  };
}

/** See restClient. */
export type RestClient = ReturnType<typeof restClient>;

/** Notes, trash and events of the whole database as one string: equal before and after means nothing changed. */
export function snapshotOf(gateway: Pick<TestGateway, 'db'>): Promise<string> {
  return snapshotTables({ query: (sql) => gateway.db.query(sql) });
}

/** A vault path as the two URL segments of `/notes/{category}/{filename}`. */
export function notePathUrl(path: string): string {
  const [category, filename, ...rest] = path.split('/');
  if (!category || !filename || rest.length > 0) throw new Error(`not a two-segment path: ${path}`);
  return `/notes/${encodeURIComponent(category)}/${encodeURIComponent(filename)}`;
}
