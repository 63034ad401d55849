import type { Database } from '../../../db/port.ts';
import { systemClock, type Clock } from '../../../kernel/clock.ts';
import type { RuntimePrincipal } from '../contract.ts';
import { createRuntimeAuthenticator } from './access-tokens.ts';
import { createClientCredentials } from './client-credentials.ts';
import type {
  AddPublicKeyInput,
  CreatePrincipalInput,
  CredentialInfo,
  IssuedClientSecret,
  PrincipalInfo,
  RuntimeTokenResponse,
} from './contract.ts';
import { createPrincipals } from './principals.ts';
import * as store from './store.ts';
import { createTokenGrant } from './token-grant.ts';

/** Service principals, their client credentials, the token endpoint's grant and bearer authentication. */
export interface RuntimeCredentialsService {
  /** Creates a principal of an active installation; the actor must administer the product's organization. */
  createPrincipal(actorAccountId: string, installationId: string, input: CreatePrincipalInput): Promise<PrincipalInfo>;
  /** An installation's principals, newest first. */
  listPrincipals(actorAccountId: string, installationId: string): Promise<PrincipalInfo[]>;
  /** Revokes a principal, and with it every token issued to it (refused as principal_revoked); revoking twice is harmless. */
  revokePrincipal(actorAccountId: string, principalId: string): Promise<PrincipalInfo>;
  /** Adds a client secret (`kgcs_…`), returned once. */
  addClientSecret(actorAccountId: string, principalId: string): Promise<IssuedClientSecret>;
  /** Registers a public JWK for private_key_jwt. */
  addPublicKey(actorAccountId: string, principalId: string, input: AddPublicKeyInput): Promise<CredentialInfo>;
  /** A principal's credentials, newest first; never a secret. */
  listCredentials(actorAccountId: string, principalId: string): Promise<CredentialInfo[]>;
  /** Revokes a credential and the tokens issued from it; revoking twice is harmless. */
  revokeCredential(actorAccountId: string, credentialId: string): Promise<CredentialInfo>;
  /**
   * The client credentials grant of `POST /api/product/v1/oauth/token`: the form's parameters and the Authorization
   * header, if any. Answers RFC 6749 section 5.1 JSON; throws RuntimeOAuthError.
   */
  grantToken(form: URLSearchParams, authorizationHeader?: string): Promise<RuntimeTokenResponse>;
  /** Links 1 to 8 of the chain for a `kgrp_` bearer token; throws KgateError with the link's code. */
  authenticate(bearer: string): Promise<RuntimePrincipal>;
  /** Deletes expired tokens and assertion ids that can no longer be replayed. */
  purgeExpired(): Promise<{ tokens: number; assertionIds: number }>;
}

/** Builds the service. `tokenEndpointUrl` is the token endpoint's absolute URL: the `aud` client assertions must name. */
export function createRuntimeCredentialsService(
  db: Database,
  options: { clock?: Clock; tokenEndpointUrl: () => string },
): RuntimeCredentialsService {
  const clock = options.clock ?? systemClock;
  return {
    ...createPrincipals(db, clock),
    ...createClientCredentials(db, clock),
    grantToken: createTokenGrant(db, clock, options.tokenEndpointUrl),
    authenticate: createRuntimeAuthenticator(db, clock),
    purgeExpired: () => store.purgeExpired(db, clock.now()),
  };
}
