import type { Context } from 'hono';
import { Hono } from 'hono';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { KgateError } from '../../kernel/errors.ts';
import type { TokensService } from '../../domains/tokens/index.ts';
import type { UsageService } from '../../domains/usage/index.ts';
import { bearerChallenge, bearerToken } from '../http/auth.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { JSONRPC, JsonRpcError, KNOWN_METHODS, discoveryDocument, dispatch } from './dispatcher.ts';
import { BATCH_VERSION, DEFAULT_HEADER_VERSION, PROTOCOL_VERSIONS } from './protocol.ts';
import type { ToolContext } from './tool.ts';

/** What the MCP gateway needs. */
export interface McpDependencies {
  tokens: TokensService;
  usage: UsageService;
  services: ToolContext['services'];
  version: string;
  /** Public base URL ('' when only known after binding); used for the resource metadata URL and origin checks. */
  baseUrl: string;
}

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: Record<string, unknown> };

const LEGACY_METHODS = new Set(['server/discover', 'tools/list', 'tools/call']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function rpcError(id: unknown, code: number, message: string, data?: Record<string, unknown>) {
  return { jsonrpc: '2.0' as const, id: id ?? null, error: { code, message, ...(data ? { data } : {}) } };
}

/**
 * DNS-rebinding protection (transport spec "Security Warning"): a browser page on another origin, or a request
 * whose Host is not ours, is refused. Allowed: the configured base URL's host and origin, and loopback names.
 */
function foreignRequest(c: Context<HttpEnv>, baseUrl: string): boolean {
  const base = baseUrl ? new URL(baseUrl) : undefined;
  const host = c.req.header('host');
  if (host) {
    const name = host.replace(/:\d+$/, '').toLowerCase();
    if (!LOOPBACK.has(name) && name !== base?.hostname.toLowerCase()) return true;
  }
  const origin = c.req.header('origin');
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

/**
 * The hosted MCP gateway: stateless Streamable HTTP at POST /api/mcp, answered with JSON (no event stream), plus
 * legacy discovery on GET. One JSON-RPC message per POST, or a batch for protocol 2025-03-26.
 */
export function mcpGateway(deps: McpDependencies): Hono<HttpEnv> {
  const mcp = new Hono<HttpEnv>();
  const resourceMetadata = `${deps.baseUrl}/.well-known/oauth-protected-resource/api/mcp`;

  mcp.get('/', (c) => {
    if (foreignRequest(c, deps.baseUrl)) return c.json(rpcError(null, JSONRPC.invalidRequest, 'Forbidden origin or host'), 403);
    // Legacy discovery for clients that ask for JSON; there is no standalone event stream (spec 6.1).
    if ((c.req.header('accept') ?? '').includes('application/json')) return c.json(discoveryDocument(deps.version));
    return c.body(null, 405, { Allow: 'POST' });
  });
  mcp.on(['PUT', 'PATCH', 'DELETE'], '/', (c) => c.body(null, 405, { Allow: 'GET, POST' }));

  mcp.post('/', async (c) => {
    if (foreignRequest(c, deps.baseUrl)) return c.json(rpcError(null, JSONRPC.invalidRequest, 'Forbidden origin or host'), 403);
    let principal;
    try {
      principal = await deps.tokens.authenticate(bearerToken(c));
    } catch (error) {
      if (error instanceof KgateError && error.code === 'unauthenticated') {
        c.header('WWW-Authenticate', bearerChallenge(c.req.header('authorization') !== undefined, { resource_metadata: resourceMetadata }));
        return c.json(rpcError(null, JSONRPC.invalidRequest, error.message, { code: error.code }), 401);
      }
      if (error instanceof KgateError) return c.json(rpcError(null, JSONRPC.invalidRequest, error.message, { code: error.code }), HTTP_STATUS[error.code]);
      throw error;
    }
    c.set('principal', principal);
    if (!principal.entitlements.hostedMcp) {
      return c.json(rpcError(null, JSONRPC.invalidRequest, 'Your plan does not include the hosted MCP gateway.', { code: 'plan_required' }), 403);
    }

    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(rpcError(null, JSONRPC.parseError, 'Parse error: the body is not JSON'), 400);
    }
    // Legacy bridges may name the method in headers and send the params (or a tool's arguments) as the body.
    const headerMethod = c.req.header('mcp-method');
    if (headerMethod && body && typeof body === 'object' && !Array.isArray(body) && !('jsonrpc' in body)) {
      const name = c.req.header('mcp-name');
      body = { jsonrpc: '2.0', id: 'mcp-method', method: headerMethod, params: headerMethod === 'tools/call' ? { name, arguments: body } : body };
    }
    const messages = Array.isArray(body) ? body : [body];
    const first = messages[0] as Message | undefined;
    const isInitialize = !Array.isArray(body) && first?.method === 'initialize';

    if (!acceptsStreamableHttp(c.req.header('accept'))) {
      const legacy = !isInitialize && messages.every((m) => LEGACY_METHODS.has((m as Message)?.method ?? ''));
      if (!legacy) {
        return c.json(rpcError(first?.id, JSONRPC.invalidRequest, 'Not Acceptable: accept both application/json and text/event-stream'), 406);
      }
    }
    const headerVersion = c.req.header('mcp-protocol-version');
    const version = isInitialize ? undefined : (headerVersion ?? DEFAULT_HEADER_VERSION);
    if (version !== undefined && !PROTOCOL_VERSIONS.includes(version)) {
      return c.json(rpcError(first?.id, JSONRPC.invalidRequest, `Unsupported MCP-Protocol-Version: ${version}`), 400);
    }
    if (Array.isArray(body) && (version !== BATCH_VERSION || body.length === 0)) {
      return c.json(rpcError(null, JSONRPC.invalidRequest, `JSON-RPC batches are only part of protocol ${BATCH_VERSION}`), 400);
    }

    const replies: unknown[] = [];
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
          if (typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
          if (!Array.isArray(body)) status = HTTP_STATUS[error.code];
          replies.push(rpcError(message.id, JSONRPC.invalidRequest, error.message, { code: error.code, ...(error.details ?? {}) }));
        } else throw error;
      }
    }
    if (replies.length === 0) return c.body(null, 202);
    return c.json((Array.isArray(body) ? replies : replies[0]) as object, status as 200);
  });
  return mcp;
}
