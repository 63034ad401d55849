import type { Database } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { isUuid } from '../../../kernel/ids.ts';
import { RUNTIME_SCOPES, type RuntimeScope } from '../contract.ts';
import { issueAccessToken } from './access-tokens.ts';
import { firstInactiveLink, runtimeSettingsOf } from './chain.ts';
import { verifyClientAssertion } from './client-assertion.ts';
import { clientAuthenticationOf, invalidClient, type ClientAuthentication } from './client-authentication.ts';
import { isClientSecretShaped, matchClientSecret } from './client-secrets.ts';
import { RuntimeOAuthError, type RuntimeTokenResponse } from './contract.ts';
import * as store from './store.ts';

// RFC 6749 section 3.2: request parameters must not be included more than once.
const SINGLE_VALUED = ['grant_type', 'client_id', 'client_secret', 'client_assertion', 'client_assertion_type', 'scope'];

/** An authenticated client: the principal, the credential it proved, and the assertion id to record, if any. */
interface AuthenticatedClient {
  principalId: string;
  credentialId: string;
  assertion?: { jti: string; replayableUntil: Date };
}

async function authenticateClient(db: Database, auth: ClientAuthentication, audience: string, now: Date): Promise<AuthenticatedClient> {
  if (auth.method === 'private_key_jwt') {
    const verified = await verifyClientAssertion(db, auth, { audience, now });
    return { principalId: verified.principalId, credentialId: verified.credentialId, assertion: verified };
  }
  const wrong = () => invalidClient(auth.method, 'The client id or client secret is wrong, or the secret is revoked.');
  if (!isUuid(auth.clientId) || !isClientSecretShaped(auth.secret)) throw wrong();
  const match = matchClientSecret(auth.secret, await store.activeCredentials(db, auth.clientId, 'client_secret', now));
  if (!match) throw wrong();
  return { principalId: auth.clientId, credentialId: match.id };
}

/**
 * RFC 6749 section 3.3: the requested scope, space-separated, must be a subset of the principal's scopes; absent (or
 * empty) means all of them. Answered in the spec's order.
 */
function grantedScopes(requested: string | null, held: readonly string[]): RuntimeScope[] {
  const holds = RUNTIME_SCOPES.filter((scope) => held.includes(scope));
  if (requested === null || requested.trim() === '') return holds;
  const asked = new Set(requested.split(' ').filter((token) => token !== ''));
  for (const scope of asked) {
    if (!(RUNTIME_SCOPES as readonly string[]).includes(scope)) throw new RuntimeOAuthError('invalid_scope', `Unknown scope: ${scope.slice(0, 64)}.`);
    if (!holds.includes(scope as RuntimeScope)) throw new RuntimeOAuthError('invalid_scope', `The principal does not hold the scope ${scope}.`);
  }
  return holds.filter((scope) => asked.has(scope));
}

/**
 * The client credentials grant (RFC 6749 section 4.4) of the Product Runtime token endpoint, checked in this order:
 * parameters (invalid_request, unsupported_grant_type), client authentication (invalid_request for two methods at
 * once, invalid_client), the chain behind the principal (unauthorized_client: a token it would refuse is never
 * issued), the scope (invalid_scope), the assertion's jti (invalid_grant when replayed). A refused request writes
 * nothing; an issued token is written with the credential's `last_used_at` and the assertion's jti, together.
 */
export function createTokenGrant(db: Database, clock: Clock, tokenEndpointUrl: () => string) {
  return async function grantToken(form: URLSearchParams, authorizationHeader?: string): Promise<RuntimeTokenResponse> {
    const duplicated = SINGLE_VALUED.find((name) => form.getAll(name).length > 1);
    if (duplicated) throw new RuntimeOAuthError('invalid_request', `The parameter ${duplicated} appears more than once.`);
    const grantType = form.get('grant_type');
    if (!grantType) throw new RuntimeOAuthError('invalid_request', 'grant_type is required.');
    if (grantType !== 'client_credentials') throw new RuntimeOAuthError('unsupported_grant_type', 'The only grant type here is client_credentials.');
    const auth = clientAuthenticationOf(form, authorizationHeader);
    const now = clock.now();
    const client = await authenticateClient(db, auth, tokenEndpointUrl(), now);
    const chain = await store.findPrincipalChain(db, client.principalId);
    const inactive = chain ? firstInactiveLink(chain, runtimeSettingsOf(chain.organization_settings)) : { message: 'The principal does not exist.' };
    if (inactive) throw new RuntimeOAuthError('unauthorized_client', `${inactive.message} No token is issued.`);
    const scopes = grantedScopes(form.get('scope'), chain!.principal_scopes);
    return db.transaction(async (tx) => {
      if (client.assertion && !(await store.recordAssertionId(tx, client.principalId, client.assertion.jti, client.assertion.replayableUntil))) {
        throw new RuntimeOAuthError('invalid_grant', 'The client assertion was already used (its jti is single use).');
      }
      await store.touchCredential(tx, client.credentialId, now);
      return issueAccessToken(tx, { principalId: client.principalId, credentialId: client.credentialId, scopes, now });
    });
  };
}
