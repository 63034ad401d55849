import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { constantTimeEqual, sha256Hex } from '../../kernel/hashing.ts';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';
import { isSecretShaped } from '../../kernel/secrets.ts';
import { entitlementsOf } from '../accounts/index.ts';
import type { AuthenticatedPrincipal, CredentialCache } from '../tokens/index.ts';
import * as store from './store.ts';

// Like personal access tokens: a minute's precision for "last used" keeps requests from becoming writes.
const TOUCH_INTERVAL_MS = 60_000;

/** True when a bearer value has the shape of our OAuth access tokens (the MCP gateway routes on it). */
export function isOAuthAccessToken(bearer: string): boolean {
  return bearer.startsWith(SECRET_PREFIXES.oauthAccessToken);
}

/**
 * Resolves OAuth access tokens at the MCP resource from current records (through the credential cache that every
 * revocation clears): the token, its grant, its audience and the account's status and plan.
 */
export function createAccessTokenAuthenticator(
  db: Database,
  clock: Clock,
  cache: CredentialCache<store.TokenRow>,
  options: { resource: () => string; narrowResources?: () => readonly string[] },
): (token: string, at?: 'main' | 'narrow') => Promise<AuthenticatedPrincipal> {
  const invalid = () => new KgateError('unauthenticated', 'The access token is invalid, expired or revoked.');
  return async (token, at = 'main') => {
    if (!isSecretShaped(token, SECRET_PREFIXES.oauthAccessToken)) throw invalid();
    const hash = sha256Hex(token);
    let row = cache.get(hash);
    if (!row) {
      const generation = cache.generation();
      row = await store.findToken(db, hash);
      if (row) cache.set(hash, row, generation);
    }
    if (!row || row.kind !== 'access' || !constantTimeEqual(row.token_hash, hash)) throw invalid();
    const now = clock.now();
    if (row.revoked_at || row.grant_revoked_at || row.expires_at <= now) throw invalid();
    // RFC 8707 / MCP authorization: a token is accepted only by the resource it was issued for. The product-only
    // endpoint serves a part of the main resource, so a token for the main resource is good there too, not the reverse.
    const accepted = row.audience === options.resource() || (at === 'narrow' && (options.narrowResources?.() ?? []).includes(row.audience));
    if (!accepted) {
      throw new KgateError('unauthenticated', 'The access token was issued for another resource.');
    }
    if (row.status !== 'active') throw new KgateError('account_inactive', 'The account is suspended.');
    if (!row.grant_last_used_at || now.getTime() - row.grant_last_used_at.getTime() > TOUCH_INTERVAL_MS) {
      await store.touchGrant(db, row.grant_id, now);
      row.grant_last_used_at = now;
    }
    return {
      actor: {
        accountId: row.account_id,
        credentialKind: 'oauth',
        credentialId: row.grant_id,
        ...(row.client_name ? { client: row.client_name } : {}),
      },
      accountId: row.account_id,
      status: row.status,
      plan: row.plan,
      entitlements: entitlementsOf(row.plan, row.allowance_overrides),
      oauth: { clientId: row.client_id, grantId: row.grant_id, scopes: row.scopes },
    };
  };
}
