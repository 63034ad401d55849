/**
 * Speaking Dropbox API v2 through a ProviderCall: RPC endpoints (JSON body on the API host), content endpoints
 * (argument in the `Dropbox-API-Arg` header on the content host, result in `Dropbox-API-Result`), and the translation
 * of Dropbox's answers into ProviderError codes. Endpoint errors are 409 with `{"error_summary","error"}`, whose
 * summary names the tags of the error union from the outside in (`path/conflict/file/..`).
 * Reference: www.dropbox.com/developers/documentation/http/documentation (errors, "Dropbox-API-Arg").
 */
import type { z } from 'zod';
import { ProviderError, type ProviderCall, type ProviderRequest, type ProviderResponse } from '../port.ts';

/** An endpoint error (409): the summary's tags, outermost first, without the trailing dots. */
export interface DropboxEndpointError {
  tags: string[];
  /** `error.retry_after` of a RateLimitError, in seconds, when present. */
  retryAfterSeconds: number | null;
}

/** A route's successful answer, or its endpoint error for the caller to interpret. */
export type DropboxAnswer<T> = { ok: true; value: T; response: ProviderResponse } | { ok: false; error: DropboxEndpointError };

/** An endpoint URL below a host base (`https://api.dropboxapi.com` + `/2/files/list_folder`). */
export function routeUrl(base: string, route: string): string {
  return `${base.replace(/\/+$/, '')}/2/${route}`;
}

/**
 * JSON that may travel in an HTTP header: Dropbox requires every character from 0x7F up escaped as \uXXXX in
 * `Dropbox-API-Arg` (HTTP headers are not UTF-8; Node refuses to send such characters at all).
 */
export function headerSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The tags of an error summary: `path/conflict/file/...` gives ['path', 'conflict', 'file']. */
export function summaryTags(summary: string): string[] {
  return summary.split('/').filter((part) => part.length > 0 && !/^\.+$/.test(part));
}

/** Reads Dropbox's error body (`{"error_summary": ..., "error": ...}`); null when the body is not one. */
export function endpointError(response: ProviderResponse): DropboxEndpointError | null {
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    return null;
  }
  if (!body || typeof body !== 'object') return null;
  const { error_summary: summary, error } = body as { error_summary?: unknown; error?: unknown };
  if (typeof summary !== 'string') return null;
  const retryAfter = error && typeof error === 'object' ? (error as { retry_after?: unknown }).retry_after : undefined;
  return { tags: summaryTags(summary), retryAfterSeconds: typeof retryAfter === 'number' && retryAfter >= 0 ? retryAfter : null };
}

/** Parses a JSON text with a schema; an answer of another shape is a `protocol` failure. */
export function parseAnswer<T>(raw: string, schema: z.ZodType<T>, route: string): T {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new ProviderError('protocol', `Dropbox answered ${route} with something that is not JSON.`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ProviderError('protocol', `Dropbox answered ${route} in an unexpected shape.`);
  return parsed.data;
}

/** Sends one request and sorts the answer: 2xx parsed, 409 returned as an endpoint error, anything else thrown. */
async function exchange<T>(call: ProviderCall, route: string, request: ProviderRequest, read: (response: ProviderResponse) => T): Promise<DropboxAnswer<T>> {
  const response = await call.send(request);
  if (response.status >= 200 && response.status <= 299) return { ok: true, value: read(response), response };
  if (response.status === 409) {
    const error = endpointError(response);
    if (error) return { ok: false, error };
  }
  throw httpFailure(route, response);
}

/** An RPC endpoint on the API host: JSON argument in the body (none for Void routes), JSON result. */
export function rpc<T>(call: ProviderCall, route: string, arg: unknown, schema: z.ZodType<T>, options: Pick<ProviderRequest, 'once'> = {}): Promise<DropboxAnswer<T>> {
  const request: ProviderRequest = {
    method: 'POST',
    url: routeUrl(call.urls.api, route),
    // Void routes take no body and no Content-Type (an empty JSON body is refused).
    ...(arg === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(arg) }),
    ...options,
  };
  return exchange(call, route, request, (response) => parseAnswer(response.body.toString('utf8'), schema, route));
}

