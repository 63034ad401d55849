import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** A tool result's structured content, loosely typed: tests assert on its shape. */
export type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tool results of many shapes

/** An MCP SDK client connected to the gateway with a bearer token, as an agent connects. */
export async function connectMcpClient(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** Calls a tool and returns whether it failed and its structured content. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, data: result.structuredContent as Structured };
}
