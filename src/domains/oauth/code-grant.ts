import { sha256Hex } from '../../kernel/hashing.ts';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';
import { isSecretShaped } from '../../kernel/secrets.ts';
import type { AuthorizationCodeTokenRequest, TokenResponse } from './contract.ts';
import { verifierMatches } from './pkce.ts';
import * as store from './store.ts';
import type { CodeRow } from './store.ts';
import { checkRequestedResource, invalidGrant, issueTokens, revokeReplayedGrant, type TokenGrantContext } from './token-grant.ts';

/**
 * The authorization_code grant (OAuth 2.1 s4.1.3): spends the code once, with its PKCE verifier, and issues tokens
 * for the grant it was made for. A code presented again revokes everything issued from it. Throws OAuthError.
 */
export async function redeemAuthorizationCode(context: TokenGrantContext, request: AuthorizationCodeTokenRequest): Promise<TokenResponse> {
  const code = request.code ?? '';
  if (!isSecretShaped(code, SECRET_PREFIXES.authorizationCode)) throw invalidGrant('The authorization code is invalid.');
  const codeHash = sha256Hex(code);
  const now = context.clock.now();
  // Replays revoke the family in their own transaction; the failing exchange then answers invalid_grant.
  const outcome = await context.db.transaction(async (tx): Promise<TokenResponse | 'replayed'> => {
    const row = checkCode(await store.findCode(tx, codeHash), request, now);
    if (row === 'replayed' || !(await store.consumeCode(tx, codeHash, now))) return 'replayed';
    if (!(await store.activateGrant(tx, row.grant_id, now))) throw invalidGrant('The authorization was revoked.');
    const grant = { grantId: row.grant_id, accountId: row.account_id, clientId: request.clientId, audience: row.resource };
    return issueTokens(tx, grant, row.scopes.filter((scope) => scope !== 'offline_access'), row.scopes, now);
  });
  if (outcome === 'replayed') {
    // OAuth 2.1 s4.1.3: a code used twice means it leaked; everything issued from it is withdrawn.
    const row = await store.findCode(context.db, codeHash);
    if (row) await revokeReplayedGrant(context, row.grant_id, row.account_id, 'code_replay', now);
    throw invalidGrant('The authorization code was already used; every token issued from it is now revoked.');
  }
  return outcome;
}

/**
 * The checks a code must pass before it is spent: the row when it may be, 'replayed' when it was spent already.
 * Checks that fail leave the code usable (the legitimate client may still redeem it): nothing is written.
 */
function checkCode(row: CodeRow | undefined, request: AuthorizationCodeTokenRequest, now: Date): CodeRow | 'replayed' {
  if (!row || row.client_id !== request.clientId) throw invalidGrant('The authorization code is invalid.');
  if (row.consumed_at) return 'replayed';
  if (row.expires_at <= now) throw invalidGrant('The authorization code has expired.');
  if (row.grant_revoked_at) throw invalidGrant('The authorization was revoked.');
  if (row.status !== 'active') throw invalidGrant('The account is suspended.');
  if (request.redirectUri !== row.redirect_uri) throw invalidGrant('redirect_uri must equal the one of the authorization request.');
  if (!verifierMatches(request.codeVerifier ?? '', row.code_challenge)) throw invalidGrant('The PKCE code_verifier does not match.');
  checkRequestedResource(request.resource, row.resource);
  return row;
}
