import type { IncomingMessage } from 'node:http';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** One request header as a single string (repeated headers joined, as HTTP allows). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * DNS-rebinding protection (transport spec "Security Warning"): a browser page on another origin, or a request
 * whose Host is not ours, is refused. Allowed: the configured base URL's host and origin, and loopback names.
 */
export function foreignRequest(req: IncomingMessage, base: URL | undefined): boolean {
  const host = req.headers.host;
  if (host) {
    const name = host.replace(/:\d+$/, '').toLowerCase();
    if (!LOOPBACK.has(name) && name !== base?.hostname.toLowerCase()) return true;
  }
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    const url = new URL(origin);
    return !(LOOPBACK.has(url.hostname.toLowerCase()) || (base !== undefined && url.origin === base.origin));
  } catch {
    return true;
  }
}

/** True when `Accept` names both JSON and the event stream, as Streamable HTTP requires (or a wildcard does). */
export function acceptsStreamableHttp(accept: string | undefined): boolean {
  const value = (accept ?? '').toLowerCase();
  return (value.includes('application/json') || value.includes('*/*')) && (value.includes('text/event-stream') || value.includes('*/*'));
}
