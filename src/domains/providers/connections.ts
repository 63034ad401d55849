import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import { createProviderCall, type MeteredProviderCall, type ProviderBudget } from './call.ts';
import * as store from './connection-store.ts';
import type { AdapterRegistry, CallFactory, ProviderConnection } from './contract.ts';
import { providerFailure } from './errors.ts';
import { ProviderError, type ProviderHttp, type ProviderTokens, type ProviderUrls, type RemoteKind } from './port.ts';
import type { TokenSealer } from './token-crypto.ts';

/** One provider's OAuth application and where the provider is reached (settings). */
export interface ProviderKindSettings {
  clientId: string;
  clientSecret: string;
  urls: ProviderUrls;
}

/** What the connections service needs besides the database. */
export interface ConnectionsDeps {
  db: Database;
  adapters: AdapterRegistry;
  http: ProviderHttp;
  /** The providers an operator configured (an OAuth application each); others are unavailable. */
  kinds: Partial<Record<RemoteKind, ProviderKindSettings>>;
  /** Seals tokens at rest; undefined when no key is configured (then no provider can be connected). */
  sealer: TokenSealer | undefined;
  /** The exact redirect URI registered with the provider for this kind. */
  redirectUri: (kind: RemoteKind) => string;
  clock: Clock;
  /** Called when the authority of mappings changed (a connection revoked or granted again): caches forget them. */
  onMappingsChanged: (mappingIds: readonly string[]) => void;
}

/** Connecting, using and disconnecting an account's provider connections. */
export interface ConnectionsService {
  /** The provider kinds that can be connected here (an OAuth application and a token key configured). */
  available(): RemoteKind[];
  /** Starts an authorization: the URL to send the owner's browser to, with a fresh state and PKCE challenge. */
  start(accountId: string, kind: RemoteKind, options: { write: boolean }): Promise<{ authorizationUrl: string }>;
  /**
   * Completes an authorization on the provider's redirect: the state must be one this account started, for this
   * provider, unused and unexpired; the code is exchanged with the PKCE verifier; capabilities come from the scopes
   * the provider actually granted.
   */
  complete(accountId: string, kind: RemoteKind, params: { state?: string | undefined; code?: string | undefined; error?: string | undefined }): Promise<ProviderConnection>;
  list(accountId: string): Promise<ProviderConnection[]>;
  /** One connection of the account; `not_found` for anyone else's or unknown ids. */
  get(accountId: string, connectionId: string): Promise<ProviderConnection>;
  /** Revokes the grant at the provider (best effort, bounded), then drops the tokens and marks it revoked. */
  disconnect(accountId: string, connectionId: string): Promise<ProviderConnection>;
  /** A call for one operation under a connection's tokens (see CallFactory). */
  callFor: CallFactory;
  /** Deletes started authorizations past their expiry. */
  purgeAuthorizations(): Promise<number>;
}

/** How long a started authorization stays usable. */
export const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;
// Refresh this long before the provider's expiry, so that a token does not expire in the middle of an operation.
const REFRESH_MARGIN_MS = 60 * 1000;
// How long one process may hold a connection's refresh lease (a refresh is one bounded HTTP request).
const REFRESH_LEASE_MS = 30 * 1000;
// The bounds of the OAuth requests themselves (exchange, refresh, revoke, identity).
const OAUTH_BUDGET: ProviderBudget = { maxRequests: 4, maxBytes: 256 * 1024, wallMs: 15_000 };

