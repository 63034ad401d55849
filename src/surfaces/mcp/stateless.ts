import type { IncomingMessage } from 'node:http';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { answerMessages, type Answers } from './answer.ts';
import type { DispatchContext } from './dispatcher.ts';
import { acceptsStreamableHttp, header } from './http-edges.ts';
import { JSONRPC, MCP_ERRORS, PreserializedResult, rpcError, type Message, type Reply } from './json-rpc.ts';
import { PROTOCOL_VERSIONS, STATELESS_PROTOCOL_VERSION, SUPPORTED_VERSIONS } from './protocol.ts';

/** The `_meta` keys of a request at the 2026-07-28 wire. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
} as const;

/** The methods of the 2026-07-28 wire; anything else (initialize, ping, logging/setLevel, ...) is 404 and -32601. */
export const STATELESS_METHODS: ReadonlySet<string> = new Set(['server/discover', 'tools/list', 'tools/call']);

/**
 * What a request's `_meta` must hold (SEP-2575): the protocol version, the client's capabilities as an object,
 * and optionally the client's identity (a SHOULD: never required, but when sent it must be an Implementation).
 */
const RequestMetaSchema = z.looseObject({
  [META.protocolVersion]: z.string().min(1),
  [META.clientCapabilities]: z.record(z.string(), z.unknown()),
  [META.clientInfo]: z.looseObject({ name: z.string(), version: z.string() }).optional(),
});

const metaOf = (message: unknown): unknown => {
  const params = (message as Message | undefined)?.params;
  return params && typeof params === 'object' ? params._meta : undefined;
};

/**
 * True when a POST speaks the 2026-07-28 wire: its MCP-Protocol-Version header names that revision, or it is one
 * request whose `_meta` names a protocol version while the header names none of the older revisions (a new client
 * that left the header out or asks for a version we lack: answered by that wire's rules). Requests of the older
 * revisions never carry that `_meta` key with their own header, so they keep today's path.
 */
export function speaksStateless(req: IncomingMessage, messages: readonly unknown[], batch: boolean): boolean {
  const version = header(req, 'mcp-protocol-version')?.trim();
  if (version === STATELESS_PROTOCOL_VERSION) return true;
  if (batch || (version !== undefined && PROTOCOL_VERSIONS.includes(version))) return false;
  const meta = metaOf(messages[0]);
  return typeof meta === 'object' && meta !== null && META.protocolVersion in meta;
}

/** A refusal of the 2026-07-28 wire: the HTTP status and the JSON-RPC error, carrying the request's id. */
function refuse(status: number, id: unknown, code: number, message: string, data?: Record<string, unknown>): Answers {
  return { replies: [rpcError(id, code, message, data)], status, headers: {} };
}

/** A JSON-RPC request as this wire checks it: an id, a method, and params if any (an object, else ignored). */
type StatelessRequest = { jsonrpc: '2.0'; id: string | number; method: string; params?: unknown };

/** True for something shaped like a JSON-RPC request: version 2.0, a string or number id, a string method. */
function isRequest(raw: unknown): raw is StatelessRequest {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return false;
  const { jsonrpc, id, method } = raw as Record<string, unknown>;
  return jsonrpc === '2.0' && (typeof id === 'string' || typeof id === 'number') && typeof method === 'string';
}

/** The name a method's `Mcp-Name` header must repeat, from its params (tools/call names a tool). */
function nameOf(method: string, params: Record<string, unknown>): unknown {
  if (method === 'tools/call' || method === 'prompts/get') return params.name;
  if (method === 'resources/read') return params.uri;
  return undefined;
}

/**
 * The checks of one request at the 2026-07-28 wire, before anything is consumed, in the order the revision gives
 * them: the version header (-32020 when missing), `_meta` (-32602), the version header against `_meta` (-32020),
 * a supported version (-32022, listing ours and echoing the request's), then the standard headers: `Mcp-Method`
 * equal to the body's method and, for a named method, `Mcp-Name` equal to its name (-32020; header values are
 * compared after trimming surrounding whitespace, RFC 9110 s5.5, and case-sensitively). Returns the refusal, if any.
 */
