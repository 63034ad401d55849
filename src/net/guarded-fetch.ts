import { lookup as systemLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

/**
 * Outbound HTTPS GET for URLs that internet callers hand us (first user: OAuth client ID metadata documents). The
 * caller controls the URL, so every request is a potential SSRF probe: the target must be a public address, the
 * answer must come from that exact address, and time, size and redirects are all bounded.
 */

/** Settings for {@link createGuardedFetch}. */
export interface GuardedFetchOptions {
  /** Allow loopback/private/link-local targets (development and tests only). Default false. */
  allowPrivateAddresses?: boolean;
  /** Total time budget for connect + headers + body. Default 5000 ms. */
  timeoutMs?: number;
  /** Largest body accepted, in bytes. Default 64 KiB. */
  maxBytes?: number;
  /** Extra trusted CA certificate(s) in PEM (tests use a self-signed cert). */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * DNS lookup to use (tests inject one to simulate a hostname resolving to a private address). Defaults to
   * dns.lookup.
   */
  lookup?: typeof systemLookup;
  /** Allow plain `http:` URLs (local fakes of outside services in development and tests only). Default false. */
  allowInsecureHttp?: boolean;
}

/** A completed, non-redirect response. Header names are lower-case; repeated headers are joined with ', '. */
export interface GuardedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Why a guarded fetch failed. Stable: callers map these to their own errors. */
export type GuardedFetchErrorCode =
  | 'invalid_url'
  | 'blocked_address'
  | 'redirect_refused'
  | 'too_large'
  | 'timeout'
  | 'network';

/** The only error a guarded fetch rejects with. Messages are short and never contain response bodies. */
export class GuardedFetchError extends Error {
  override readonly name = 'GuardedFetchError';

  constructor(
    readonly code: GuardedFetchErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Fetches one URL with GET; rejects with {@link GuardedFetchError}. */
export type GuardedFetch = (url: string, init?: { accept?: string }) => Promise<GuardedResponse>;

/** One request of {@link GuardedRequest}. Header names lower-case; `maxBytes` may only lower the limit. */
export interface GuardedRequestInit {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  maxBytes?: number;
}

/** Sends one request with any method and body under the same guards as {@link GuardedFetch}. */
export type GuardedRequest = (init: GuardedRequestInit) => Promise<GuardedResponse>;

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_BYTES = 64 * 1024;
// Long enough for any sensible document URL; bounds what we parse and log.
const MAX_URL_LENGTH = 2048;
const MAX_HEADER_BYTES = 16 * 1024;

/** Builds a fetch function with the given limits. Invalid limits throw at construction, not per request. */
export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const send = createGuardedRequest(options);
  return (url, init) => send({ method: 'GET', url, headers: { accept: init?.accept ?? 'application/json' } });
}

/**
 * Builds a request function for calls to outside services whose addresses come from settings (cloud providers):
 * the same guards as {@link createGuardedFetch} (public addresses only unless configured, bounded time, size and
 * header size, no redirects, no pooled sockets), with any method, headers and body.
 */
export function createGuardedRequest(options: GuardedFetchOptions = {}): GuardedRequest {
  const settings: Settings = {
    allowPrivate: options.allowPrivateAddresses === true,
    timeoutMs: positiveLimit(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    maxBytes: positiveLimit(options.maxBytes ?? DEFAULT_MAX_BYTES, 'maxBytes'),
    // `ca` replaces Node's trust store rather than adding to it, so the public roots are put back explicitly. The
    // context is built once: given as `ca` per request, Node would parse every root again for each connection.
    secureContext: options.ca === undefined ? undefined : createSecureContext({ ca: [...rootCertificates, ...[options.ca].flat()] }),
    lookup: checkedLookup(options.lookup ?? systemLookup, options.allowPrivateAddresses === true),
    allowHttp: options.allowInsecureHttp === true,
  };
  return async (init) => {
    const target = parseTarget(init.url, settings.allowHttp);
    // Node skips `lookup` for IP-literal hosts, so literals are judged here, before any socket exists.
    if (!settings.allowPrivate && isIP(target.hostname) !== 0 && !isPublicAddress(target.hostname)) {
      throw new GuardedFetchError('blocked_address', 'target address is not public');
    }
    const maxBytes = init.maxBytes === undefined ? settings.maxBytes : Math.min(settings.maxBytes, init.maxBytes);
    return send(target, init, { ...settings, maxBytes });
  };
}

const IPV4_NON_PUBLIC: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3], // multicast, reserved and broadcast: everything from 224.0.0.0 up
];

// Inside global unicast (2000::/3), the ranges that are still not ordinary internet hosts.
const IPV6_GLOBAL_NON_PUBLIC: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23], // IETF protocol assignments: Teredo (embeds an IPv4 address), benchmarking, ORCHID, ...
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 embeds an IPv4 address; deprecated, so refused rather than decoded
  ['3fff::', 20], // documentation (RFC 9637)
];

