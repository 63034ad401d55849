import type { Context, MiddlewareHandler } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import type { TokensService } from '../../domains/tokens/index.ts';
import { isOAuthAccessToken } from '../../domains/oauth/index.ts';
import type { HttpEnv } from './context.ts';

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/** The `WWW-Authenticate` challenge for a 401 (RFC 6750 s3): `error` only when a token was presented. */
export function bearerChallenge(presented: boolean, extra: Readonly<Record<string, string>> = {}): string {
  const params = { realm: 'kgate', ...(presented ? { error: 'invalid_token' } : {}), ...extra };
  return `Bearer ${Object.entries(params)
    .map(([key, value]) => `${key}="${value.replace(/["\\]/g, '')}"`)
    .join(', ')}`;
}

/** The bearer token of the request; throws `unauthenticated` when there is none. */
export function bearerToken(c: Context<HttpEnv>): string {
  return bearerTokenOf(c.req.header('authorization'));
}

/** The bearer token in an `Authorization` header value; throws `unauthenticated` when there is none. */
export function bearerTokenOf(header: string | undefined): string {
  const match = header ? BEARER.exec(header) : null;
  if (!match) {
    throw new KgateError('unauthenticated', 'Send a personal access token as "Authorization: Bearer <token>".');
  }
  return match[1]!;
}

/**
 * Requires a personal access token in `Authorization: Bearer`. The principal, the account status and plan are
 * resolved on every request from current records, through the credential cache that every change of access
 * clears (domains/tokens/credential-cache.ts), so a revoked token fails on the next request.
 */
export function requireBearer(tokens: TokensService): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const bearer = bearerToken(c);
    // Spec 5 rule 1: OAuth tokens are bound to the MCP resource and never authenticate anything else.
    if (isOAuthAccessToken(bearer)) {
      throw new KgateError('unauthenticated', 'OAuth access tokens are valid only at the MCP gateway (/api/mcp); use a personal access token here.');
    }
    c.set('principal', await tokens.authenticate(bearer));
    await next();
  };
}