/** A download-style endpoint on the content host: argument in `Dropbox-API-Arg`, bytes in the body, result in `Dropbox-API-Result`. */
export function contentDownload<T>(call: ProviderCall, route: string, arg: unknown, schema: z.ZodType<T>, maxBytes: number): Promise<DropboxAnswer<{ result: T; content: Buffer }>> {
  const request: ProviderRequest = { method: 'POST', url: routeUrl(call.urls.content, route), headers: { 'dropbox-api-arg': headerSafeJson(arg) }, maxBytes };
  return exchange(call, route, request, (response) => {
    const header = response.headers['dropbox-api-result'];
    if (header === undefined) throw new ProviderError('protocol', `Dropbox answered ${route} without its Dropbox-API-Result header.`);
    return { result: parseAnswer(header, schema, route), content: response.body };
  });
}

/** An upload-style endpoint on the content host: argument in `Dropbox-API-Arg`, bytes in the body, JSON result. */
export function contentUpload<T>(call: ProviderCall, route: string, arg: unknown, content: Buffer, schema: z.ZodType<T>): Promise<DropboxAnswer<T>> {
  const request: ProviderRequest = {
    method: 'POST',
    url: routeUrl(call.urls.content, route),
    headers: { 'dropbox-api-arg': headerSafeJson(arg), 'content-type': 'application/octet-stream' },
    body: content,
  };
  return exchange(call, route, request, (response) => parseAnswer(response.body.toString('utf8'), schema, route));
}

/** Whether an endpoint error's summary holds a tag (at any depth). */
export function hasTag(error: DropboxEndpointError, ...tags: string[]): boolean {
  return error.tags.some((tag) => tags.includes(tag));
}

/** The usual meaning of an endpoint error, for errors a route does not interpret itself. */
export function endpointFailure(route: string, error: DropboxEndpointError): ProviderError {
  const summary = error.tags.join('/');
  if (hasTag(error, 'not_found', 'not_file', 'not_folder')) return new ProviderError('not_found', `Dropbox found nothing usable at the path (${route}: ${summary}).`, { status: 409 });
  if (hasTag(error, 'conflict')) return new ProviderError('conflict', `Dropbox refused ${route}: something else is at the path now (${summary}).`, { status: 409 });
  if (hasTag(error, 'too_many_write_operations')) return new ProviderError('rate_limited', `Dropbox has too many writes in progress for this account (${route}).`, { status: 409, retryAfterMs: 1000 });
  if (hasTag(error, 'payload_too_large')) return new ProviderError('too_large', `The file is larger than Dropbox's ${route} accepts.`, { status: 409 });
  if (hasTag(error, 'malformed_path', 'disallowed_name')) return new ProviderError('invalid', `Dropbox does not accept this path (${route}: ${summary}).`, { status: 409 });
  if (hasTag(error, 'no_write_permission', 'insufficient_space', 'team_folder', 'operation_suppressed', 'access_restricted', 'restricted_content', 'locked', 'encryption_not_supported')) {
    return new ProviderError('forbidden', `Dropbox does not allow ${route} here (${summary}).`, { status: 409 });
  }
  return new ProviderError('protocol', `Dropbox answered ${route} with an error kgate does not know (${summary}).`, { status: 409 });
}

/** The meaning of an answer that is neither a success nor an endpoint error. */
export function httpFailure(route: string, response: ProviderResponse): ProviderError {
  const status = response.status;
  const error = endpointError(response);
  if (status === 400) {
    // Dropbox explains a malformed call in plain text; it names the route and field, never a credential.
    const reason = response.body.toString('utf8').slice(0, 300).replace(/\s+/g, ' ').trim();
    return new ProviderError('invalid', `Dropbox refused ${route} as malformed: ${reason}`, { status });
  }
  if (status === 401) {
    if (error && hasTag(error, 'missing_scope')) return new ProviderError('forbidden', `The Dropbox connection lacks the permission ${route} needs.`, { status });
    return new ProviderError('unauthorized', 'Dropbox did not accept the access token.', { status });
  }
  if (status === 403) return new ProviderError('forbidden', `Dropbox does not allow ${route} for this account.`, { status });
  if (status === 429) {
    const seconds = error?.retryAfterSeconds ?? Number(response.headers['retry-after'] ?? NaN);
    return new ProviderError('rate_limited', 'Dropbox is rate limiting these requests.', { status, ...(Number.isFinite(seconds) ? { retryAfterMs: seconds * 1000 } : {}) });
  }
  if (status >= 500) return new ProviderError('unavailable', `Dropbox failed to answer ${route} (${status}).`, { status });
  if (status === 409) return new ProviderError('protocol', `Dropbox answered ${route} with an unreadable error.`, { status });
  return new ProviderError('protocol', `Dropbox answered ${route} with status ${status}.`, { status });
}
