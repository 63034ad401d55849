// A scripted HTTP server on a free port standing in for the gateway in the SDK's own wire tests: the token endpoint
// issues tokens unless told otherwise, and every other request gets the next scripted reply (a 500 when none is left).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Set when the client closed the connection before the reply ended. */
  aborted: boolean;
}

/** How the server answers one request. */
export type Reply = (request: Seen, response: ServerResponse) => void;

/** A started scripted server. */
export interface ScriptedServer {
  baseUrl: string;
  seen: Seen[];
  replies: Reply[];
  /** The requests other than the token endpoint's. */
  apiCalls(): Seen[];
  close(): Promise<void>;
}

/** A JSON answer. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers });
    response.end(JSON.stringify(body));
  };

/** Starts the server on 127.0.0.1. */
export async function startScriptedServer(): Promise<ScriptedServer> {
  const seen: Seen[] = [];
  const replies: Reply[] = [];
  let tokens = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: Seen = { method: request.method!, path: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), aborted: false };
      seen.push(entry);
      response.on('close', () => {
        if (!response.writableFinished) entry.aborted = true;
      });
      if (entry.path === '/api/product/v1/oauth/token') {
        tokens += 1;
        json(200, { access_token: `kgrp_token${tokens}`, token_type: 'Bearer', expires_in: 900, scope: 'intelligence.execute' })(entry, response);
        return;
      }
      (replies.shift() ?? json(500, { unexpected: true }))(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    replies,
    apiCalls: () => seen.filter((s) => s.path !== '/api/product/v1/oauth/token'),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