export function checkStatelessRequest(req: IncomingMessage, message: StatelessRequest): Answers | undefined {
  const { id, method } = message;
  const params: Record<string, unknown> = message.params && typeof message.params === 'object' ? (message.params as Record<string, unknown>) : {};
  const version = header(req, 'mcp-protocol-version')?.trim();
  if (!version) return refuse(400, id, MCP_ERRORS.headerMismatch, 'Missing MCP-Protocol-Version header');
  const meta = RequestMetaSchema.safeParse(params._meta);
  if (!meta.success) {
    // The keys at fault, or `_meta` itself when it is missing or not an object.
    const fields = meta.error.issues.map((issue) => (issue.path.length > 0 ? String(issue.path[0]) : '_meta'));
    return refuse(400, id, JSONRPC.invalidParams, `Invalid params: _meta must carry ${META.protocolVersion} and ${META.clientCapabilities}`, {
      fields: [...new Set(fields)],
    });
  }
  const requested = meta.data[META.protocolVersion];
  if (requested !== version) {
    return refuse(400, id, MCP_ERRORS.headerMismatch, `MCP-Protocol-Version header (${version}) does not match _meta ${META.protocolVersion} (${requested})`);
  }
  if (version !== STATELESS_PROTOCOL_VERSION) {
    return refuse(400, id, MCP_ERRORS.unsupportedProtocolVersion, `Unsupported protocol version: ${requested}`, { supported: [...SUPPORTED_VERSIONS], requested });
  }
  const methodHeader = header(req, 'mcp-method')?.trim();
  if (methodHeader !== method) {
    const seen = methodHeader === undefined ? 'is missing' : `(${methodHeader}) does not match`;
    return refuse(400, id, MCP_ERRORS.headerMismatch, `Mcp-Method header ${seen} the body's method (${method})`);
  }
  const name = nameOf(method, params);
  if (name !== undefined) {
    const nameHeader = header(req, 'mcp-name')?.trim();
    if (nameHeader !== name) {
      const seen = nameHeader === undefined ? 'is missing' : `(${nameHeader}) does not match`;
      return refuse(400, id, MCP_ERRORS.headerMismatch, `Mcp-Name header ${seen} the body's name (${JSON.stringify(name)})`);
    }
  }
  return undefined;
}

/** A result of the 2026-07-28 wire: every result names its `resultType` ("complete": we never ask for input). */
function complete(result: unknown): unknown {
  if (result instanceof PreserializedResult) {
    if (result.json.startsWith('{"resultType"')) return result;
    return new PreserializedResult(`{"resultType":"complete",${result.json.slice(1)}`);
  }
  if (result && typeof result === 'object' && !Array.isArray(result)) return { resultType: 'complete', ...result };
  return result;
}

/**
 * Answers one POST of the 2026-07-28 wire: one JSON-RPC message (a batch is 400 and -32600), the request checks of
 * {@link checkStatelessRequest}, then the method: server/discover, tools/list and tools/call run as at the older
 * revisions (each reserving one MCP unit) in that revision's shapes; any other method is 404 and -32601. Every
 * refusal before dispatch consumes nothing and carries the request's id.
 */
export async function answerStateless(
  req: IncomingMessage,
  messages: readonly unknown[],
  batch: boolean,
  ctx: DispatchContext & { resourceMetadata: string },
): Promise<Answers> {
  if (batch) return refuse(400, null, JSONRPC.invalidRequest, `JSON-RPC batches are not part of protocol ${STATELESS_PROTOCOL_VERSION}`);
  const raw = messages[0];
  // A request is checked by this wire's rules before the SDK's message schema, which would call a malformed `_meta`
  // an invalid message (-32600) where the revision asks for invalid params (-32602).
  if (isRequest(raw)) {
    const refused = checkStatelessRequest(req, raw);
    if (refused) return refused;
  }
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  if (!parsed.success) return refuse(400, (raw as Message | undefined)?.id, JSONRPC.invalidRequest, 'Invalid JSON-RPC message');
  const message = parsed.data as Message;
  // Notifications and responses need no reply (there is nothing a client may notify at this wire that we act on).
  if (message.method === undefined || message.id === undefined) return { replies: [], status: 202, headers: {} };
  if (!acceptsStreamableHttp(header(req, 'accept'))) {
    return refuse(406, message.id, JSONRPC.invalidRequest, 'Not Acceptable: accept both application/json and text/event-stream');
  }
  const request = message as StatelessRequest;
  if (!STATELESS_METHODS.has(request.method)) return refuse(404, request.id, JSONRPC.methodNotFound, `Method not found: ${request.method}`);
  const answers = await answerMessages([request], false, { ...ctx, wire: 'stateless' });
  answers.replies = answers.replies.map((reply): Reply => ('result' in reply ? { ...reply, result: complete(reply.result) } : reply));
  return answers;
}
