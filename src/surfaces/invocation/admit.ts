import { KgateError } from '../../kernel/errors.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { Reservation, UsageService } from '../../domains/usage/index.ts';
import type { AnyOperation, OperationScope } from '../operations/operation.ts';
import type { SurfaceProfile } from './surface.ts';

/**
 * May this principal call this operation at all? Its credential kind must be one the operation accepts (a surface
 * may accept more kinds than one of its operations does).
 */
export function assertCredentialAccepted(operation: AnyOperation, principal: AuthenticatedPrincipal): void {
  if (!operation.credentials.includes(principal.actor.credentialKind)) {
    throw new KgateError('forbidden', `${operation.id} does not accept ${principal.actor.credentialKind} credentials.`);
  }
}

/**
 * The admission of one call, after authentication: an OAuth access token must carry the scope the call needs
 * (personal access tokens carry every scope of their account), then one unit of the surface's allowance is
 * reserved, in both the minute and the month (spec 8 rule 2). A refusal here consumes nothing.
 */
export async function admit(
  usage: Pick<UsageService, 'reserve'>,
  surface: SurfaceProfile,
  principal: AuthenticatedPrincipal,
  scope: OperationScope | undefined,
): Promise<Reservation | undefined> {
  if (scope && principal.oauth && !principal.oauth.scopes.includes(scope)) {
    throw new KgateError('insufficient_scope', `This ${surface.words.call} needs the ${scope} scope, which the access token was not granted.`, {
      scope,
    });
  }
  const counter = surface.counter;
  if (!counter) return undefined;
  const { entitlements } = principal;
  const allowance =
    counter === 'mcp'
      ? { perMinute: entitlements.mcpOperationsPerMinute, perMonth: entitlements.mcpOperationsPerMonth }
      : { perMinute: entitlements.restOperationsPerMinute, perMonth: entitlements.restOperationsPerMonth };
  return usage.reserve(principal.accountId, counter, allowance);
}
