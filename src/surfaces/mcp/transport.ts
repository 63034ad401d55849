import type { IncomingMessage, ServerResponse } from 'node:http';
import { KgateError } from '../../kernel/errors.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { Logger } from '../../logger.ts';
import type { Metrics } from '../../metrics.ts';
import { bearerChallenge } from '../http/auth.ts';
import { acceptsGzip } from '../http/gzip-prefix.ts';
import { sessionCookieName } from '../web/session.ts';
import { WEBMCP_HEADER, bridgeRefusal, cookieValue } from '../webmcp/bridge.ts';
import { type NodeHandler, logRequest, requestIdOf, send } from '../http/node-exchange.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import type { AnyOperation } from '../operations/operation.ts';
import { MCP_SURFACE, type SurfaceProfile } from '../invocation/surface.ts';
import { answerMessages, type Answers } from './answer.ts';
import { discoveryDocument } from './dispatcher.ts';
import { SERVER_INSTRUCTIONS } from './protocol.ts';
import { foreignRequest, header } from './http-edges.ts';
import { JSONRPC, replyBody, rpcError, serializeReply, type Reply } from './json-rpc.ts';
import { checkTransport, readMessages } from './messages.ts';
import { answerStateless, speaksStateless } from './stateless.ts';
import { toolCatalogue } from './tool-list.ts';

/** What the MCP gateway needs. */
export interface McpDependencies {
  pipeline: Pipeline;
  /** The operations whose MCP bindings this endpoint serves as tools. */
  operations: readonly AnyOperation[];
  version: string;
  /** Public base URL ('' when only known after binding); used for the resource metadata URL and origin checks. */
  baseUrl: string;
  logger: Logger;
  metrics?: Metrics | undefined;
  /** Where it is served, default `/api/mcp`; the product-only endpoint is `/api/intelligence/mcp` (spec 4.4). */
  path?: string;
  /** The surface profile of its calls, default the MCP gateway's. */
  surface?: SurfaceProfile;
  /** What initialize tells agents, default the MCP gateway's instructions. */
  instructions?: string;
}

/** The outcome of one request: status, extra headers and the body, text or UTF-8 bytes (none for 202 and 405). */
interface Outcome {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer | readonly Buffer[];
  principal?: AuthenticatedPrincipal;
}

const JSON_TYPE = 'application/json';

const reply = (status: number, payload: Reply, headers?: Record<string, string>): Outcome => ({
  status,
  body: serializeReply(payload),
  ...(headers ? { headers } : {}),
});

/**
 * The hosted MCP gateway: stateless Streamable HTTP at POST /api/mcp, answered with JSON (no event stream), plus
 * legacy discovery on GET. One JSON-RPC message per POST, or a batch for protocol 2025-03-26. A POST of the
 * 2026-07-28 revision (stateless.ts) is checked and answered by that revision's rules. A POST goes through
 * named steps: authenticate (the pipeline: credential, account, plan), read the messages, check the transport
 * rules, answer each message (tools through the pipeline), serialize.
 *
 * It runs on Node's request and response objects rather than as a Hono route: agents call it far more often than
 * anything else, and the web Request/Response adapter cost more per call than the whole MCP exchange
 * (docs/benchmarks.md). Request ids and log lines are the same as on the other routes.
 */
export function mcpGateway(deps: McpDependencies): NodeHandler {
  const base = deps.baseUrl ? new URL(deps.baseUrl) : undefined;
  const path = deps.path ?? '/api/mcp';
  const surface = deps.surface ?? MCP_SURFACE;
  const instructions = deps.instructions ?? SERVER_INSTRUCTIONS;
  // RFC 9728 s3.1: the metadata of the resource at `path` lives at the well-known prefix followed by that path.
  const resourceMetadata = `${deps.baseUrl}/.well-known/oauth-protected-resource${path}`;
  const tools = toolCatalogue(deps.operations);

  /**
   * The principal of a request of kgate's WebMCP adapter: the person's session cookie, accepted only with the
   * WebMCP header from this gateway's own origin, same-origin or same-site (spec 4.5, 7.11; webmcp/bridge.ts).
   */
  async function authenticateBridge(req: IncomingMessage): Promise<AuthenticatedPrincipal> {
    const refused = bridgeRefusal({ header: (name) => header(req, name) }, base?.origin ?? '');
    if (refused) throw new KgateError('forbidden', refused);
    return deps.pipeline.authenticateSession(surface, cookieValue(header(req, 'cookie'), sessionCookieName(() => deps.baseUrl)));
  }

  /**
   * Step 1: the principal, or the refusal (401 with the resource metadata challenge, 403 for account and plan). A
   * bearer token always decides; without one, the WebMCP header asks for the session bridge.
   */
  async function authenticateRequest(req: IncomingMessage): Promise<AuthenticatedPrincipal | Outcome> {
    try {
      const authorization = header(req, 'authorization');
      if (authorization === undefined && header(req, WEBMCP_HEADER) !== undefined) return await authenticateBridge(req);
      return await deps.pipeline.authenticate(surface, authorization);
    } catch (error) {
      if (!(error instanceof KgateError)) throw error;
      const refused = rpcError(null, JSONRPC.invalidRequest, error.message, { code: error.code });
      if (error.code !== 'unauthenticated') return reply(HTTP_STATUS[error.code], refused);
      const challenge = bearerChallenge(req.headers.authorization !== undefined, { resource_metadata: resourceMetadata });
      return reply(401, refused, { 'WWW-Authenticate': challenge });
    }
  }

  async function post(req: IncomingMessage): Promise<Outcome> {
    const principal = await authenticateRequest(req);
    if (!('accountId' in principal)) return principal;
    const read = await readMessages(req);
    if (!read.ok) return { ...reply(read.status, read.reply, read.headers), principal };
    const ctx = { pipeline: deps.pipeline, principal, tools, surface, instructions, serverVersion: deps.version, resourceMetadata };
    let answers: Answers;
    // The 2026-07-28 wire answers one message, a refused batch included, with one reply object.
    const stateless = speaksStateless(req, read.messages, read.batch);
    if (stateless) {
      answers = await answerStateless(req, read.messages, read.batch, ctx);
    } else {
      const refused = checkTransport(req, read);
      if (refused) return { ...reply(refused.status, refused.reply, refused.headers), principal };
      answers = await answerMessages(read.messages, read.batch, ctx);
    }
    if (answers.replies.length === 0) return { status: 202, principal };
    if (read.batch && !stateless) return { status: answers.status, headers: answers.headers, body: `[${answers.replies.map(serializeReply).join(',')}]`, principal };
    const { body, encoding, varies } = replyBody(answers.replies[0]!, () => acceptsGzip(req));
    if (varies) answers.headers.Vary = 'Accept-Encoding';
    if (encoding) answers.headers['Content-Encoding'] = encoding;
    return { status: answers.status, headers: answers.headers, body, principal };
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
    logRequest(
      deps.logger,
      { reqId, method: req.method ?? '', path, route: path, status: outcome.status, started, accountId: outcome.principal?.accountId },
      deps.metrics,
    );
  };
}
