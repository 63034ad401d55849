/**
 * The "server per request" approach the MCP benchmark compares kgate's gateway with: the MCP SDK's documented
 * stateless Streamable HTTP pattern (`simpleStatelessStreamableHttp` in the SDK's examples), on plain `node:http`.
 * For every POST it builds a new `McpServer` with its tools registered and a new
 * `StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })`, connects them and
 * lets the transport handle the request, then closes both when the response is done. No authentication, no
 * database, no logging: only the SDK's own per-request work, which flatters it against kgate. By default it
 * registers one tool, which flatters it further; with `--kgate-tools` it registers kgate's whole tool set, so that
 * `tools/list` answers the same list kgate does.
 *
 * Run as a child process (`node bin/run-ts.js bench/mcp/sdk-per-request-server.ts [--kgate-tools]`), so that it
 * gets its own event loop and core as `kgate serve` does. It listens on a free port of 127.0.0.1 and prints one JSON line
 * `{"url": "http://127.0.0.1:PORT"}` on stdout once listening; `GET /healthz` answers `{"status":"ok"}` (its
 * hello-world), `POST /mcp` is the MCP endpoint. SIGTERM closes it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { TOOL_OPERATIONS, toolArguments, toolDescription } from '../../src/surfaces/mcp/tool-list.ts';

// `--kgate-tools`: register kgate's whole tool set (names, descriptions, input and output schemas), so that
// tools/list answers the same list kgate does; the like-for-like alternative to kgate's gateway.
const KGATE_TOOLS = process.argv.includes('--kgate-tools');

/** A new MCP server with one tool (or kgate's, with `--kgate-tools`), as the SDK's stateless example builds for each request. */
function getServer(): McpServer {
  const server = new McpServer({ name: 'sdk-per-request', version: '1.0.0' });
  if (KGATE_TOOLS) {
    for (const tool of TOOL_OPERATIONS) {
      const { name, title, annotations } = tool.mcp;
      server.registerTool(
        name,
        { title, description: toolDescription(tool), inputSchema: toolArguments(tool), outputSchema: tool.output, annotations },
        () => Promise.resolve({ content: [{ type: 'text', text: 'not run by the benchmark' }] }),
      );
    }
    return server;
  }
  server.registerTool(
    'get_note_content',
    {
      title: 'Read a note',
      description: 'Reads one note: its Markdown content and contentHash.',
      inputSchema: { mappingId: z.string(), path: z.string(), maxChars: z.number().int().min(1).optional() },
    },
    ({ path }) => Promise.resolve({ content: [{ type: 'text', text: `# ${path}` }] }),
  );
  return server;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readBody(req));
  } catch {
    sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  const server = getServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsed);
}

const http = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return sendJson(res, 200, { status: 'ok' });
  if (req.method === 'POST' && req.url === '/mcp') {
    handleMcp(req, res).catch((error: unknown) => {
      process.stderr.write(`MCP request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      if (!res.headersSent) sendJson(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal server error' } });
    });
    return;
  }
  res.writeHead(404).end();
});
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => {
  const { port } = http.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.once('SIGTERM', () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
});
