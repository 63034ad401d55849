import { lookup as systemLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { WebhookTransport } from '../domains/automation/webhooks/port.ts';
import { KgateError } from '../kernel/errors.ts';
import { createGuardedRequest, GuardedFetchError, isPublicAddress } from '../net/guarded-fetch.ts';

/** Settings of {@link createWebhookTransport}. */
export interface WebhookTransportOptions {
  /** Allow endpoints on loopback and private addresses (development and tests only). Default false. */
  allowPrivateAddresses?: boolean;
  /** Extra trusted CA certificate(s) in PEM (tests trust the local receiver's self-signed certificate). */
  ca?: string | string[];
  /** Time budget of one attempt (connect, headers and body). Default 15000 ms. */
  timeoutMs?: number;
  /** DNS lookup to use; tests inject one that maps a name to a private address. Default dns.lookup. */
  lookup?: typeof systemLookup;
}

/** Response bodies are read at most this far and then dropped: receivers answer with a status, not content. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * The webhook transport over the guarded request (src/net/guarded-fetch.ts): https only (never plain http, even in
 * tests), public addresses only unless allowed, no redirects, bounded time and response size. `check` judges a URL
 * when an endpoint is created; `post` judges the address again when it connects, so a name that later resolves
 * elsewhere (DNS rebinding) is still refused.
 */
export function createWebhookTransport(options: WebhookTransportOptions = {}): WebhookTransport {
  const allowPrivate = options.allowPrivateAddresses === true;
  const lookup = options.lookup ?? systemLookup;
  const send = createGuardedRequest({
    allowPrivateAddresses: allowPrivate,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: MAX_RESPONSE_BYTES,
    lookup,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });

  return {
    async check(raw) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw refused('The endpoint URL is not a valid URL.', 'invalid_url');
      }
      if (url.protocol !== 'https:') throw refused('The endpoint URL must use https.', 'not_https');
      if (url.username !== '' || url.password !== '') throw refused('The endpoint URL must not contain credentials.', 'credentials');
      const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      if (host === '') throw refused('The endpoint URL has no host.', 'invalid_url');
      if (allowPrivate) return;
      if (isIP(host) !== 0) {
        if (!isPublicAddress(host)) throw refused('The endpoint URL names an address that is not public.', 'blocked_address');
        return;
      }
      const addresses = await resolveAll(lookup, host);
      if (addresses === undefined) throw refused('The endpoint host does not resolve.', 'unresolved');
      if (!addresses.every((entry) => isPublicAddress(entry.address))) {
        throw refused('The endpoint host resolves to an address that is not public.', 'blocked_address');
      }
    },

    async post(request) {
      try {
        const response = await send({ method: 'POST', url: request.url, headers: request.headers, body: request.body });
        // The body is dropped here: it is never stored nor shown (it may echo anything).
        return { status: response.status };
      } catch (error) {
        if (error instanceof GuardedFetchError) {
          throw new KgateError('unavailable', `The webhook endpoint could not be reached: ${error.message}.`, { reason: error.code });
        }
        throw new KgateError('unavailable', 'The webhook endpoint could not be reached.', { reason: 'network' });
      }
    },
  };
}

function refused(message: string, reason: string): KgateError {
  return new KgateError('endpoint_url_refused', message, { reason });
}

/** Every address of a name, or undefined when it does not resolve. */
function resolveAll(lookup: typeof systemLookup, host: string): Promise<LookupAddress[] | undefined> {
  return new Promise((resolve) => {
    lookup(host, { all: true }, (error, addresses: LookupAddress[]) => {
      resolve(error || addresses.length === 0 ? undefined : addresses);
    });
  });
}
