import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/**
 * One HTTP exchange with the model server, over node:http(s) rather than fetch: the connection is made to exactly the
 * addresses the guard judged (a lookup hook fetch does not offer without the undici package), and we know when the
 * request left (its `finish`), which decides whether a failure was certainly not accepted. The same address rule as
 * src/net/guarded-fetch.ts, which the composition root hands in (a domain does not import net/).
 */

/** The address rule and resolver of a model client. */
export interface AddressGuard {
  /** Loopback and private addresses allowed (a local model, the fake). */
  allowPrivate: boolean;
  /** True for an ordinary public internet address (isPublicAddress of src/net/guarded-fetch.ts). */
  isPublicAddress: (address: string) => boolean;
  /** The resolver (tests use one that answers a private address); dns.lookup by default. */
  lookup?: typeof systemLookup;
}

/** Why an exchange ended before an answer's headers; `sent` says whether the request had left. */
export class TransportFailure extends Error {
  override readonly name = 'TransportFailure';

  constructor(
    readonly reason: 'blocked' | 'network' | 'connect_timeout' | 'aborted',
    readonly sent: boolean,
    message: string,
  ) {
    super(message);
  }
}

/** A request to send. */
export interface Outgoing {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

/** An answer whose headers arrived; its body is read by the caller, and `request.destroy()` ends it. */
export interface Exchange {
  request: ClientRequest;
  response: IncomingMessage;
}

const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Posts one request. Rejects with TransportFailure before the answer's headers: blocked or unreachable addresses, a
 * connection that took longer than `connectTimeoutMs` to take the request, or `signal` (the caller or the deadline).
 */
export function post(outgoing: Outgoing, guard: AddressGuard, signal: AbortSignal, connectTimeoutMs: number): Promise<Exchange> {
  const { url } = outgoing;
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  // Node skips `lookup` for IP literals, so those are judged here, before any socket exists.
  if (!guard.allowPrivate && isIP(hostname) !== 0 && !guard.isPublicAddress(hostname)) {
    return Promise.reject(new TransportFailure('blocked', false, "the model's address is not public"));
  }
  if (signal.aborted) return Promise.reject(new TransportFailure('aborted', false, 'the call was stopped before it was sent'));
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:';
    const body = Buffer.from(outgoing.body, 'utf8');
    let sent = false;
    let settled = false;
    const request = (secure ? httpsRequest : httpRequest)({
      method: 'POST',
      hostname,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: { ...outgoing.headers, 'content-length': String(body.byteLength), 'accept-encoding': 'identity', 'user-agent': 'kgate' },
      // A fresh connection per call: no pooled socket made under other rules, and nothing to close at shutdown.
      agent: false,
      lookup: checkedLookup(guard),
      // Explicit, so NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment cannot switch verification off.
      rejectUnauthorized: true,
      maxHeaderSize: MAX_HEADER_BYTES,
    });
    const connectTimer = setTimeout(() => fail(new TransportFailure('connect_timeout', false, 'the model did not take the request in time')), connectTimeoutMs);
    const onAbort = (): void => fail(new TransportFailure('aborted', sent, sent ? 'the call was stopped after it was sent' : 'the call was stopped before it was sent'));
    signal.addEventListener('abort', onAbort, { once: true });

    function done(): void {
      settled = true;
      clearTimeout(connectTimer);
      signal.removeEventListener('abort', onAbort);
    }
    function fail(failure: TransportFailure): void {
      if (settled) return;
      done();
      request.destroy();
      reject(failure);
    }
    request.on('finish', () => {
      sent = true;
      clearTimeout(connectTimer);
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof TransportFailure) fail(new TransportFailure(error.reason, false, error.message));
      else fail(new TransportFailure('network', sent, `connection failed: ${errnoLabel(error)}`));
    });
    request.on('response', (response) => {
      if (settled) {
        response.destroy();
        return;
      }
      done();
      resolve({ request, response });
    });
    request.end(body);
  });
}

/** A socket error's code (ECONNREFUSED, ENOTFOUND, ...), never its text, which may name more than we want to say. */
export function errnoLabel(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'request failed';
}

/** Resolves a name once and connects to exactly the answers judged; one non-public answer refuses the name. */
function checkedLookup(guard: AddressGuard): LookupFunction {
  const resolve = guard.lookup ?? systemLookup;
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
      if (!guard.allowPrivate && !addresses.every((entry) => guard.isPublicAddress(entry.address))) {
        callback(new TransportFailure('blocked', false, "the model's host resolves to a non-public address"), []);
        return;
      }
      if (options.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
