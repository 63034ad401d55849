import { KgateError } from '../../kernel/errors.ts';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';
import { runtimeActor, type RuntimeService } from '../../domains/runtime/index.ts';
import type { AuthenticatedPrincipal, TokensService } from '../../domains/tokens/index.ts';
import { bearerTokenOf } from '../http/auth.ts';
import { PRODUCT_SURFACE } from '../invocation/surface.ts';

/** What authenticates a Product Runtime request. */
export interface ProductAuthenticators {
  runtime: Pick<RuntimeService, 'authenticate'>;
  tokens: Pick<TokensService, 'principalFor'>;
}

/**
 * Links 1 to 8 of the chain (docs/runtime.md): only a Product Runtime access token is accepted here (personal, OAuth
 * and session credentials are refused by their shape before any lookup), the runtime domain resolves the principal
 * and every record behind it, and the customer account's current standing makes the principal that operations
 * see, acting for the customer through the product.
 */
export async function authenticateProduct(deps: ProductAuthenticators, authorization: string | undefined): Promise<AuthenticatedPrincipal> {
  const bearer = (() => {
    try {
      return bearerTokenOf(authorization);
    } catch {
      throw new KgateError('unauthenticated', 'Send a Product Runtime access token as "Authorization: Bearer <token>" (POST /api/product/v1/oauth/token issues one).');
    }
  })();
  if (!bearer.startsWith(SECRET_PREFIXES.runtimeAccessToken)) throw new KgateError('unauthenticated', PRODUCT_SURFACE.credentialRefusal);
  const runtime = await deps.runtime.authenticate(bearer);
  const principal = await deps.tokens.principalFor(runtimeActor(runtime));
  return { ...principal, runtime };
}
