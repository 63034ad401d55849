import { KgateError } from '../../kernel/errors.ts';
import type { Actor, CredentialKind } from '../../kernel/principal.ts';
import { isOAuthAccessToken, type OAuthService } from '../../domains/oauth/index.ts';
import type { SessionsService, WebSession } from '../../domains/sessions/index.ts';
import type { AuthenticatedPrincipal, TokensService } from '../../domains/tokens/index.ts';
import { bearerTokenOf } from '../http/auth.ts';
import type { SurfaceProfile } from './surface.ts';

/** The services that resolve a credential (a bearer token, a session cookie) to a principal. */
export interface Authenticators {
  tokens: Pick<TokensService, 'authenticate' | 'principalFor'>;
  sessions: Pick<SessionsService, 'resolve'>;
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
    kind === 'oauth' ? await authenticators.oauth.authenticateAccessToken(bearer, surface.oauthResource ?? 'main') : await authenticators.tokens.authenticate(bearer);
  if (surface.entitlement && !principal.entitlements[surface.entitlement.key]) {
    throw new KgateError('plan_required', surface.entitlement.refusal);
  }
  return principal;
}

/** How provenance names the first-party web client of a session (the workspace, its WebMCP adapter). */
export const WORKSPACE_CLIENT = 'kgate workspace';

/** The actor of a signed-in session. */
export function sessionActor(session: WebSession): Actor {
  return { accountId: session.accountId, credentialKind: 'session', credentialId: session.id, client: WORKSPACE_CLIENT };
}

/**
 * The first steps of a call made with a signed-in session (the workspace, the WebMCP session bridge): the session is
 * resolved from its secret (the HttpOnly cookie's value) in the server's records, the surface must accept sessions,
 * and the account's current status and plan must allow the surface. Transport rules (the WebMCP header, the origin)
 * are the surface's to check before. Nothing has been consumed when any of these refuses.
 */
export async function authenticateSession(authenticators: Authenticators, surface: SurfaceProfile, sessionSecret: string | undefined): Promise<AuthenticatedPrincipal> {
  if (!surface.credentials.includes('session')) throw new KgateError('unauthenticated', surface.credentialRefusal);
  const session = sessionSecret ? await authenticators.sessions.resolve(sessionSecret) : undefined;
  if (!session) throw new KgateError('unauthenticated', 'Not signed in, or the session has ended: sign in again.');
  const principal = await authenticators.tokens.principalFor(sessionActor(session));
  if (surface.entitlement && !principal.entitlements[surface.entitlement.key]) {
    throw new KgateError('plan_required', surface.entitlement.refusal);
  }
  return principal;
}
