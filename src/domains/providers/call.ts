import { setTimeout as delay } from 'node:timers/promises';
import { ProviderError, type ProviderAdapter, type ProviderCall, type ProviderHttp, type ProviderRequest, type ProviderResponse, type ProviderUrls } from './port.ts';

/** What one operation may spend at its provider (spec 8, rule 1: provider requests, wall time, body reads). */
export interface ProviderBudget {
  /** Most requests, retries and the token refresh included. */
  maxRequests: number;
  /** Most response bytes in all. */
  maxBytes: number;
  /** Wall time from the call's creation, in ms. */
  wallMs: number;
}

/** How the call gets and renews the connection's access token (the connections service, which stores it encrypted). */
export interface TokenSource {
  current(): Promise<string>;
  /** Refreshes after a 401; throws ProviderError `revoked` when the grant is gone. */
  refresh(): Promise<string>;
}

/**
 * Settings of {@link createProviderCall}. `http` comes from the composition root (app/provider-http.ts,
 * createProviderHttp); tests of adapters against local fakes build it with `{ allowPrivateAddresses: true,
 * allowInsecureHttp: true }`.
 */
export interface ProviderCallOptions {
  urls: ProviderUrls;
  http: ProviderHttp;
  adapter: Pick<ProviderAdapter, 'transientDelay'>;
  token: TokenSource;
  budget: ProviderBudget;
  /** Waits between retries (tests may shorten nothing: the waits are the provider's Retry-After). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

/** A call and what it has spent so far (for the sync state page, the logs and the benchmarks). */
export interface MeteredProviderCall extends ProviderCall {
  readonly spent: { requests: number; bytes: number; retries: number; refreshed: boolean };
}

// Backoff for transient failures without Retry-After: 250 ms doubled per attempt, capped, with full jitter
// (AWS Architecture Blog, "Exponential Backoff And Jitter"), so that many clients do not retry in step.
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 8_000;
// A provider asking for longer than this is answered `rate_limited` at once rather than waited for.
const LONGEST_WAIT_MS = 30_000;
const MAX_ATTEMPTS = 6;

function fromGuarded(error: unknown): ProviderError {
  return error instanceof ProviderError ? error : new ProviderError('unavailable', 'The provider could not be reached.');
}

/**
 * Builds one operation's call (see ProviderCall in port.ts): the bearer token on every request, the budget
 * enforced before each request is sent, Retry-After honoured and otherwise exponential backoff with jitter for 429,
 * 5xx and the adapter's own transient answers, a refresh and one more try after a 401.
 */
export function createProviderCall(options: ProviderCallOptions): MeteredProviderCall {
  const { urls, http, adapter, token, budget } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const random = options.random ?? Math.random;
  const deadline = now() + budget.wallMs;
  const spent = { requests: 0, bytes: 0, retries: 0, refreshed: false };

  function spend(): void {
    if (spent.requests >= budget.maxRequests) throw new ProviderError('budget_exhausted', `This operation may send at most ${budget.maxRequests} provider requests.`, { bound: 'requests' });
    if (now() >= deadline) throw new ProviderError('budget_exhausted', `This operation may take at most ${budget.wallMs} ms at the provider.`, { bound: 'wall_time' });
    spent.requests += 1;
  }

  async function once(request: ProviderRequest, accessToken: string): Promise<ProviderResponse> {
    spend();
    const left = budget.maxBytes - spent.bytes;
    if (left <= 0) throw new ProviderError('budget_exhausted', `This operation may download at most ${budget.maxBytes} bytes.`, { bound: 'bytes' });
    const maxBytes = Math.min(left, request.maxBytes ?? left);
    const response = await http({ ...request, headers: { ...request.headers, authorization: `Bearer ${accessToken}` }, maxBytes }).catch((error: unknown) => {
      const failure = fromGuarded(error);
      // Too large for what is left of the budget, not for the request's own bound: the budget is what ran out.
      if (failure.code === 'too_large' && request.maxBytes !== undefined && maxBytes < request.maxBytes) {
        throw new ProviderError('budget_exhausted', `This operation may download at most ${budget.maxBytes} bytes.`, { bound: 'bytes' });
      }
      throw failure;
    });
    spent.bytes += response.body.length;
    return response;
  }

  function waitFor(response: ProviderResponse, attempt: number): number | null {
    const own = adapter.transientDelay(response);
    if (own !== null) return own;
    if (response.status !== 429 && response.status < 500) return null;
    const after = retryAfterMs(response.headers['retry-after'], now());
    if (after !== null) return after;
    return Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt));
  }

  return {
    urls,
    spent,
    async send(request) {
      let accessToken = await token.current();
      for (let attempt = 0; ; attempt += 1) {
        let response: ProviderResponse;
        try {
          response = await once(request, accessToken);
        } catch (error) {
          // A network failure of a request that may not be repeated is answered as it is; others are retried.
          const failure = fromGuarded(error);
          if (failure.code !== 'unavailable' || request.once || attempt + 1 >= MAX_ATTEMPTS) throw failure;
          const wait = Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt));
          if (now() + wait >= deadline) throw failure;
          spent.retries += 1;
          await sleep(wait);
          continue;
        }
        if (response.status === 401 && !spent.refreshed) {
          spent.refreshed = true;
          spend();
          accessToken = await token.refresh();
          continue;
        }
        const wait = waitFor(response, attempt);
        if (wait === null) return response;
        const limited = response.status === 429 || (response.status < 500 && response.status !== 408);
        if (request.once && !limited) return response;
        if (attempt + 1 >= MAX_ATTEMPTS || wait > LONGEST_WAIT_MS || now() + wait >= deadline) {
          if (limited) throw new ProviderError('rate_limited', 'The provider is rate limiting these requests.', { status: response.status, retryAfterMs: wait });
          return response;
        }
        spent.retries += 1;
        await sleep(wait);
      }
    },
  };
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110, 10.2.3), in ms from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
