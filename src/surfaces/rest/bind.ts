import type { Context } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import type { QueryKind, RestRoute } from './routes.ts';

/** The header that names a mapping (spec 4.6). */
export const MAPPING_HEADER = 'X-Service-Mapping';

function fromQuery(value: string, kind: QueryKind): unknown {
  // Values that do not convert are passed on as strings, so that schema validation names the field.
  if (kind === 'integer') return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  if (kind === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

async function jsonBody(c: Context<HttpEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new KgateError('invalid_request', 'Send the body as JSON with Content-Type: application/json.');
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new KgateError('invalid_request', 'The body is not valid JSON.');
  }
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

/** The note path of a `/notes/{category}/{filename}` route: exactly two decoded segments. */
function notePathOf(c: Context<HttpEnv>): string {
  const category = c.req.param('category');
  const filename = c.req.param('filename');
  if (!category || !filename || category.includes('/') || filename.includes('/')) {
    throw new KgateError('invalid_path', 'This route takes exactly two path segments: a folder and a file name.', {
      reason: 'segments',
    });
  }
  return `${category}/${filename}`;
}

/**
 * Collects an operation's raw input from the request, as the route declares: query fields (converted to their
 * kinds), JSON body fields (unknown fields are rejected: undocumented fields are unavailable), the mapping from the
 * query, the body or X-Service-Mapping (they must agree), the note path from two segments, and If-Match.
 */
export async function bindInput(c: Context<HttpEnv>, route: RestRoute): Promise<Record<string, unknown>> {
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
    const body = await jsonBody(c);
    const unknown = Object.keys(body).filter((key) => !route.body.includes(key));
    if (unknown.length > 0) {
      throw new KgateError('invalid_request', `Unknown body field(s): ${unknown.join(', ')}.`, { fields: unknown });
    }
    Object.assign(input, body);
  }
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
  if (route.notePathParams) input.path = notePathOf(c);
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
