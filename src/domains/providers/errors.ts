import { KgateError } from '../../kernel/errors.ts';
import { ProviderError } from './port.ts';

/**
 * A provider failure as the stable error a caller branches on (docs/errors.md). `writing` tells a missing permission
 * on a write (the grant lacks file-write access) from one on a read (the grant no longer reaches the file).
 */
export function providerFailure(error: unknown, writing = false): KgateError {
  if (error instanceof KgateError) return error;
  if (!(error instanceof ProviderError)) throw error;
  switch (error.code) {
    case 'conflict':
      return new KgateError('conflict', 'The file changed at the provider since it was read (its provider revision no longer matches); nothing was overwritten.');
    case 'not_found':
      return new KgateError('not_found', 'The file or folder does not exist at the provider, or the connection cannot see it.');
    case 'unauthorized':
    case 'revoked':
      return new KgateError('provider_disconnected', "The provider no longer accepts this mapping's connection; its owner reconnects the provider.");
    case 'forbidden':
      return writing
        ? new KgateError('provider_write_not_granted', 'The provider refused the write: the connection has no file-write access there.')
        : new KgateError('provider_disconnected', 'The provider refused access with this connection; its owner reconnects the provider.');
    case 'rate_limited': {
      const retryAfterSeconds = Math.max(1, Math.ceil((error.details.retryAfterMs ?? 1000) / 1000));
      return new KgateError('provider_rate_limited', `The provider is rate limiting; retry in ${retryAfterSeconds} s.`, { retryAfterSeconds });
    }
    case 'too_large':
      return new KgateError('payload_too_large', 'The file at the provider is larger than kgate reads.');
    case 'budget_exhausted':
      return new KgateError('provider_limit_reached', error.message, { bound: error.details.bound ?? 'requests' });
    case 'invalid':
      return new KgateError('invalid_request', `The provider refused the request: ${error.message}`);
    case 'unavailable':
    case 'protocol':
      return new KgateError('provider_unavailable', 'The provider failed or could not be reached; nothing was changed.');
  }
}
