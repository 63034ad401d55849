/**
 * The benchmark's one MCP client: sequential `tools/call` requests over Streamable HTTP (JSON answers) with the
 * benchmark account's personal access token, timed from the request to the parsed answer, each answer checked.
 */
import { mcpHeaders, toolsCallBody, TOOLS_LIST_BODY } from '../mcp/requests.ts';

/** A tool's structured answer, and how long the call took. */
export interface TimedAnswer {
  ms: number;
  /** Bytes of the JSON-RPC answer as received (after any decompression). */
  bytes: number;
  structured: Record<string, unknown>;
}

/** Calls the MCP tools of the gateway at `url` (`/api/mcp`, or `/api/intelligence/mcp` with `path`). */
export interface McpClient {
  call(name: string, args: Record<string, unknown>, path?: string): Promise<TimedAnswer>;
  /** `tools/list`: the names of the tools listed at `path`. */
  listTools(path?: string): Promise<string[]>;
  /** `GET /healthz`, timed. */
  hello(): Promise<number>;
}

/** The JSON-RPC answer of one POST, or an error naming what came back. */
async function post(url: string, token: string, body: string): Promise<{ ms: number; bytes: number; answer: Record<string, unknown> }> {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: mcpHeaders(token), body });
  const text = await response.text();
  const answer = JSON.parse(text) as Record<string, unknown>;
  const ms = performance.now() - started;
  if (response.status !== 200 || answer.error !== undefined) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return { ms, bytes: Buffer.byteLength(text, 'utf8'), answer };
}

/** A client of the gateway at `baseUrl` with `token`. */
export function mcpClient(baseUrl: string, token: string): McpClient {
  return {
    async call(name, args, path = '/api/mcp') {
      const { ms, bytes, answer } = await post(`${baseUrl}${path}`, token, toolsCallBody(name, args));
      const result = answer.result as { isError?: boolean; structuredContent?: Record<string, unknown>; content?: unknown } | undefined;
      if (!result || result.isError || !result.structuredContent) {
        throw new Error(`${name} answered no structured result: ${JSON.stringify(result ?? answer).slice(0, 300)}`);
      }
      return { ms, bytes, structured: result.structuredContent };
    },
    async listTools(path = '/api/mcp') {
      const { answer } = await post(`${baseUrl}${path}`, token, TOOLS_LIST_BODY);
      const tools = (answer.result as { tools?: Array<{ name: string }> } | undefined)?.tools ?? [];
      return tools.map((tool) => tool.name);
    },
    async hello() {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/healthz`);
      const body = (await response.json()) as { status?: string };
      const ms = performance.now() - started;
      if (response.status !== 200 || body.status !== 'ok') throw new Error(`GET /healthz answered ${response.status}`);
      return ms;
    },
  };
}
