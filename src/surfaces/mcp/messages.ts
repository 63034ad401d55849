import type { IncomingMessage } from 'node:http';
import { KgateError } from '../../kernel/errors.ts';
import { parseJsonBody, readBody } from '../http/body.ts';
import { acceptsStreamableHttp, header } from './http-edges.ts';
import { JSONRPC, rpcError, type Message, type Reply } from './json-rpc.ts';
import { BATCH_VERSION, DEFAULT_HEADER_VERSION, PROTOCOL_VERSIONS } from './protocol.ts';

/** The largest request body the gateway reads: the same bound as the REST API's. */
export const MAX_MCP_BODY_BYTES = 8 * 1024 * 1024;

/**
 * The most messages in one JSON-RPC batch (protocol 2025-03-26). Each entry reserves its own unit, so this bounds
 * what one request can do and how long it can hold the server; a larger batch is refused whole, consuming nothing.
 */
export const MAX_BATCH_MESSAGES = 100;

/** Methods a legacy client may call without the Streamable HTTP Accept header (spec 4.1). */
const LEGACY_METHODS = new Set(['server/discover', 'tools/list', 'tools/call']);

/** The messages of one POST, or the refusal of the whole request (status, reply and extra headers). */
export type ReadMessages =
  | { ok: true; messages: unknown[]; batch: boolean }
  | { ok: false; status: number; reply: Reply; headers?: Record<string, string> };

const refuse = (status: number, reply: Reply, headers?: Record<string, string>): ReadMessages => ({
  ok: false,
  status,
  reply,
  ...(headers ? { headers } : {}),
});

/**
 * Reads the body of a POST as JSON-RPC: bounded, UTF-8 (invalid bytes are a parse error, never replaced), JSON.
 * Legacy bridges may name the method in `Mcp-Method` (and a tool in `Mcp-Name`) and send the params, or a tool's
 * arguments, as the body.
 */
export async function readMessages(req: IncomingMessage): Promise<ReadMessages> {
  let body: unknown;
  try {
    body = parseJsonBody(await readBody(req, header(req, 'content-length'), MAX_MCP_BODY_BYTES));
  } catch (error) {
    if (!(error instanceof KgateError)) throw error;
    if (error.code === 'payload_too_large') {
      return refuse(413, rpcError(null, JSONRPC.invalidRequest, error.message, { code: error.code }), { Connection: 'close' });
    }
    const detail = error.code === 'invalid_encoding' ? 'the body is not valid UTF-8' : 'the body is not JSON';
    return refuse(400, rpcError(null, JSONRPC.parseError, `Parse error: ${detail}`, { code: error.code }));
  }
  const headerMethod = header(req, 'mcp-method');
  if (headerMethod && body && typeof body === 'object' && !Array.isArray(body) && !('jsonrpc' in body)) {
    const name = header(req, 'mcp-name');
    body = { jsonrpc: '2.0', id: 'mcp-method', method: headerMethod, params: headerMethod === 'tools/call' ? { name, arguments: body } : body };
  }
  return { ok: true, messages: Array.isArray(body) ? body : [body], batch: Array.isArray(body) };
}

/**
 * The transport rules of a POST, before any message is answered: the Streamable HTTP Accept header (legacy methods
 * excepted; an initialize always takes the standard path), a supported MCP-Protocol-Version (spec 9.1), and
 * batches only under 2025-03-26, with at most MAX_BATCH_MESSAGES entries. Returns the refusal, if any.
 */
export function checkTransport(req: IncomingMessage, read: Extract<ReadMessages, { ok: true }>): Extract<ReadMessages, { ok: false }> | undefined {
  const { messages, batch } = read;
  const first = messages[0] as Message | undefined;
  const isInitialize = !batch && first?.method === 'initialize';
  if (!acceptsStreamableHttp(header(req, 'accept'))) {
    const legacy = !isInitialize && messages.every((m) => LEGACY_METHODS.has((m as Message | undefined)?.method ?? ''));
    if (!legacy) {
      return { ok: false, status: 406, reply: rpcError(first?.id, JSONRPC.invalidRequest, 'Not Acceptable: accept both application/json and text/event-stream') };
    }
  }
  const version = isInitialize ? undefined : (header(req, 'mcp-protocol-version') ?? DEFAULT_HEADER_VERSION);
  if (version !== undefined && !PROTOCOL_VERSIONS.includes(version)) {
    return { ok: false, status: 400, reply: rpcError(first?.id, JSONRPC.invalidRequest, `Unsupported MCP-Protocol-Version: ${version}`) };
  }
  if (batch && (version !== BATCH_VERSION || messages.length === 0)) {
    return { ok: false, status: 400, reply: rpcError(null, JSONRPC.invalidRequest, `JSON-RPC batches are only part of protocol ${BATCH_VERSION}`) };
  }
  if (batch && messages.length > MAX_BATCH_MESSAGES) {
    const message = `A JSON-RPC batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${messages.length}.`;
    return { ok: false, status: 400, reply: rpcError(null, JSONRPC.invalidRequest, message, { code: 'invalid_request', limit: MAX_BATCH_MESSAGES }) };
  }
  return undefined;
}
