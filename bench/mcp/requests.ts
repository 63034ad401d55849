/**
 * The MCP requests the benchmarks send to `POST /api/mcp` (and the SDK baseline's `POST /mcp`), with cheap checks
 * of their answers: headers as an MCP client sends them, JSON-RPC bodies, and what a right answer contains.
 */
import { READ_NOTE_PATH } from '../http/scenarios.ts';

/** The protocol revision every request names. */
export const PROTOCOL_VERSION = '2025-11-25';

/** The headers of an MCP request over Streamable HTTP, with a bearer token when one is given. */
export function mcpHeaders(token: string | undefined): Record<string, string> {
  return {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': PROTOCOL_VERSION,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
}

export const TOOLS_LIST_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

/** The JSON-RPC body of a `tools/call` of `name` with `args`. */
export function toolsCallBody(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
}

/** A `tools/list` answer: a result with the tool list (get_note_content in it), no JSON-RPC error. */
export function verifyToolsList(body: string): boolean {
  return body.includes('"result":{"tools":[') && body.includes('"name":"get_note_content"') && !body.includes('"error":{"code"');
}

/**
 * A successful `tools/call` answer: a result (not a JSON-RPC error), not a tool error, whose structured content
 * starts with `structuredStart`, e.g. `{"results":[`.
 */
export function verifyToolResult(body: string, structuredStart: string): boolean {
  return (
    body.includes('"result":{') &&
    !body.includes('"isError"') &&
    !body.includes('"error":{"code"') &&
    body.includes(`"structuredContent":${structuredStart}`)
  );
}

/** A `get_note_content` answer of READ_NOTE_PATH: a successful result with the note's structured content. */
export function verifyNoteContent(body: string): boolean {
  return verifyToolResult(body, `{"path":${JSON.stringify(READ_NOTE_PATH)}`) && body.includes('"contentHash":"sha256:');
}

/** The revision of the stateless wire: every request carries its `_meta`, and `Mcp-Method` (and `Mcp-Name`) headers. */
export const NEXT_PROTOCOL_VERSION = '2026-07-28';

/** The headers of a request at the 2026-07-28 wire. */
export function nextHeaders(token: string, method: string, name?: string): Record<string, string> {
  return { ...mcpHeaders(token), 'mcp-protocol-version': NEXT_PROTOCOL_VERSION, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) };
}

/** A JSON-RPC body at the 2026-07-28 wire: `params` with the per-request `_meta` a client sends. */
export function nextBody(method: string, params: Record<string, unknown>): string {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': NEXT_PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'kgate-bench', version: '1.0.0' },
  };
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } });
}

/** A `tools/list` answer at the 2026-07-28 wire: the tool list with its caching hints, no JSON-RPC error. */
export function verifyNextToolsList(body: string): boolean {
  return body.includes('"tools":[') && body.includes('"name":"get_note_content"') && body.includes('"ttlMs":') && !body.includes('"error":{"code"');
}
