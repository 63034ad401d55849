import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll } from 'vitest';
import { createOwner, type Owner } from './fixtures.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { callTool, connectMcpClient, type Structured } from './mcp-client.ts';

/** The Accept header of a Streamable HTTP client. */
export const STREAMABLE_ACCEPT = 'application/json, text/event-stream';

/** A raw JSON-RPC reply: status, headers and the parsed body (null for an empty one). */
export interface RpcReply {
  status: number;
  headers: Headers;
  body: Structured | null;
}

/**
 * The gateway of one MCP test file: an owner, an MCP SDK client connected with the owner's token (as an agent
 * connects), a tool caller on that client, and a raw JSON-RPC sender for what the SDK client would not send.
 */
export interface McpSuite {
  gateway: TestGateway;
  owner: Owner;
  client: Client;
  /** Calls a tool through the SDK client: whether it failed, and its structured content. */
  call: (name: string, args: Record<string, unknown>) => Promise<{ isError: boolean; data: Structured }>;
  /**
   * POSTs one raw body to /api/mcp with the owner's token (or `token`; null sends none). A string or Buffer body goes
   * out as given (malformed JSON, invalid UTF-8), anything else as JSON.
   */
  rpc: (body: unknown, headers?: Record<string, string>, token?: string | null) => Promise<RpcReply>;
}

/** Starts the gateway, the owner and the SDK client of a test file in `beforeAll`, and stops them in `afterAll`. */
export function useMcpSuite(label = 'owner'): McpSuite {
  const suite: McpSuite = {
    call: (name, args) => callTool(suite.client, name, args),
    rpc: async (body, headers = {}, token = suite.owner.token) => {
      const response = await fetch(`${suite.gateway.url}/api/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: STREAMABLE_ACCEPT,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Structured) : null };
    },
  } as McpSuite;
  beforeAll(async () => {
    suite.gateway = await startTestGateway();
    suite.owner = await createOwner(suite.gateway.services, label);
    suite.client = await connectMcpClient(suite.gateway.url, suite.owner.token);
  });
  afterAll(async () => {
    await suite.client?.close();
    await suite.gateway?.stop();
  });
  return suite;
}

/** Units of the MCP allowance an account has used this minute. */
export async function mcpUnitsUsed(gateway: TestGateway, accountId: string): Promise<number> {
  const rows = await gateway.db.query<{ used: number }>("SELECT used FROM usage_counters WHERE account_id = $1 AND surface = 'mcp' AND period = 'minute'", [accountId]);
  return rows[0]?.used ?? 0;
}

/** A fresh account with exact (unleased) counters, so that MCP units can be counted one by one. */
export async function countedMcpAccount(gateway: TestGateway, label: string): Promise<Owner> {
  const member = await createOwner(gateway.services, label);
  await gateway.services.accounts.setAllowanceOverrides(member.accountId, { mcpOperationsPerMinute: 500, mcpOperationsPerMonth: 100_000 });
  return member;
}
