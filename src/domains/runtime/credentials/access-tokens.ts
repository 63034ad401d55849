import type { Sql } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { constantTimeEqual, sha256Hex } from '../../../kernel/hashing.ts';
import { SECRET_PREFIXES } from '../../../kernel/secret-prefixes.ts';
import { isSecretShaped, newSecret } from '../../../kernel/secrets.ts';
import { RUNTIME_SCOPES, RUNTIME_TOKEN_TTL_SECONDS, type RuntimePrincipal, type RuntimeScope } from '../contract.ts';
import { firstInactiveLink, runtimeSettingsOf } from './chain.ts';
import type { RuntimeTokenResponse } from './contract.ts';
import * as store from './store.ts';

/** Product Runtime access tokens: `kgrp_` and 256 random bits, stored as SHA-256 only, living RUNTIME_TOKEN_TTL_SECONDS. */

/** The prefix of every Product Runtime access token: it and the token's table bind it to the Product Runtime. */
export const RUNTIME_TOKEN_PREFIX = SECRET_PREFIXES.runtimeAccessToken;

/** A scope list in the spec's order, as the token response's space-separated `scope`. */
export function scopeString(scopes: readonly RuntimeScope[]): string {
  return scopes.join(' ');
}

/** Issues a token for `scopes` from the credential; stores only its hash. */
export async function issueAccessToken(
  sql: Sql,
  input: { principalId: string; credentialId: string; scopes: readonly RuntimeScope[]; now: Date },
): Promise<RuntimeTokenResponse> {
  const token = newSecret(RUNTIME_TOKEN_PREFIX);
  await store.insertAccessToken(sql, {
    tokenHash: sha256Hex(token),
    principalId: input.principalId,
    credentialId: input.credentialId,
    scopes: input.scopes,
    expiresAt: new Date(input.now.getTime() + RUNTIME_TOKEN_TTL_SECONDS * 1000),
    now: input.now,
  });
  return { access_token: token, token_type: 'Bearer', expires_in: RUNTIME_TOKEN_TTL_SECONDS, scope: scopeString(input.scopes) };
}

/**
 * Resolves a bearer token to a RuntimePrincipal: links 1 to 8 of the chain (docs/runtime.md) from one indexed query,
 * refused in the contract's order with its codes. Nothing is cached: a revocation, an uninstallation or a suspension
 * stops the very next call, on every process.
 */
export function createRuntimeAuthenticator(sql: Sql, clock: Clock): (bearer: string) => Promise<RuntimePrincipal> {
  const unauthenticated = () => new KgateError('unauthenticated', 'The Product Runtime access token is invalid or expired.');
  return async (bearer) => {
    // Personal, OAuth and session credentials, and junk, stop here without a query.
    if (!isSecretShaped(bearer, RUNTIME_TOKEN_PREFIX)) throw unauthenticated();
    const hash = sha256Hex(bearer);
    const row = await store.findTokenChain(sql, hash);
    const now = clock.now();
    // Link 1. The lookup is by hash; the comparison guards against any future lookup that is not exact.
    if (!row || !constantTimeEqual(row.token_hash, hash) || row.token_expires_at <= now) throw unauthenticated();
    // Link 2.
    if (row.principal_status !== 'active') throw new KgateError('principal_revoked', 'The service principal is revoked.');
    // Link 3: the credential the token was issued from (revoking it deletes its tokens; this covers a race with that).
    if (row.credential_status !== 'active' || (row.credential_expires_at !== null && row.credential_expires_at <= now)) throw unauthenticated();
    // Links 4 to 8.
    const settings = runtimeSettingsOf(row.organization_settings);
    const inactive = firstInactiveLink(row, settings);
    if (inactive) throw new KgateError(inactive.code, inactive.message);
    const held = new Set(row.principal_scopes);
    return {
      principalId: row.principal_id,
      principalName: row.principal_name,
      credentialId: row.credential_id,
      // Link 9 is the route's: here, what the token carries that the principal still holds.
      scopes: RUNTIME_SCOPES.filter((scope) => row.token_scopes.includes(scope) && held.has(scope)),
      installationId: row.installation_id,
      intelligenceSublimitMicrodollars: sublimitOf(row.installation_configuration),
      customerAccountId: row.customer_account_id,
      product: { id: row.product_id, slug: row.product_slug, name: row.product_name, domainPack: row.product_domain_pack },
      organization: { id: row.organization_id, slug: row.organization_slug, name: row.organization_name, settings: settings! },
    };
  };
}

/** The installation's intelligence budget sublimit (configuration.productRuntime), or null when none is set or it is not a whole number. */
function sublimitOf(configuration: unknown): number | null {
  const value = (configuration as { productRuntime?: { intelligenceBudgetMicrodollarsMonthly?: unknown } } | null)?.productRuntime?.intelligenceBudgetMicrodollarsMonthly;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
