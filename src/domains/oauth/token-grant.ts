import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';
import { newSecret } from '../../kernel/secrets.ts';
import { ACCESS_TOKEN_TTL_MS, OAuthError, REFRESH_TOKEN_TTL_MS, type OAuthScope, type TokenResponse } from './contract.ts';
import { scopeString } from './scopes.ts';
import * as store from './store.ts';

/** What the token endpoint's grants need besides the request. */
export interface TokenGrantContext {
  db: Database;
  clock: Clock;
  /** The one resource tokens are for: `{base}/api/mcp`. */
  resource: () => string;
  /** Drops an account's cached credentials at once, when a grant is revoked. */
  forgetAccount: (accountId: string) => void;
}

/** The grant tokens are issued under, and the resource they are for. */
export interface IssuingGrant {
  grantId: string;
  accountId: string;
  clientId: string;
  audience: string;
}

/** An `invalid_grant` error (RFC 6749 s5.2). */
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** RFC 8707 s2.2: a resource at the token endpoint may only repeat the granted one, never widen it. */
export function checkRequestedResource(requested: string | undefined, granted: string): void {
  if (requested !== undefined && requested !== granted) {
    throw new OAuthError('invalid_target', 'The resource differs from the one the grant was made for.');
  }
}

/**
 * Issues an access token for `accessScopes`, and a refresh token for `grantScopes` when the grant has offline
 * access; stores only their hashes.
 */
export async function issueTokens(
  sql: Sql,
  grant: IssuingGrant,
  accessScopes: readonly OAuthScope[],
  grantScopes: readonly OAuthScope[],
  now: Date,
): Promise<TokenResponse> {
  const base = { grantId: grant.grantId, accountId: grant.accountId, clientId: grant.clientId, audience: grant.audience, now };
  const storeToken = (kind: 'access' | 'refresh', token: string, scopes: readonly OAuthScope[], lifetimeMs: number) =>
    store.insertToken(sql, { ...base, id: newId(now.getTime()), tokenHash: sha256Hex(token), kind, scopes, expiresAt: new Date(now.getTime() + lifetimeMs) });
  const accessToken = newSecret(SECRET_PREFIXES.oauthAccessToken);
  await storeToken('access', accessToken, accessScopes, ACCESS_TOKEN_TTL_MS);
  const response: TokenResponse = {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    scope: scopeString(accessScopes),
  };
  if (grantScopes.includes('offline_access')) {
    const refreshToken = newSecret(SECRET_PREFIXES.oauthRefreshToken);
    await storeToken('refresh', refreshToken, grantScopes, REFRESH_TOKEN_TTL_MS);
    response.refresh_token = refreshToken;
    // The scope answers what was granted, offline access included, though the access token itself needs no such scope.
    response.scope = scopeString([...accessScopes, 'offline_access']);
  }
  return response;
}

/**
 * Revokes a grant whose code or refresh token was presented again, with its whole token family, outside the failing
 * exchange's transaction (which rolls back), and forgets the account's cached credentials.
 */
export async function revokeReplayedGrant(context: TokenGrantContext, grantId: string, accountId: string, reason: string, now: Date): Promise<void> {
  await store.revokeGrant(context.db, grantId, reason, now);
  context.forgetAccount(accountId);
}
