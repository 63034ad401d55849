import { ModelError } from '../contract.ts';
import { RetryableRefusal } from './failures.ts';
import { pause, type CallScope } from './scope.ts';

/** How a call tries again. */
export interface RetryPolicy {
  /** Attempts after the first (at most 2). */
  maxRetries: number;
  /** The first backoff; each later one doubles, with full jitter. */
  backoffBaseMs: number;
  /** The longest a Retry-After is honoured; a provider asking for more gets no retry. */
  retryAfterMaxMs: number;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries are used up. Only a RetryableRefusal is tried
 * again (the request was certainly not accepted), after a jittered backoff or the provider's Retry-After, and never
 * past the call's deadline: then the last refusal is the answer.
 */
export async function withRetries<T>(scope: CallScope, policy: RetryPolicy, attempt: () => Promise<T>): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof RetryableRefusal)) throw error;
      if (retry >= policy.maxRetries) throw error.error;
      const backoff = Math.random() * policy.backoffBaseMs * 2 ** retry;
      if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.retryAfterMaxMs) throw error.error;
      const wait = Math.max(backoff, error.retryAfterMs ?? 0);
      if (wait >= scope.remainingMs()) throw error.error;
      if (!(await pause(scope, wait))) {
        if (scope.reason === 'caller') throw new ModelError('model_interrupted', 'The call was stopped before the request was sent.', 'no');
        throw error.error;
      }
    }
  }
}
