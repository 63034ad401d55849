/**
 * GitHub's rate-limit answers, beyond the 429-with-Retry-After every provider shares: the primary limit (403 or 429
 * with `x-ratelimit-remaining: 0`, wait until `x-ratelimit-reset`, epoch seconds) and secondary limits (403 or 429
 * with `retry-after`, or without it: GitHub asks for at least a minute). Documented in "Rate limits for the REST API".
 */
import { retryAfterMs } from '../call.ts';
import type { ProviderResponse } from '../port.ts';

/** GitHub: "If you receive a secondary rate limit error without retry-after, wait at least one minute." */
const SECONDARY_WAIT_MS = 60_000;

/** The wait a GitHub rate-limit answer asks for, in ms; null when the answer is not a rate limit. */
export function rateLimitDelay(response: ProviderResponse, now: number = Date.now()): number | null {
  if (response.status !== 403 && response.status !== 429) return null;
  const after = retryAfterMs(response.headers['retry-after'], now);
  if (after !== null) return after;
  if (response.headers['x-ratelimit-remaining']?.trim() === '0') {
    const reset = Number(response.headers['x-ratelimit-reset']);
    if (Number.isFinite(reset)) return Math.max(0, reset * 1000 - now);
  }
  // A 403 is most often a permission refusal; only GitHub's own wording makes it a secondary limit without headers.
  if (/secondary rate limit|abuse detection/i.test(response.body.subarray(0, 2048).toString('utf8'))) return SECONDARY_WAIT_MS;
  return null;
}
