import { sha256Hex } from '../../kernel/hashing.ts';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';
import { isSecretShaped } from '../../kernel/secrets.ts';
import { OAuthError, type OAuthScope, type RefreshTokenRequest, type TokenResponse } from './contract.ts';
import { parseScopes } from './scopes.ts';
import * as store from './store.ts';
import type { TokenRow } from './store.ts';
import { checkRequestedResource, invalidGrant, issueTokens, revokeReplayedGrant, type TokenGrantContext } from './token-grant.ts';

/** A refresh token presented after it was rotated: its grant is revoked. */
interface Replay {
  replayedGrant: string;
  accountId: string;
}

/**
 * The refresh_token grant (OAuth 2.1 s4.3): rotates the refresh token and issues new tokens, with the grant's scope
 * or a narrower one. A rotated token presented again revokes the whole authorization (spec 3.2). Throws OAuthError.
 */
export async function redeemRefreshToken(context: TokenGrantContext, request: RefreshTokenRequest): Promise<TokenResponse> {
  const token = request.refreshToken ?? '';
  if (!isSecretShaped(token, SECRET_PREFIXES.oauthRefreshToken)) throw invalidGrant('The refresh token is invalid.');
  const now = context.clock.now();
  const outcome = await context.db.transaction(async (tx): Promise<TokenResponse | Replay> => {
    const { row, rotated } = checkRefreshToken(await store.findToken(tx, sha256Hex(token)), request, now);
    if (rotated) return replayOf(row);
    const accessScopes = accessScopesOf(request.scope, row.scopes);
    // The check and the mark are one statement: of two concurrent refreshes only one rotates; the other is a replay.
    if (!(await store.rotateRefreshToken(tx, row.id, now))) return replayOf(row);
    const grant = { grantId: row.grant_id, accountId: row.account_id, clientId: request.clientId, audience: row.audience };
    return issueTokens(tx, grant, accessScopes.filter((scope) => scope !== 'offline_access'), row.scopes, now);
  });
  if ('replayedGrant' in outcome) {
    // Spec 3.2: presenting a rotated refresh token revokes the grant and its whole token family.
    await revokeReplayedGrant(context, outcome.replayedGrant, outcome.accountId, 'refresh_replay', now);
    throw invalidGrant('The refresh token was already used; the whole authorization is now revoked.');
  }
  return outcome;
}

/**
 * The checks a refresh token must pass before it is rotated; `rotated` when it was rotated already (a replay, which
 * the checks after that one do not concern).
 */
function checkRefreshToken(row: TokenRow | undefined, request: RefreshTokenRequest, now: Date): { row: TokenRow; rotated: boolean } {
  if (!row || row.kind !== 'refresh' || row.client_id !== request.clientId) throw invalidGrant('The refresh token is invalid.');
  if (row.grant_revoked_at || row.revoked_at) throw invalidGrant('The refresh token was revoked.');
  if (row.rotated_at) return { row, rotated: true };
  if (row.expires_at <= now) throw invalidGrant('The refresh token has expired.');
  if (row.status !== 'active') throw invalidGrant('The account is suspended.');
  checkRequestedResource(request.resource, row.audience);
  return { row, rotated: false };
}

const replayOf = (row: TokenRow): Replay => ({ replayedGrant: row.grant_id, accountId: row.account_id });

/** The new access token's scopes: those asked for, or the grant's without offline_access; never more (RFC 6749 s6). */
function accessScopesOf(requested: string | undefined, granted: readonly OAuthScope[]): OAuthScope[] {
  const scopes = requested === undefined ? granted.filter((scope) => scope !== 'offline_access') : parseScopes(requested);
  if (!scopes.every((scope) => granted.includes(scope))) {
    throw new OAuthError('invalid_scope', 'A refresh cannot add scopes the grant does not have.');
  }
  return scopes;
}
