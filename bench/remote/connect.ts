/**
 * Connecting a provider's fake through kgate's connections service, as the owner's browser would: kgate starts the
 * authorization (state and PKCE stored), the fake's consent page answers at once with a redirect to kgate's callback,
 * and kgate completes it from that redirect's code and state (exchange, identity, tokens sealed).
 */
import type { Services } from '../../src/app/services.ts';
import type { ProviderConnection } from '../../src/domains/providers/contract.ts';
import type { RemoteKind } from '../../src/domains/providers/port.ts';
import { callbackOf } from './fake-providers.ts';

/** Connects `kind` for the account (read capability only: the benchmark writes nothing) and answers the connection. */
export async function connectProvider(services: Services, accountId: string, kind: RemoteKind): Promise<ProviderConnection> {
  const { authorizationUrl } = await services.connections.start(accountId, kind, { write: false });
  const consent = await fetch(authorizationUrl, { redirect: 'manual' });
  await consent.arrayBuffer();
  const location = consent.headers.get('location');
  if (consent.status !== 302 || location === null) throw new Error(`${kind}: the consent page answered ${consent.status}, not a redirect`);
  const back = new URL(location);
  if (`${back.origin}${back.pathname}` !== callbackOf(kind)) throw new Error(`${kind}: redirected to ${back.origin}${back.pathname}`);
  const param = (name: string) => back.searchParams.get(name) ?? undefined;
  return services.connections.complete(accountId, kind, { state: param('state'), code: param('code'), error: param('error') });
}
