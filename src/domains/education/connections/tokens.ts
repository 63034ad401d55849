/**
 * The tokens of delegated connections: sealed at rest (token-crypto, AES-256-GCM) under associated data naming the row,
 * its installation and its customer, so an envelope copied to another connection or field does not open; opened only
 * to make a provider call; refreshed a minute before expiry and once after a 401, one refresh per connection at a
 * time in the process (one promise) and across processes (a lease on the row). A refresh Google refuses with
 * invalid_grant marks the connection revoked and drops its tokens. Tokens are never logged, returned or put in an error.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Database } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { driveAdapter, ProviderError, type ProviderHttp, type ProviderTokens, type TokenSealer, type TokenSource } from '../../providers/index.ts';
import type { GoogleConnectionSettings } from './contract.ts';
import { KNOWN_SCOPES } from './contract.ts';
import * as store from './store.ts';

// Refresh this long before Google's expiry, so that a token does not expire in the middle of a round trip.
const REFRESH_MARGIN_MS = 60 * 1000;
// How long one process may hold a connection's refresh lease (a refresh is one bounded HTTP request).
const REFRESH_LEASE_MS = 30 * 1000;
const LEASE_WAIT_MS = 250;
const LEASE_ATTEMPTS = 20;

/** What sealing and refreshing need. */
export interface TokenDeps {
  db: Database;
  clock: Clock;
  http: ProviderHttp;
  sealer: TokenSealer;
  google: GoogleConnectionSettings;
}

/** The associated data of a connection's token envelope. */
export function tokenContext(connection: Pick<store.SealedConnection, 'id' | 'installationId' | 'customerAccountId'>, field: 'access' | 'refresh'): string {
  return `education-connection:${connection.id}:${connection.installationId}:${connection.customerAccountId}:${field}`;
}

/** The granted scopes kgate records: those it asks for, as Google named them. */
export function recordedScopes(granted: readonly string[]): string[] {
  return KNOWN_SCOPES.filter((scope) => granted.includes(scope));
}

/** Seals a token answer for a connection row. */
export function sealGrant(
  sealer: TokenSealer,
  connection: Pick<store.SealedConnection, 'id' | 'installationId' | 'customerAccountId'>,
  tokens: ProviderTokens,
): store.SealedGrant {
  return {
    scopes: recordedScopes(tokens.scopes),
    accessTokenEnc: sealer.seal(tokens.accessToken, tokenContext(connection, 'access')),
    refreshTokenEnc: tokens.refreshToken === null ? null : sealer.seal(tokens.refreshToken, tokenContext(connection, 'refresh')),
    accessExpiresAt: tokens.expiresAt,
  };
}

/** Refreshing and opening the tokens of connections. */
export interface ConnectionTokens {
  /** A token source for one round trip over an active connection (see TokenSource). */
  sourceFor(connection: store.SealedConnection): TokenSource;
}

/** Builds the token handling of delegated connections. */
export function createConnectionTokens(deps: TokenDeps): ConnectionTokens {
  const { db, clock, http, sealer, google } = deps;
  const refreshing = new Map<string, Promise<string>>();

  async function refreshOnce(connectionId: string): Promise<string> {
    for (let attempt = 0; attempt < LEASE_ATTEMPTS; attempt += 1) {
      const connection = await store.findConnection(db, connectionId);
      if (!connection || connection.status !== 'active' || !connection.accessTokenEnc) throw new ProviderError('revoked', 'The connection is disconnected.');
      const now = clock.now();
      if (!(await store.takeRefreshLease(db, connectionId, now, new Date(now.getTime() + REFRESH_LEASE_MS)))) {
        // Another process is refreshing: wait for its result instead of racing it.
        await delay(LEASE_WAIT_MS);
        continue;
      }
      if (!connection.refreshTokenEnc) {
        await store.revokeConnection(db, connectionId, 'Google no longer accepts the access token and no refresh token is held.');
        throw new ProviderError('revoked', 'Google no longer accepts the access token.');
      }
      const refreshToken = sealer.open(connection.refreshTokenEnc, tokenContext(connection, 'refresh'));
      try {
        const answered = await driveAdapter.refresh(http, google.urls, { clientId: google.clientId, clientSecret: google.clientSecret, refreshToken });
        // A refresh answer without scopes is the same grant with the scopes it had.
        const tokens = answered.scopes.length > 0 ? answered : { ...answered, scopes: connection.scopes };
        await store.storeRefreshed(db, connectionId, sealGrant(sealer, connection, tokens));
        return tokens.accessToken;
      } catch (error) {
        if (error instanceof ProviderError && (error.code === 'revoked' || error.code === 'unauthorized')) {
          await store.revokeConnection(db, connectionId, 'Google refused to refresh the grant (revoked or expired); connect again.');
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

  return {
    sourceFor(connection) {
      let expiresAt = connection.accessExpiresAt;
      let accessToken: string | undefined;
      return {
        async current() {
          if (accessToken !== undefined) return accessToken;
          if (expiresAt !== null && expiresAt.getTime() - REFRESH_MARGIN_MS <= clock.now().getTime()) {
            accessToken = await refresh(connection.id);
            expiresAt = null;
            return accessToken;
          }
          accessToken = sealer.open(connection.accessTokenEnc!, tokenContext(connection, 'access'));
          return accessToken;
        },
        async refresh() {
          accessToken = await refresh(connection.id);
          return accessToken;
        },
      };
    },
  };
}
