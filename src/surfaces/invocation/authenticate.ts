import { KgateError } from '../../kernel/errors.ts';
import type { CredentialKind } from '../../kernel/principal.ts';
import { isOAuthAccessToken, type OAuthService } from '../../domains/oauth/index.ts';
import type { AuthenticatedPrincipal, TokensService } from '../../domains/tokens/index.ts';
import { bearerTokenOf } from '../http/auth.ts';
import type { SurfaceProfile } from './surface.ts';

/** The services that resolve a bearer token to a principal. */
export interface Authenticators {
  tokens: Pick<TokensService, 'authenticate'>;
  oauth: Pick<OAuthService, 'authenticateAccessToken'>;
}

/**
 * The first steps of every call: the bearer token of the `Authorization` header is resolved from server records to
 * a principal (its account's current status is checked there: a suspended account gets `account_inactive`), the
 * surface must accept that kind of credential, and the account's current plan must include the surface. Nothing
 * has been consumed when any of these refuses.
 */
export async function authenticate(authenticators: Authenticators, surface: SurfaceProfile, authorization: string | undefined): Promise<AuthenticatedPrincipal> {
  const bearer = bearerTokenOf(authorization);
  const kind: CredentialKind = isOAuthAccessToken(bearer) ? 'oauth' : 'personal_access_token';
  if (!surface.credentials.includes(kind)) throw new KgateError('unauthenticated', surface.credentialRefusal);
  const principal =
    kind === 'oauth' ? await authenticators.oauth.authenticateAccessToken(bearer) : await authenticators.tokens.authenticate(bearer);
  if (surface.entitlement && !principal.entitlements[surface.entitlement.key]) {
    throw new KgateError('plan_required', surface.entitlement.refusal);
  }
  return principal;
}
