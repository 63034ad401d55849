import { beforeAnswer, errorAnswer } from './failures.ts';
import { readBounded } from './body.ts';
import type { CallScope } from './scope.ts';
import { MODEL_CLIENT_LIMITS, type ModelClientLimits, type ModelClientSettings } from './settings.ts';
import { post, type AddressGuard, type Exchange } from './transport.ts';

/** The configured server: where requests go, with which key, under which bounds. */
export interface Connection {
  readonly limits: ModelClientLimits;
  readonly apiKey: string | undefined;
  /**
   * Sends one JSON request and resolves with a successful (2xx) answer whose body is still to be read. An error
   * answer or a failure before the answer rejects with a ModelError, or a RetryableRefusal when it may be retried.
   * The scope's signal destroys the exchange, also while its body is read.
   */
  open(scope: CallScope, path: string, payload: Record<string, unknown>, accept: string): Promise<Exchange>;
}

/** The connection of a client's settings. */
export function createConnection(settings: ModelClientSettings): Connection {
  const limits = { ...MODEL_CLIENT_LIMITS, ...settings.limits, maxRetries: Math.min(2, settings.limits?.maxRetries ?? MODEL_CLIENT_LIMITS.maxRetries) };
  const base = settings.baseUrl.replace(/\/+$/, '');
  const guard: AddressGuard = {
    allowPrivate: settings.allowPrivateAddresses,
    isPublicAddress: settings.isPublicAddress,
    ...(settings.lookup === undefined ? {} : { lookup: settings.lookup }),
  };
  const apiKey = settings.apiKey === '' ? undefined : settings.apiKey;
  return {
    limits,
    apiKey,
    async open(scope, path, payload, accept) {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept };
      if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
      let exchange: Exchange;
      try {
        exchange = await post({ url: new URL(`${base}${path}`), headers, body: JSON.stringify(payload) }, guard, scope.signal, settings.connectTimeoutMs);
      } catch (failure) {
        throw beforeAnswer(failure, scope);
      }
      const stop = (): void => {
        exchange.request.destroy();
      };
      scope.signal.addEventListener('abort', stop, { once: true });
      exchange.response.once('close', () => scope.signal.removeEventListener('abort', stop));
      const status = exchange.response.statusCode ?? 0;
      if (status >= 200 && status < 300) return exchange;
      const body = await readBounded(exchange.response, limits.maxErrorBytes).catch(() => Buffer.alloc(0));
      exchange.request.destroy();
      throw errorAnswer(status, body, exchange.response.headers, apiKey);
    },
  };
}
