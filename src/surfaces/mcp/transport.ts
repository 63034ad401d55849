import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { KgateError } from '../../kernel/errors.ts';
import type { AuthenticatedPrincipal, TokensService } from '../../domains/tokens/index.ts';
import { isOAuthAccessToken, type OAuthService } from '../../domains/oauth/index.ts';
import type { UsageService } from '../../domains/usage/index.ts';
import type { Logger } from '../../logger.ts';
import { bearerChallenge, bearerTokenOf } from '../http/auth.ts';
import { type NodeHandler, logRequest, readBody, requestIdOf, send } from '../http/node-exchange.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { JSONRPC, JsonRpcError, KNOWN_METHODS, PreserializedResult, discoveryDocument, dispatch, requiredScope } from './dispatcher.ts';
import { BATCH_VERSION, DEFAULT_HEADER_VERSION, PROTOCOL_VERSIONS } from './protocol.ts';
import type { ToolContext } from './tool.ts';

/** What the MCP gateway needs. */
export interface McpDependencies {
  tokens: TokensService;
  /** Resolves OAuth access tokens (audience-bound to this resource); personal access tokens go to `tokens`. */
  oauth: Pick<OAuthService, 'authenticateAccessToken'>;
  usage: UsageService;
  services: ToolContext['services'];
  version: string;
  /** Public base URL ('' when only known after binding); used for the resource metadata URL and origin checks. */
  baseUrl: string;
  logger: Logger;
}

/** The largest request body the gateway reads: the same bound as the REST API's. */
export const MAX_MCP_BODY_BYTES = 8 * 1024 * 1024;

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: Record<string, unknown> };
type Reply = { jsonrpc: '2.0'; id?: unknown; result?: unknown; error?: unknown };

