import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';
import { isSecretShaped, newSecret } from '../../kernel/secrets.ts';
import { ACCESS_TOKEN_TTL_MS, OAuthError, REFRESH_TOKEN_TTL_MS, type OAuthScope, type TokenResponse } from './contract.ts';
import { verifierMatches } from './pkce.ts';
import { parseScopes, scopeString } from './scopes.ts';
import * as store from './store.ts';

const SINGLE_VALUED = ['grant_type', 'client_id', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'resource', 'scope'];

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** The token endpoint: authorization_code and refresh_token grants for public clients (OAuth 2.1 s4.1.3, s4.3). */
export function createTokenEndpoint(
  db: Database,
  clock: Clock,
  options: { resource: () => string; forgetAccount: (accountId: string) => void },
) {
  async function issue(
    sql: Sql,
    grant: { grantId: string; accountId: string; clientId: string; audience: string },
    accessScopes: readonly OAuthScope[],
    grantScopes: readonly OAuthScope[],
    now: Date,
  ): Promise<TokenResponse> {
    const accessToken = newSecret(SECRET_PREFIXES.oauthAccessToken);
    const base = { grantId: grant.grantId, accountId: grant.accountId, clientId: grant.clientId, audience: grant.audience, now };
    await store.insertToken(sql, {
      ...base,
      id: newId(now.getTime()),
      tokenHash: sha256Hex(accessToken),
      kind: 'access',
      scopes: accessScopes,
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS),
    });
    const response: TokenResponse = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_MS / 1000,
      scope: scopeString(accessScopes),
    };
    if (grantScopes.includes('offline_access')) {
      const refreshToken = newSecret(SECRET_PREFIXES.oauthRefreshToken);
      await store.insertToken(sql, {
        ...base,
        id: newId(now.getTime()),
        tokenHash: sha256Hex(refreshToken),
        kind: 'refresh',
        scopes: grantScopes,
        expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
      });
      response.refresh_token = refreshToken;
      // The scope answers what was granted, offline access included, though the access token itself needs no such scope.
      response.scope = scopeString([...accessScopes, 'offline_access']);
    }
    return response;
  }

  /** RFC 8707 s2.2: a resource at the token endpoint may only repeat the granted one, never widen it. */
  function checkResource(form: URLSearchParams, granted: string): void {
    const resource = form.get('resource');
    if (resource !== null && (resource !== granted || resource !== options.resource())) {
      throw new OAuthError('invalid_target', 'The resource differs from the one the grant was made for.');
    }
  }

  async function authorizationCode(form: URLSearchParams, clientId: string): Promise<TokenResponse> {
    const code = form.get('code') ?? '';
    if (!isSecretShaped(code, SECRET_PREFIXES.authorizationCode)) throw invalidGrant('The authorization code is invalid.');
    const codeHash = sha256Hex(code);
    const now = clock.now();
    // Replays revoke the family in their own transaction; the failing exchange then answers invalid_grant.
    const outcome = await db.transaction(async (tx): Promise<TokenResponse | 'replayed'> => {
      const row = await store.findCode(tx, codeHash);
      // Checks that fail leave the code usable (the legitimate client may still redeem it): nothing is written.
      if (!row || row.client_id !== clientId) throw invalidGrant('The authorization code is invalid.');
      if (row.consumed_at) return 'replayed';
      if (row.expires_at <= now) throw invalidGrant('The authorization code has expired.');
      if (row.grant_revoked_at) throw invalidGrant('The authorization was revoked.');
      if (row.status !== 'active') throw invalidGrant('The account is suspended.');
      if (form.get('redirect_uri') !== row.redirect_uri) throw invalidGrant('redirect_uri must equal the one of the authorization request.');
      if (!verifierMatches(form.get('code_verifier') ?? '', row.code_challenge)) throw invalidGrant('The PKCE code_verifier does not match.');
      checkResource(form, row.resource);
      if (!(await store.consumeCode(tx, codeHash, now))) return 'replayed';
      if (!(await store.activateGrant(tx, row.grant_id, now))) throw invalidGrant('The authorization was revoked.');
      const grant = { grantId: row.grant_id, accountId: row.account_id, clientId, audience: row.resource };
      return issue(tx, grant, row.scopes.filter((scope) => scope !== 'offline_access'), row.scopes, now);
    });
    if (outcome === 'replayed') {
      // OAuth 2.1 s4.1.3: a code used twice means it leaked; everything issued from it is withdrawn.
      const row = await store.findCode(db, codeHash);
      if (row) {
        await store.revokeGrant(db, row.grant_id, 'code_replay', now);
        options.forgetAccount(row.account_id);
      }
      throw invalidGrant('The authorization code was already used; every token issued from it is now revoked.');
    }
    return outcome;
  }

  async function refreshToken(form: URLSearchParams, clientId: string): Promise<TokenResponse> {
    const token = form.get('refresh_token') ?? '';
    if (!isSecretShaped(token, SECRET_PREFIXES.oauthRefreshToken)) throw invalidGrant('The refresh token is invalid.');
    const now = clock.now();
    const outcome = await db.transaction(async (tx): Promise<TokenResponse | { replayedGrant: string; accountId: string }> => {
      const row = await store.findToken(tx, sha256Hex(token));
      if (!row || row.kind !== 'refresh' || row.client_id !== clientId) throw invalidGrant('The refresh token is invalid.');
      if (row.grant_revoked_at || row.revoked_at) throw invalidGrant('The refresh token was revoked.');
      if (row.rotated_at) return { replayedGrant: row.grant_id, accountId: row.account_id };
      if (row.expires_at <= now) throw invalidGrant('The refresh token has expired.');
      if (row.status !== 'active') throw invalidGrant('The account is suspended.');
      checkResource(form, row.audience);
      // A refresh may narrow the access token's scope, never widen it (RFC 6749 s6).
      const requested = form.get('scope');
      const accessScopes = requested === null ? row.scopes.filter((scope) => scope !== 'offline_access') : parseScopes(requested);
      if (!accessScopes.every((scope) => row.scopes.includes(scope))) {
        throw new OAuthError('invalid_scope', 'A refresh cannot add scopes the grant does not have.');
      }
      // The check and the mark are one statement: of two concurrent refreshes only one rotates; the other is a replay.
      if (!(await store.rotateRefreshToken(tx, row.id, now))) return { replayedGrant: row.grant_id, accountId: row.account_id };
      const grant = { grantId: row.grant_id, accountId: row.account_id, clientId, audience: row.audience };
      return issue(tx, grant, accessScopes.filter((scope) => scope !== 'offline_access'), row.scopes, now);
    });
    if ('replayedGrant' in outcome) {
      // Spec 3.2: presenting a rotated refresh token revokes the grant and its whole token family.
      await store.revokeGrant(db, outcome.replayedGrant, 'refresh_replay', now);
      options.forgetAccount(outcome.accountId);
      throw invalidGrant('The refresh token was already used; the whole authorization is now revoked.');
    }
    return outcome;
  }

  return {
    /** Answers a token request; throws OAuthError. */
    async exchange(form: URLSearchParams): Promise<TokenResponse> {
      const duplicated = SINGLE_VALUED.find((name) => form.getAll(name).length > 1);
      if (duplicated) throw new OAuthError('invalid_request', `The parameter ${duplicated} appears more than once.`);
      const grantType = form.get('grant_type');
      if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
        throw new OAuthError('unsupported_grant_type', 'Supported grant types: authorization_code, refresh_token.');
      }
      const clientId = form.get('client_id');
      if (!clientId) throw new OAuthError('invalid_request', 'client_id is required (public clients authenticate with it alone).');
      if (form.has('client_secret')) throw new OAuthError('invalid_client', 'Clients here are public: send no client_secret.');
      return grantType === 'authorization_code' ? authorizationCode(form, clientId) : refreshToken(form, clientId);
    },
  };
}
