import type { Context } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import { parseJsonBody } from '../http/body.ts';
import type { HttpEnv } from '../http/context.ts';
import type { QueryKind, RestRoute } from './routes.ts';

/** The header that names a mapping (spec 4.6). */
export const MAPPING_HEADER = 'X-Service-Mapping';

/** A query-string value as the kind its field expects (also used by the Product Runtime). */
export function fromQuery(value: string, kind: QueryKind): unknown {
  // Values that do not convert are passed on as strings, so that schema validation names the field.
  if (kind === 'integer') return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  if (kind === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

/** Largest request body of the Developer REST API: a 100-action transaction of typical notes fits many times. */
export const MAX_REST_BODY_BYTES = 8 * 1024 * 1024;

function jsonBody(c: Context<HttpEnv>): Record<string, unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new KgateError('invalid_request', 'Send the body as JSON with Content-Type: application/json.');
  }
  // Read and bounded before authentication (dev-api.ts); parsed here, once the call is admitted.
  const body = parseJsonBody(c.get('body') ?? Buffer.alloc(0));
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new KgateError('invalid_request', 'The body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

// RFC 9110 s8.8.3: an entity tag is a quoted string, optionally weak; we also accept the bare hash for scripts.
function entityTagValue(header: string): string {
  const trimmed = header.trim();
  const match = /^(?:W\/)?"([^"]*)"$/.exec(trimmed);
  return match ? match[1]! : trimmed;
}

/** Where a note at any depth is read or deleted instead of a two-segment route. */
const OTHER_DEPTHS: Record<string, string> = {
  GET: 'read it with GET /api/dev/notes/by-path?path=...',
  DELETE: 'delete it with POST /api/dev/transactions and a delete-note action',
};

/**
 * The note path of a `/notes/{category}/{filename}` route: exactly two decoded segments (spec 4.6). A request for a
 * note at another depth reaches the same operation through a catch-all route and is refused with the rule and the
 * route that takes any depth.
 */
function notePathOf(c: Context<HttpEnv>): string {
  const category = c.req.param('category');
  const filename = c.req.param('filename');
  if (!category || !filename || category.includes('/') || filename.includes('/')) {
    const alternative = OTHER_DEPTHS[c.req.method] ?? 'use POST /api/dev/transactions';
    throw new KgateError(
      'invalid_path',
      `This route takes exactly two path segments, a folder and a file name (/notes/{folder}/{file}.md); for a note at another depth, ${alternative}.`,
      { reason: 'segments' },
    );
  }
  return `${category}/${filename}`;
}

/** The mapping from the query, the body or X-Service-Mapping (spec 4.6); when more than one names it, they must agree. */
function bindMapping(c: Context<HttpEnv>, input: Record<string, unknown>): void {
  if (input.mappingId !== undefined && typeof input.mappingId !== 'string') {
    throw new KgateError('invalid_request', 'mappingId must be a string (a UUID).', { field: 'mappingId' });
  }
  const candidates = [c.req.query('mappingId'), typeof input.mappingId === 'string' ? input.mappingId : undefined, c.req.header(MAPPING_HEADER)]
    .filter((v): v is string => v !== undefined && v !== '');
  if (new Set(candidates.map((v) => v.toLowerCase())).size > 1) {
    throw new KgateError('invalid_request', `mappingId, the body's mappingId and ${MAPPING_HEADER} name different mappings.`, {
      field: 'mappingId',
    });
  }
  if (candidates[0] !== undefined) input.mappingId = candidates[0];
}

/**
 * Collects an operation's raw input from the request, as the route declares: query fields (converted to their
 * kinds), path fields, JSON body fields (unknown fields are rejected: undocumented fields are unavailable), the mapping from the
 * query, the body or X-Service-Mapping (they must agree), the note path from two segments, and If-Match.
 */
export function bindInput(c: Context<HttpEnv>, route: RestRoute): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(route.query)) {
    if (kind === 'list') {
      // OpenAPI's default for arrays in the query (style form, explode): the name repeated, `tags=a&tags=b`.
      const values = c.req.queries(name);
      if (values !== undefined && values.length > 0) input[name] = values;
      continue;
    }
    const value = c.req.query(name);
    if (value !== undefined) input[name] = fromQuery(value, kind);
  }
  if (route.body.length > 0) {
    const body = jsonBody(c);
    const unknown = Object.keys(body).filter((key) => !route.body.includes(key));
    if (unknown.length > 0) {
      throw new KgateError('invalid_request', `Unknown body field(s): ${unknown.join(', ')}.`, { fields: unknown });
    }
    Object.assign(input, body);
  }
  for (const name of route.pathFields) input[name] = c.req.param(name);
  if (route.mappingAnywhere) bindMapping(c, input);
  if (route.binding.notePathFromSegments) input.path = notePathOf(c);
  const ifMatch = c.req.header('if-match');
  if (route.ifMatch && ifMatch !== undefined) {
    // RFC 9110 s13.1.1: If-Match uses the strong comparison, so a weak tag never matches.
    if (/^\s*W\//.test(ifMatch)) {
      throw new KgateError('stale_revision', 'If-Match needs a strong entity tag (the revision without W/).');
    }
    const fromHeader = entityTagValue(ifMatch);
    if (input.expectedHash !== undefined && input.expectedHash !== fromHeader) {
      throw new KgateError('invalid_request', 'expectedHash and If-Match disagree.', { field: 'expectedHash' });
    }
    input.expectedHash = fromHeader;
  }
  return input;
}

/** True when any entity tag in an If-None-Match header matches `revision` (weak comparison, RFC 9110 s13.1.2). */
export function ifNoneMatchHits(header: string | undefined, revision: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => entityTagValue(tag) === revision);
}

/** True when the client prefers Markdown over JSON (Accept with q-values; JSON wins ties and absence). */
export function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept) return false;
  let markdown = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.trim().toLowerCase().split(';');
    const q = Number(params.map((p) => p.trim()).find((p) => p.startsWith('q='))?.slice(2) ?? '1');
    const quality = Number.isFinite(q) ? q : 0;
    if (type === 'text/markdown') markdown = Math.max(markdown, quality);
    if (type === 'application/json' || type === '*/*' || type === 'application/*') json = Math.max(json, type === 'application/json' ? quality : quality * 0.99);
  }
  return markdown > 0 && markdown > json;
}