const LEGACY_METHODS = new Set(['server/discover', 'tools/list', 'tools/call']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const JSON_TYPE = 'application/json';

/** One JSON-RPC reply as text; a preserialized result is spliced in as is. */
function serializeReply(reply: Reply): string {
  if (reply.result instanceof PreserializedResult) {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(reply.id)},"result":${reply.result.json}}`;
  }
  return JSON.stringify(reply);
}

function rpcError(id: unknown, code: number, message: string, data?: Record<string, unknown>): Reply {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } };
}

/**
 * DNS-rebinding protection (transport spec "Security Warning"): a browser page on another origin, or a request
 * whose Host is not ours, is refused. Allowed: the configured base URL's host and origin, and loopback names.
 */
function foreignRequest(req: IncomingMessage, base: URL | undefined): boolean {
  const host = req.headers.host;
  if (host) {
    const name = host.replace(/:\d+$/, '').toLowerCase();
    if (!LOOPBACK.has(name) && name !== base?.hostname.toLowerCase()) return true;
  }
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    const url = new URL(origin);
    return !(LOOPBACK.has(url.hostname.toLowerCase()) || (base !== undefined && url.origin === base.origin));
  } catch {
    return true;
  }
}

function acceptsStreamableHttp(accept: string | undefined): boolean {
  const value = (accept ?? '').toLowerCase();
  return (value.includes('application/json') || value.includes('*/*')) && (value.includes('text/event-stream') || value.includes('*/*'));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The outcome of one POST: status, extra headers and the body text (none for 202). */
interface Outcome {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  principal?: AuthenticatedPrincipal;
}

const reply = (status: number, payload: Reply, headers?: Record<string, string>): Outcome => ({
  status,
  body: serializeReply(payload),
  ...(headers ? { headers } : {}),
});

/**
 * The hosted MCP gateway: stateless Streamable HTTP at POST /api/mcp, answered with JSON (no event stream), plus
 * legacy discovery on GET. One JSON-RPC message per POST, or a batch for protocol 2025-03-26.
 *
 * It runs on Node's request and response objects rather than as a Hono route: agents call it far more often than
 * anything else, and the web Request/Response adapter cost more per call than the whole MCP exchange
 * (docs/benchmarks.md). Request ids and log lines are the same as on the other routes.
 */
export function mcpGateway(deps: McpDependencies): NodeHandler {
  const base = deps.baseUrl ? new URL(deps.baseUrl) : undefined;
  const resourceMetadata = `${deps.baseUrl}/.well-known/oauth-protected-resource/api/mcp`;

  async function post(req: IncomingMessage): Promise<Outcome> {
    let principal: AuthenticatedPrincipal;
    try {
      const bearer = bearerTokenOf(header(req, 'authorization'));
      principal = await (isOAuthAccessToken(bearer) ? deps.oauth.authenticateAccessToken(bearer) : deps.tokens.authenticate(bearer));
    } catch (error) {
      if (error instanceof KgateError && error.code === 'unauthenticated') {
        const challenge = bearerChallenge(req.headers.authorization !== undefined, { resource_metadata: resourceMetadata });
        return reply(401, rpcError(null, JSONRPC.invalidRequest, error.message, { code: error.code }), { 'WWW-Authenticate': challenge });
      }
      if (error instanceof KgateError) return reply(HTTP_STATUS[error.code], rpcError(null, JSONRPC.invalidRequest, error.message, { code: error.code }));
      throw error;
    }
    const withPrincipal = (outcome: Outcome): Outcome => ({ ...outcome, principal });
    if (!principal.entitlements.hostedMcp) {
      return withPrincipal(reply(403, rpcError(null, JSONRPC.invalidRequest, 'Your plan does not include the hosted MCP gateway.', { code: 'plan_required' })));
    }

    let body: unknown;
    try {
      const raw = await readBody(req, MAX_MCP_BODY_BYTES);
      body = JSON.parse(raw.toString('utf8'));
    } catch (error) {
      if (error instanceof KgateError) {
        return withPrincipal(reply(413, rpcError(null, JSONRPC.invalidRequest, error.message, { code: error.code }), { Connection: 'close' }));
      }
      return withPrincipal(reply(400, rpcError(null, JSONRPC.parseError, 'Parse error: the body is not JSON')));
    }
    // Legacy bridges may name the method in headers and send the params (or a tool's arguments) as the body.
    const headerMethod = header(req, 'mcp-method');
    if (headerMethod && body && typeof body === 'object' && !Array.isArray(body) && !('jsonrpc' in body)) {
      const name = header(req, 'mcp-name');
      body = { jsonrpc: '2.0', id: 'mcp-method', method: headerMethod, params: headerMethod === 'tools/call' ? { name, arguments: body } : body };
    }
    const messages = Array.isArray(body) ? body : [body];
    const first = messages[0] as Message | undefined;
    const isInitialize = !Array.isArray(body) && first?.method === 'initialize';

    if (!acceptsStreamableHttp(header(req, 'accept'))) {
      const legacy = !isInitialize && messages.every((m) => LEGACY_METHODS.has((m as Message)?.method ?? ''));
      if (!legacy) {
        return withPrincipal(reply(406, rpcError(first?.id, JSONRPC.invalidRequest, 'Not Acceptable: accept both application/json and text/event-stream')));
      }
    }
    const headerVersion = header(req, 'mcp-protocol-version');
    const version = isInitialize ? undefined : (headerVersion ?? DEFAULT_HEADER_VERSION);
    if (version !== undefined && !PROTOCOL_VERSIONS.includes(version)) {
      return withPrincipal(reply(400, rpcError(first?.id, JSONRPC.invalidRequest, `Unsupported MCP-Protocol-Version: ${version}`)));
    }
    if (Array.isArray(body) && (version !== BATCH_VERSION || body.length === 0)) {
      return withPrincipal(reply(400, rpcError(null, JSONRPC.invalidRequest, `JSON-RPC batches are only part of protocol ${BATCH_VERSION}`)));
    }

    const replies: Reply[] = [];
    const headers: Record<string, string> = {};
    let status = 200;
    for (const raw of messages) {
      const parsed = JSONRPCMessageSchema.safeParse(raw);
      if (!parsed.success) {
        replies.push(rpcError((raw as Message | undefined)?.id, JSONRPC.invalidRequest, 'Invalid JSON-RPC message'));
        status = 400;
        continue;
      }
      const message = parsed.data as Message;
      if (message.method === undefined || message.id === undefined) continue; // notifications and responses: 202
      if (!KNOWN_METHODS.has(message.method)) {
        replies.push(rpcError(message.id, JSONRPC.methodNotFound, `Method not found: ${message.method}`));
        continue;
      }
      // An OAuth token calls only what its scopes allow (spec 5). Like other authorization rejections this happens
      // before the allowance is touched, and the challenge tells the client which scope to ask for (step-up).
      const scope = requiredScope(message.method, message.params);
      if (scope && principal.oauth && !principal.oauth.scopes.includes(scope)) {
        const description = `This tool needs the ${scope} scope, which the access token was not granted.`;
        headers['WWW-Authenticate'] = bearerChallenge(false, {
          error: 'insufficient_scope',
          scope,
          resource_metadata: resourceMetadata,
          error_description: description,
        });
        if (!Array.isArray(body)) status = 403;
        replies.push(rpcError(message.id, JSONRPC.invalidRequest, description, { code: 'insufficient_scope', scope }));
        continue;
      }
      try {
        // A recognized operation reserves one unit of the MCP allowance before it runs (spec 8 rule 2).
        const { mcpOperationsPerMinute, mcpOperationsPerMonth } = principal.entitlements;
        await deps.usage.reserve(principal.accountId, 'mcp', { perMinute: mcpOperationsPerMinute, perMonth: mcpOperationsPerMonth });
        const result = await dispatch(message.method, message.params ?? {}, { principal, services: deps.services, serverVersion: deps.version });
        replies.push({ jsonrpc: '2.0', id: message.id, result });
      } catch (error) {
        if (error instanceof JsonRpcError) replies.push(rpcError(message.id, error.code, error.message, error.data));
        else if (error instanceof KgateError) {
          const retryAfter = error.details?.retryAfterSeconds;
          if (typeof retryAfter === 'number') headers['Retry-After'] = String(retryAfter);
          if (!Array.isArray(body)) status = HTTP_STATUS[error.code];
          replies.push(rpcError(message.id, JSONRPC.invalidRequest, error.message, { code: error.code, ...(error.details ?? {}) }));
        } else throw error;
      }
    }
    if (replies.length === 0) return { status: 202, principal };
    const text = Array.isArray(body) ? `[${replies.map(serializeReply).join(',')}]` : serializeReply(replies[0]!);
    return { status, headers, body: text, principal };
  }

  async function route(req: IncomingMessage): Promise<Outcome> {
    if (req.method === 'GET' || req.method === 'POST') {
      if (foreignRequest(req, base)) return reply(403, rpcError(null, JSONRPC.invalidRequest, 'Forbidden origin or host'));
    }
    if (req.method === 'POST') return post(req);
    if (req.method === 'GET') {
      // Legacy discovery for clients that ask for JSON; there is no standalone event stream (spec 6.1).
      if ((header(req, 'accept') ?? '').includes('application/json')) {
        return { status: 200, body: JSON.stringify(discoveryDocument(deps.version)) };
      }
      return { status: 405, headers: { Allow: 'POST' } };
    }
    return { status: 405, headers: { Allow: 'GET, POST' } };
  }

  return async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const reqId = requestIdOf(header(req, 'x-request-id'));
    let outcome: Outcome;
    try {
      outcome = await route(req);
    } catch (error) {
      // Log the failure without the request: it may hold tokens or note content.
      const err = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { message: String(error) };
      deps.logger.error({ reqId, err }, 'unhandled error');
      outcome = reply(500, rpcError(null, JSONRPC.internalError, 'An unexpected error occurred; the request id identifies it in the logs.', { code: 'internal' }));
    }
    const headers: Record<string, string> = { 'X-Request-Id': reqId, ...outcome.headers };
    if (outcome.body !== undefined) headers['Content-Type'] = JSON_TYPE;
    send(res, outcome.status, headers, outcome.body);
    logRequest(deps.logger, { reqId, method: req.method ?? '', path: '/api/mcp', status: outcome.status, started, accountId: outcome.principal?.accountId });
  };
}
