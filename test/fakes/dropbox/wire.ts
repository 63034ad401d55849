/**
 * How the fake Dropbox talks HTTP: Dropbox's error bodies (`error_summary` + tagged `error`), its plain-text 400s,
 * header-safe JSON for `Dropbox-API-Arg` / `Dropbox-API-Result`, and request bodies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A JSON value as Dropbox's API carries it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An answer the router writes: status, headers and body. */
export interface FakeAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A JSON answer (200 unless told). */
export function json(value: Json, status = 200, headers: Record<string, string> = {}): FakeAnswer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(value)) };
}

/** A plain-text answer, as Dropbox sends for malformed requests (400) and its own failures. */
export function text(status: number, message: string, headers: Record<string, string> = {}): FakeAnswer {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body: Buffer.from(message) };
}

/** Dropbox's 400 for a request it cannot decode: `Error in call to API function "<route>": <why>`. */
export function badInput(route: string, why: string): FakeAnswer {
  return text(400, `Error in call to API function "${route}": ${why}`);
}

/**
 * An endpoint error (409): the tagged union as JSON and its `error_summary`, the tags joined by '/' and ended with
 * dots, as Dropbox writes them (`path/not_found/..`).
 */
export function endpointError(error: { [key: string]: Json }, status = 409): FakeAnswer {
  return json({ error_summary: `${summaryOf(error).join('/')}/..`, error }, status);
}

/**
 * The tags of a nested tagged union, outermost first. A variant holding a union nests it under the tag's name; a
 * variant holding a struct inlines the struct's fields, of which `reason` carries the next union (UploadWriteFailed,
 * RateLimitError).
 */
function summaryOf(value: Json | undefined): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const tag = value['.tag'];
  if (typeof tag !== 'string') return summaryOf(value.reason);
  return [tag, ...(value[tag] !== undefined ? summaryOf(value[tag]) : summaryOf(value.reason))];
}

/** A LookupError under the route's own tag (`path`, `path_lookup`). */
export function lookupError(outer: string, lookup: 'not_found' | 'not_file' | 'not_folder' | 'malformed_path'): FakeAnswer {
  return endpointError({ '.tag': outer, [outer]: { '.tag': lookup } });
}

/**
 * JSON safe for an HTTP header: Dropbox requires every character above 0x7E (and DEL) escaped as \uXXXX in
 * `Dropbox-API-Arg`, and answers `Dropbox-API-Result` the same way.
 */
export function headerSafeJson(value: Json): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Reads the whole request body (the fake serves tests; bodies are small). */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Writes an answer. */
export function send(res: ServerResponse, answer: FakeAnswer): void {
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
  res.end(answer.body);
}

/** A decoded JSON object argument, or the 400 Dropbox gives for it. */
export type ArgResult = { ok: true; arg: Record<string, Json> } | { ok: false; answer: FakeAnswer };

/** Checks an argument object against the fields a route knows: Dropbox refuses unknown fields. */
export function checkFields(route: string, arg: Json, known: readonly string[]): ArgResult {
  if (arg === null || typeof arg !== 'object' || Array.isArray(arg)) {
    return { ok: false, answer: badInput(route, 'request body: expected object') };
  }
  for (const key of Object.keys(arg)) {
    if (!known.includes(key)) return { ok: false, answer: badInput(route, `request body: unknown field '${key}'`) };
  }
  return { ok: true, arg };
}

/** Parses JSON text, or null when it is not JSON. */
export function parseJson(raw: string): { value: Json } | null {
  try {
    return { value: JSON.parse(raw) as Json };
  } catch {
    return null;
  }
}
