import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { redeemAuthorizationCode } from './code-grant.ts';
import type { TokenRequest, TokenResponse } from './contract.ts';
import { redeemRefreshToken } from './refresh-grant.ts';

/**
 * The token endpoint: authorization_code and refresh_token grants for public clients (OAuth 2.1 s4.1.3, s4.3). It
 * receives requests the OAuth surface has read from their form (see TokenRequest).
 */
export function createTokenEndpoint(
  db: Database,
  clock: Clock,
  options: { resource: () => string; forgetAccount: (accountId: string) => void },
) {
  const context = { db, clock, resource: options.resource, forgetAccount: options.forgetAccount };
  return {
    /** Answers a token request; throws OAuthError. */
    async exchange(request: TokenRequest): Promise<TokenResponse> {
      return request.grantType === 'authorization_code' ? redeemAuthorizationCode(context, request) : redeemRefreshToken(context, request);
    },
  };
}
