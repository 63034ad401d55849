/**
 * Raw JSON-RPC requests to the MCP resource (/api/mcp) with a bearer token, as a Streamable HTTP client sends them,
 * for tests that assert on the HTTP status, headers and body of each reply (mcp-client.ts connects the SDK client).
 */
import type { TestGateway } from './gateway.ts';
import { baseOf } from './oauth-flow.ts';

/** A JSON-RPC reply at /api/mcp: status, headers, parsed body. */
export interface McpReply {
  status: number;
  headers: Headers;
  body: Record<string, any> | null; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC replies of many shapes
}

/** Where to send MCP requests: a gateway (its published resource URL) or an explicit endpoint URL. */
export type McpTarget = Pick<TestGateway, 'services'> | URL;

/** One JSON-RPC request to /api/mcp with a bearer token, as a Streamable HTTP client sends it. */
export async function mcpRequest(
  target: McpTarget,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<McpReply> {
  const endpoint = target instanceof URL ? target : new URL(`${baseOf(target)}/api/mcp`);
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...(method === 'initialize' ? {} : { 'mcp-protocol-version': '2025-06-18' }),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as McpReply['body']) : null };
}

/** tools/call of `list_vaults` (read scope): 200 with the mappings, or the refusal. */
export function listVaults(target: McpTarget, token: string): Promise<McpReply> {
  return mcpRequest(target, token, 'tools/call', { name: 'list_vaults', arguments: {} });
}
