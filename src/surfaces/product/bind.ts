import type { Context } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import { parseJsonBody } from '../http/body.ts';
import type { HttpEnv } from '../http/context.ts';
import { fromQuery } from '../rest/bind.ts';
import type { ProductRoute } from './routes.ts';

/** Fields and headers by which a caller would claim an audience, a brand or a grant: never accepted (spec 1.6). */
const CLAIMED_AUTHORITY_FIELDS = ['audience', 'brand', 'grant', 'grants', 'hostname'] as const;
const CLAIMED_AUTHORITY_HEADERS = ['x-service-audience', 'x-service-brand', 'x-service-grant'] as const;

/** The JSON body of a POST route, parsed once (read and bounded before authentication). */
export function jsonBodyOf(c: Context<HttpEnv>): Record<string, unknown> {
  const type = c.req.header('content-type') ?? '';
  const bytes = c.get('body');
  if (!bytes || bytes.length === 0) return {};
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new KgateError('invalid_request', 'Send the body as JSON with Content-Type: application/json.');
  }
  const body = parseJsonBody(bytes);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new KgateError('invalid_request', 'The body must be a JSON object.');
  return body as Record<string, unknown>;
}

/**
 * Refuses a request that tries to supply an audience, a brand or a grant, in a header, the query or the body: those
 * come only from server records (spec 1.6 and 5 rule 6), and a silent ignore would let a caller believe otherwise.
 */
export function refuseClaimedAuthority(c: Context<HttpEnv>, body: Record<string, unknown> | undefined): void {
  const header = CLAIMED_AUTHORITY_HEADERS.find((h) => c.req.header(h) !== undefined);
  const query = CLAIMED_AUTHORITY_FIELDS.find((f) => c.req.query(f) !== undefined);
  const field = body ? CLAIMED_AUTHORITY_FIELDS.find((f) => f in body) : undefined;
  const claimed = header ?? query ?? field;
  if (claimed !== undefined) {
    throw new KgateError(
      'client_audience_refused',
      `"${claimed}" cannot be supplied by a caller: the audience, the brand and the grants of a call come only from the server's records.`,
      { field: claimed },
    );
  }
}

/**
 * Collects an operation's raw input from a product route: `{name}` path segments, query fields (converted to their
 * kinds) or body fields (unknown fields refused: undocumented fields are unavailable), and, on a vault route, the
 * mapping the chain resolved for the vault, which the caller may not send.
 */
export function bindProductInput(c: Context<HttpEnv>, route: ProductRoute, body: Record<string, unknown> | undefined, mappingId: string | undefined): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of route.pathFields) input[field] = c.req.param(field);
  for (const [name, kind] of Object.entries(route.query)) {
    if (kind === 'list') {
      const values = c.req.queries(name);
      if (values !== undefined && values.length > 0) input[name] = values;
      continue;
    }
    const value = c.req.query(name);
    if (value !== undefined) input[name] = fromQuery(value, kind);
  }
  if (route.binding.vault && (c.req.query('mappingId') !== undefined || (body && 'mappingId' in body))) {
    throw new KgateError('invalid_request', 'The route names the vault; mappingId is not accepted here.', { field: 'mappingId' });
  }
  if (body) {
    const unknown = Object.keys(body).filter((key) => !route.body.includes(key));
    if (unknown.length > 0) throw new KgateError('invalid_request', `Unknown body field(s): ${unknown.join(', ')}.`, { fields: unknown });
    Object.assign(input, body);
  }
  if (mappingId !== undefined) input.mappingId = mappingId;
  return input;
}
