import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the proxy forwarded. */
export interface ProxiedRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
}

/**
 * A plain HTTP forwarder on 127.0.0.1 between the gateway and a provider's fake: kgate reaches the provider through
 * it exactly as through the network, and a test sees every request in order and can make "another device" act at
 * the provider just before a chosen request arrives there (the window between kgate's read and its write).
 */
export interface ProviderProxy {
  /** The proxy's origin, to stand in for the fake's origin in every provider URL setting. */
  origin: string;
  /** Every request forwarded, in arrival order. */
  requests: ProxiedRequest[];
  /** Runs `action` just before the first later request that `match` accepts is forwarded (once). */
  beforeNext(match: (request: ProxiedRequest) => boolean, action: () => void | Promise<void>): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts a proxy that forwards everything to `target` (an origin such as `http://127.0.0.1:4100`). */
export async function startProviderProxy(target: string): Promise<ProviderProxy> {
  const upstream = new URL(target);
  const requests: ProxiedRequest[] = [];
  const hooks: Array<{ match: (request: ProxiedRequest) => boolean; action: () => void | Promise<void> }> = [];

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', target);
      const seen: ProxiedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams };
      requests.push(seen);
      const body = await readBody(req);
      const hook = hooks.findIndex((each) => each.match(seen));
      if (hook >= 0) await hooks.splice(hook, 1)[0]!.action();
      const forwarded = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => res.destroy());
      forwarded.end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    beforeNext: (match, action) => void hooks.push({ match, action }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
