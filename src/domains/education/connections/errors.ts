import { KgateError } from '../../../kernel/errors.ts';
import { ProviderError } from '../../providers/index.ts';

/**
 * A provider failure of a delegated round trip as the stable error a product branches on (docs/errors.md): the same
 * codes as remote mappings, worded for a connection. `bound` details say which bound of the round trip was reached.
 */
export function connectionFailure(error: unknown): KgateError {
  if (error instanceof KgateError) return error;
  if (!(error instanceof ProviderError)) throw error;
  switch (error.code) {
    case 'conflict':
      return new KgateError('conflict', 'The item changed at the provider since the version this request carries; nothing was overwritten.');
    case 'not_found':
      return new KgateError('not_found', 'The item does not exist at the provider, or this connection may not see it.');
    case 'unauthorized':
    case 'revoked':
      return new KgateError('provider_disconnected', 'Google no longer accepts this connection; the customer connects again.');
    case 'forbidden':
      return new KgateError('forbidden', 'Google refused this request with this connection (the teacher may not do it, or Classroom access is off).');
    case 'rate_limited': {
      const retryAfterSeconds = Math.max(1, Math.ceil((error.details.retryAfterMs ?? 1000) / 1000));
      return new KgateError('provider_rate_limited', `Google is rate limiting; retry in ${retryAfterSeconds} s.`, { retryAfterSeconds });
    }
    case 'too_large':
      return new KgateError('provider_limit_reached', 'A file at the provider is larger than this round trip may read.', { bound: 'bytes' });
    case 'budget_exhausted':
      return new KgateError('provider_limit_reached', error.message, { bound: error.details.bound ?? 'requests' });
    case 'invalid':
      return new KgateError('invalid_request', `Google refused the request: ${error.message}`);
    case 'unavailable':
    case 'protocol':
      return new KgateError('provider_unavailable', 'Google failed or could not be reached.');
  }
}

/** Runs a round trip, translating provider failures. */
export async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw connectionFailure(error);
  }
}