/**
 * True when `address` (an IP literal, without brackets) is an ordinary public internet address. Anything that is
 * not a valid IP, carries an IPv6 zone, or falls in a loopback, private, link-local, shared, documentation,
 * multicast or otherwise special range is not public.
 */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return isPublicIpv4(ipv4Bytes(address));
  // A zone (fe80::1%eth0) only makes sense for scoped, hence non-public, addresses.
  if (version !== 6 || address.includes('%')) return false;
  const bytes = ipv6Bytes(address);
  // IPv4-mapped (::ffff:a.b.c.d, however it is spelled) reaches the embedded IPv4 host.
  if (inPrefix(bytes, ipv6Bytes('::ffff:0:0'), 96)) return isPublicIpv4(bytes.subarray(12));
  // Outside global unicast is everything else the brief names: ::, ::1, IPv4-compatible ::a.b.c.d, 64:ff9b::/96
  // (NAT64), 100::/64 (discard), fc00::/7, fe80::/10, fec0::/10 and ff00::/8.
  if (!inPrefix(bytes, ipv6Bytes('2000::'), 3)) return false;
  return !IPV6_GLOBAL_NON_PUBLIC.some(([prefix, bits]) => inPrefix(bytes, ipv6Bytes(prefix), bits));
}

interface Settings {
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  secureContext: SecureContext | undefined;
  lookup: LookupFunction;
  allowHttp: boolean;
}

interface Target {
  secure: boolean;
  hostname: string;
  port: number;
  path: string;
}

function positiveLimit(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return value;
}

function parseTarget(raw: string, allowHttp: boolean): Target {
  if (raw.length > MAX_URL_LENGTH) throw new GuardedFetchError('invalid_url', 'URL is too long');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GuardedFetchError('invalid_url', 'URL is not valid');
  }
  const secure = url.protocol === 'https:';
  if (!secure && !(allowHttp && url.protocol === 'http:')) throw new GuardedFetchError('invalid_url', 'URL must use https');
  if (url.username !== '' || url.password !== '') {
    throw new GuardedFetchError('invalid_url', 'URL must not contain credentials');
  }
  // The WHATWG parser has already normalised numeric hosts (2130706433, 0x7f.1) to dotted IPv4.
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (hostname === '') throw new GuardedFetchError('invalid_url', 'URL has no host');
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  return { secure, hostname, port, path: `${url.pathname}${url.search}` };
}

/**
 * Wraps a resolver so that a name is resolved once, every answer is judged, and the socket connects to exactly the
 * judged answers: checking in a separate resolution would let a rebinding DNS server answer differently the
 * second time.
 */
