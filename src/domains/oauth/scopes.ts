import { DEFAULT_SCOPES, OAuthError, OAUTH_SCOPES, isOAuthScope, type OAuthScope } from './contract.ts';

/**
 * Parses a `scope` parameter (RFC 6749 s3.3: space-delimited, case-sensitive). Absent or empty means
 * DEFAULT_SCOPES; an unknown scope is `invalid_scope`. Returned in a fixed order, without duplicates.
 */
export function parseScopes(raw: string | undefined): OAuthScope[] {
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_SCOPES];
  const requested = raw.split(' ').filter((item) => item !== '');
  const unknown = requested.filter((item) => !isOAuthScope(item));
  if (unknown.length > 0) throw new OAuthError('invalid_scope', `Unknown scope: ${unknown.join(' ').slice(0, 100)}. Known: ${OAUTH_SCOPES.join(' ')}.`);
  if (!requested.some((item) => item.startsWith('mcp:'))) {
    throw new OAuthError('invalid_scope', 'Ask for mcp:read, mcp:write or both; offline_access alone grants nothing.');
  }
  return OAUTH_SCOPES.filter((scope) => requested.includes(scope));
}

/** The scope string of a response. */
export function scopeString(scopes: readonly OAuthScope[]): string {
  return scopes.join(' ');
}
