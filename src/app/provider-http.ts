import { createGuardedRequest, GuardedFetchError, type GuardedFetchOptions } from '../net/guarded-fetch.ts';
import { ProviderError, type ProviderHttp } from '../domains/providers/index.ts';

/** Default bounds of one provider request; an operation's budget may lower the size further. */
export const PROVIDER_REQUEST_TIMEOUT_MS = 15_000;
export const PROVIDER_RESPONSE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Bounded HTTP for provider calls (no credentials of its own): guarded against private addresses unless the operator
 * allows them (local fakes, self-hosted test servers), bounded in time and size, no redirects; failures become the
 * provider port's errors.
 */
export function createProviderHttp(options: Pick<GuardedFetchOptions, 'allowPrivateAddresses' | 'allowInsecureHttp' | 'timeoutMs' | 'maxBytes' | 'ca'> = {}): ProviderHttp {
  const send = createGuardedRequest({ timeoutMs: PROVIDER_REQUEST_TIMEOUT_MS, maxBytes: PROVIDER_RESPONSE_MAX_BYTES, ...options });
  return async (request) => {
    try {
      return await send({
        method: request.method,
        url: request.url,
        headers: request.headers ?? {},
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(request.maxBytes === undefined ? {} : { maxBytes: request.maxBytes }),
      });
    } catch (error) {
      throw asProviderError(error);
    }
  };
}

function asProviderError(error: unknown): ProviderError {
  if (error instanceof GuardedFetchError) {
    if (error.code === 'too_large') return new ProviderError('too_large', 'The provider answered more than the bound allows.', { bound: 'bytes' });
    if (error.code === 'timeout') return new ProviderError('unavailable', 'The provider did not answer in time.');
    if (error.code === 'blocked_address' || error.code === 'invalid_url') return new ProviderError('invalid', `The provider address is refused: ${error.message}.`);
    return new ProviderError('unavailable', `The provider could not be reached: ${error.message}.`);
  }
  return new ProviderError('unavailable', 'The provider could not be reached.');
}