function checkedLookup(resolve: typeof systemLookup, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, []);
        return;
      }
      const first = addresses[0];
      if (first === undefined) {
        callback(Object.assign(new Error('no addresses found'), { code: 'ENOTFOUND' }), []);
        return;
      }
      // One bad answer refuses the name: connection fallback could otherwise reach it.
      if (!allowPrivate && !addresses.every((entry) => isPublicAddress(entry.address))) {
        callback(new GuardedFetchError('blocked_address', 'host resolves to a non-public address'), []);
        return;
      }
      if (options.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function send(target: Target, init: GuardedRequestInit, settings: Settings): Promise<GuardedResponse> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const request = target.secure ? httpsRequest : httpRequest;
    const body = init.body === undefined ? undefined : typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : init.body;
    const req = request({
      method: init.method,
      hostname: target.hostname,
      port: target.port,
      path: target.path,
      // No cookies: only the caller's headers. Identity encoding keeps maxBytes honest.
      headers: {
        accept: 'application/json',
        // A caller may name itself more precisely (webhook deliveries say kgate-webhooks/1).
        'user-agent': 'kgate',
        ...init.headers,
        'accept-encoding': 'identity',
        connection: 'close',
        ...(body === undefined ? {} : { 'content-length': String(body.byteLength) }),
      },
      // A fresh agent per request: no pooled socket can carry a connection made under other rules.
      agent: false,
      lookup: settings.lookup,
      ...(settings.secureContext ? { secureContext: settings.secureContext } : {}),
      // Explicit, so NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment cannot switch verification off.
      rejectUnauthorized: true,
      maxHeaderSize: MAX_HEADER_BYTES,
    });
    const timer = setTimeout(() => fail(new GuardedFetchError('timeout', 'request timed out')), settings.timeoutMs);

    function fail(error: GuardedFetchError): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    }

    function receive(res: IncomingMessage): void {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        fail(new GuardedFetchError('redirect_refused', 'redirects are not followed'));
        return;
      }
      const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      if (encoding !== 'identity' && encoding !== '') {
        fail(new GuardedFetchError('network', 'response has a content-encoding other than identity'));
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > settings.maxBytes) {
        fail(new GuardedFetchError('too_large', 'response body exceeds the size limit'));
        return;
      }
      const chunks: Buffer[] = [];
      let total = 0;
      res.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > settings.maxBytes) fail(new GuardedFetchError('too_large', 'response body exceeds the size limit'));
        else chunks.push(chunk);
      });
      res.on('error', (error) => fail(networkError(error)));
      res.on('close', () => {
        if (!res.complete) fail(new GuardedFetchError('network', 'connection closed before the body was complete'));
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status, headers: joinHeaders(res), body: Buffer.concat(chunks, total) });
      });
    }

    req.on('response', receive);
    req.on('error', (error) => fail(networkError(error)));
    req.end(body);
  });
}

function joinHeaders(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(res.headersDistinct)) {
    if (values !== undefined) headers[name] = values.join(', ');
  }
  return headers;
}

/** Our own errors (raised from the lookup) pass through; anything else is named by its code only. */
function networkError(error: Error): GuardedFetchError {
  if (error instanceof GuardedFetchError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const label = typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'request failed';
  return new GuardedFetchError('network', `connection failed: ${label}`, { cause: error });
}

function isPublicIpv4(bytes: Uint8Array): boolean {
  return !IPV4_NON_PUBLIC.some(([prefix, bits]) => inPrefix(bytes, ipv4Bytes(prefix), bits));
}

// Callers have already validated the text with isIP, so parsing can stay simple.
function ipv4Bytes(address: string): Uint8Array {
  return Uint8Array.from(address.split('.'), Number);
}

function ipv6Bytes(address: string): Uint8Array {
  const toGroups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((piece) => {
      if (!piece.includes('.')) return [parseInt(piece, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = ipv4Bytes(piece);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const [head = '', tail] = address.split('::');
  const front = toGroups(head);
  const back = tail === undefined ? [] : toGroups(tail);
  const groups = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return Uint8Array.from(groups.flatMap((group) => [group >> 8, group & 0xff]));
}

function inPrefix(bytes: Uint8Array, prefix: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bits; i += 1) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if (((bytes[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}
