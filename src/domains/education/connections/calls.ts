/**
 * One bounded round trip over a delegated connection: the installation's own active connection (another
 * installation's is `not_found`), holding every Google scope the round trip needs (`forbidden` otherwise: the customer
 * connects again asking for that service), under a budget of requests, bytes and wall time (spec 8 rule 1).
 */
import { KgateError } from '../../../kernel/errors.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { createProviderCall, driveAdapter, type MeteredProviderCall, type ProviderBudget, type ProviderHttp } from '../../providers/index.ts';
import { SERVICE_SCOPES, type ConnectionOwner, type ConnectionService, type GoogleConnectionSettings } from './contract.ts';
import type { ConnectionLifecycle } from './lifecycle.ts';
import type { SealedConnection } from './store.ts';
import type { ConnectionTokens } from './tokens.ts';

/** What calls are made with. */
export interface CallDeps {
  clock: Clock;
  http: ProviderHttp;
  google: GoogleConnectionSettings;
  lifecycle: Pick<ConnectionLifecycle, 'own'>;
  tokens: ConnectionTokens;
  /** Waits between retries (tests skip them: the waits are the fakes' Retry-After, never measured). */
  sleep?: (ms: number) => Promise<void>;
}

/** A call for one round trip, with the connection it runs over. */
export interface ConnectionCall {
  connection: SealedConnection;
  call: MeteredProviderCall;
}

/** Makes the call of one round trip for a service. */
export type CallMaker = (owner: ConnectionOwner, connectionId: string, service: ConnectionService, budget: ProviderBudget) => Promise<ConnectionCall>;

/** Builds the maker of round-trip calls. */
export function createCallMaker(deps: CallDeps): CallMaker {
  const { google } = deps;
  return async (owner, connectionId, service, budget) => {
    const connection = await deps.lifecycle.own(owner, connectionId);
    if (connection.status !== 'active' || !connection.accessTokenEnc) {
      throw new KgateError('provider_disconnected', 'This connection is disconnected; the customer connects Google again.');
    }
    const missing = SERVICE_SCOPES[service].filter((scope) => !connection.scopes.includes(scope));
    if (missing.length > 0) {
      throw new KgateError('forbidden', `This connection was not granted ${service} access at Google; the customer connects again asking for ${service}.`, {
        service,
        missingScopes: missing,
      });
    }
    const api = service === 'drive' ? google.urls.api : google.classroomApi;
    const call = createProviderCall({
      urls: { ...google.urls, api, content: api },
      http: deps.http,
      // Drive's 403 rate limits are waited out like 429s; Classroom answers 429 only, which every call handles.
      adapter: driveAdapter,
      token: deps.tokens.sourceFor(connection),
      budget,
      now: () => deps.clock.now().getTime(),
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
    });
    return { connection, call };
  };
}