function toPublic(connection: store.SealedConnection): ProviderConnection {
  const { accessTokenEnc: _a, refreshTokenEnc: _r, ...rest } = connection;
  return rest;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Builds the connections service. */
export function createConnectionsService(deps: ConnectionsDeps): ConnectionsService {
  const { db, adapters, http, kinds, sealer, clock } = deps;
  // One refresh per connection at a time in this process; the database lease covers other processes.
  const refreshing = new Map<string, Promise<string>>();

  function settingsOf(kind: RemoteKind): ProviderKindSettings & { sealer: TokenSealer } {
    const settings = kinds[kind];
    if (!settings || !sealer) throw new KgateError('unavailable', `Connecting ${kind} is not configured on this server.`, { provider: kind });
    return { ...settings, sealer };
  }

  const tokenContext = (connectionId: string, field: 'access' | 'refresh') => `provider-connection:${connectionId}:${field}`;

  async function ownConnection(accountId: string, connectionId: string): Promise<store.SealedConnection> {
    const connection = isUuid(connectionId) ? await store.findConnection(db, connectionId) : undefined;
    if (!connection || connection.accountId !== accountId) throw new KgateError('not_found', 'The connection does not exist.');
    return connection;
  }

  async function markRevoked(connectionId: string, reason: string): Promise<void> {
    await store.revokeConnection(db, connectionId, reason);
    deps.onMappingsChanged(await store.mappingsOfConnection(db, connectionId));
  }

  function sealGrant(connectionId: string, seal: TokenSealer, tokens: ProviderTokens, kind: RemoteKind): store.ConnectionGrant {
    const capabilities = adapters[kind].capabilities(tokens.scopes);
    return {
      scopes: tokens.scopes,
      canRead: capabilities.read,
      canWrite: capabilities.write,
      accessTokenEnc: seal.seal(tokens.accessToken, tokenContext(connectionId, 'access')),
      refreshTokenEnc: tokens.refreshToken === null ? null : seal.seal(tokens.refreshToken, tokenContext(connectionId, 'refresh')),
      accessExpiresAt: tokens.expiresAt,
    };
  }

  async function refreshOnce(connectionId: string): Promise<string> {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const connection = await store.findConnection(db, connectionId);
      if (!connection || connection.status !== 'active' || !connection.accessTokenEnc) throw new ProviderError('revoked', 'The connection is disconnected.');
      const settings = settingsOf(connection.provider);
      const now = clock.now();
      if (!(await store.takeRefreshLease(db, connectionId, now, new Date(now.getTime() + REFRESH_LEASE_MS)))) {
        // Another process is refreshing: wait for its result instead of racing it with the same refresh token.
        await delay(250);
        continue;
      }
      if (!connection.refreshTokenEnc) {
        // A token that does not expire was refused: the grant was revoked at the provider.
        await markRevoked(connectionId, 'The provider no longer accepts the access token.');
        throw new ProviderError('revoked', 'The provider no longer accepts the access token.');
      }
      const refreshToken = settings.sealer.open(connection.refreshTokenEnc, tokenContext(connectionId, 'refresh'));
      try {
        const answered = await adapters[connection.provider].refresh(http, settings.urls, { clientId: settings.clientId, clientSecret: settings.clientSecret, refreshToken });
        // A refresh answer may name no scopes (Dropbox's never does): the grant is the same one, with the scopes it
        // had. Deciding capabilities from an empty list would leave the connection unable to read or write.
        const tokens = answered.scopes.length > 0 ? answered : { ...answered, scopes: connection.scopes };
        await store.storeRefreshed(db, connectionId, sealGrant(connectionId, settings.sealer, tokens, connection.provider));
        return tokens.accessToken;
      } catch (error) {
        if (error instanceof ProviderError && (error.code === 'revoked' || error.code === 'unauthorized')) {
          await markRevoked(connectionId, 'The provider refused to refresh the grant (revoked or expired).');
        } else {
          await store.releaseRefreshLease(db, connectionId, 'The last token refresh failed.');
        }
        throw error;
      }
    }
    throw new ProviderError('unavailable', 'The token refresh of another process did not finish.');
  }

  function refresh(connectionId: string): Promise<string> {
    const running = refreshing.get(connectionId);
    if (running) return running;
    const started = refreshOnce(connectionId).finally(() => refreshing.delete(connectionId));
    refreshing.set(connectionId, started);
    return started;
  }

  const callFor: CallFactory = async (mapping, budget) => {
    const connection = await store.findConnection(db, mapping.connectionId);
    if (!connection || connection.status !== 'active' || !connection.accessTokenEnc || connection.provider !== mapping.provider) {
      throw new KgateError('provider_disconnected', "This remote mapping's provider connection is disconnected; its owner reconnects the provider.");
    }
    const settings = settingsOf(connection.provider);
    const sealed = connection.accessTokenEnc;
    let expiresAt = connection.accessExpiresAt;
    let accessToken: string | undefined;
    return createProviderCall({
      urls: settings.urls,
      http,
      adapter: adapters[connection.provider],
      budget,
      token: {
        async current() {
          if (accessToken !== undefined) return accessToken;
          if (expiresAt !== null && expiresAt.getTime() - REFRESH_MARGIN_MS <= clock.now().getTime()) {
            accessToken = await refresh(connection.id);
            expiresAt = null;
            return accessToken;
          }
          accessToken = settings.sealer.open(sealed, tokenContext(connection.id, 'access'));
          return accessToken;
        },
        async refresh() {
          accessToken = await refresh(connection.id);
          return accessToken;
        },
      },
    });
  };

  function appCall(kind: RemoteKind, accessToken: string): MeteredProviderCall {
    const settings = settingsOf(kind);
    return createProviderCall({
      urls: settings.urls,
      http,
      adapter: adapters[kind],
      budget: OAUTH_BUDGET,
      token: { current: () => Promise.resolve(accessToken), refresh: () => Promise.reject(new ProviderError('unauthorized', 'The new access token was refused.')) },
    });
  }

  return {
    available: () => (sealer ? (Object.keys(kinds) as RemoteKind[]).filter((kind) => kinds[kind] !== undefined) : []),

    async start(accountId, kind, options) {
      const settings = settingsOf(kind);
      const state = randomBytes(32).toString('base64url');
      const { verifier, challenge } = pkce();
      const stateHash = sha256Hex(state);
      await store.insertAuthorization(db, {
        stateHash,
        accountId,
        provider: kind,
        verifierEnc: settings.sealer.seal(verifier, `provider-authorization:${stateHash}`),
        wantWrite: options.write,
        expiresAt: new Date(clock.now().getTime() + AUTHORIZATION_TTL_MS),
      });
      const authorizationUrl = adapters[kind].authorizationUrl(settings.urls, {
        clientId: settings.clientId,
        redirectUri: deps.redirectUri(kind),
        state,
        codeChallenge: challenge,
        write: options.write,
      });
      return { authorizationUrl };
    },

    async complete(accountId, kind, params) {
      const settings = settingsOf(kind);
      const refused = (message: string) => new KgateError('invalid_request', message);
      if (typeof params.state !== 'string' || params.state.length === 0 || params.state.length > 200) throw refused('The provider answered without a valid state.');
      const stateHash = sha256Hex(params.state);
      // Taken (deleted) whatever follows: a state is good for one answer only.
      const started = await store.takeAuthorization(db, stateHash);
      if (!started || started.accountId !== accountId || started.provider !== kind || started.expiresAt.getTime() < clock.now().getTime()) {
        throw refused('This authorization was not started here, was already used, or has expired; start again.');
      }
      if (params.error !== undefined) throw new KgateError('forbidden', 'The provider did not grant access (the request was declined).', { providerError: params.error.slice(0, 64) });
      if (typeof params.code !== 'string' || params.code.length === 0 || params.code.length > 2048) throw refused('The provider answered without an authorization code.');
      const verifier = settings.sealer.open(started.verifierEnc, `provider-authorization:${stateHash}`);
      const adapter = adapters[kind];
      let tokens: ProviderTokens;
      let identity: { id: string; name: string };
      try {
        tokens = await adapter.exchangeCode(http, settings.urls, {
          clientId: settings.clientId,
          clientSecret: settings.clientSecret,
          code: params.code,
          codeVerifier: verifier,
          redirectUri: deps.redirectUri(kind),
        });
        identity = await adapter.identity(appCall(kind, tokens.accessToken));
      } catch (error) {
        throw providerFailure(error);
      }
      const id = newId();
      const connection = await store.upsertConnection(db, {
        id,
        accountId,
        provider: kind,
        providerAccountId: identity.id,
        providerAccountName: identity.name,
        ...sealGrant(id, settings.sealer, tokens, kind),
      });
      // A reconnection keeps the connection's id; its tokens were sealed for the new id above and must match the row.
      if (connection.id !== id) {
        await store.storeRefreshed(db, connection.id, sealGrant(connection.id, settings.sealer, tokens, kind));
        // Its mappings (and those moved to it from older connections) are usable again: every cache forgets them.
        const mappings = await store.mappingsOfConnection(db, connection.id);
        await db.query('UPDATE mappings SET updated_at = now() WHERE provider_connection_id = $1', [connection.id]);
        deps.onMappingsChanged(mappings);
      }
      return toPublic((await store.findConnection(db, connection.id))!);
    },

    list: async (accountId) => (await store.listConnections(db, accountId)).map(toPublic),
    get: async (accountId, connectionId) => toPublic(await ownConnection(accountId, connectionId)),

    async disconnect(accountId, connectionId) {
      const connection = await ownConnection(accountId, connectionId);
      if (connection.status === 'active' && connection.accessTokenEnc) {
        const settings = kinds[connection.provider];
        if (settings && sealer) {
          const accessToken = sealer.open(connection.accessTokenEnc, tokenContext(connection.id, 'access'));
          const refreshToken = connection.refreshTokenEnc ? sealer.open(connection.refreshTokenEnc, tokenContext(connection.id, 'refresh')) : null;
          // Best effort: the tokens are dropped here whatever the provider answers, and the owner is told to check.
          await adapters[connection.provider]
            .revoke(http, settings.urls, { clientId: settings.clientId, clientSecret: settings.clientSecret, accessToken, refreshToken })
            .catch(() => undefined);
        }
      }
      await markRevoked(connection.id, 'Disconnected by its owner.');
      return toPublic((await store.findConnection(db, connection.id))!);
    },

    callFor,
    purgeAuthorizations: () => store.purgeAuthorizations(db, clock.now()),
  };
}
