import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { createCredentialCache, type AuthenticatedPrincipal, type CredentialCache } from '../tokens/index.ts';
import { createAccessTokenAuthenticator } from './access-tokens.ts';
import { createAuthorization } from './authorization.ts';
import type { ClientMetadataFetch } from './client-id-document.ts';
import { createClients } from './clients.ts';
import { createConnections } from './connections.ts';
import type { AuthorizationCheck, AuthorizationRequest, ConnectedApplication, TokenRequest, TokenResponse } from './contract.ts';
import { createRevocation } from './revocation.ts';
import * as store from './store.ts';
import type { TokenRow } from './store.ts';
import { createTokenEndpoint } from './token-endpoint.ts';

export type { ClientMetadataFetch } from './client-id-document.ts';

/** A resolved OAuth access token as the credential cache keeps it. */
export type OAuthCredentialRow = TokenRow;

/** What the authorization server needs besides the database. */
export interface OAuthServiceOptions {
  /** The issuer identifier: the public base URL (known only after binding when the port is chosen at start). */
  issuer: () => string;
  /** The main resource tokens are for, and the default of a request that names none: `{base}/api/mcp`. */
  resource: () => string;
  /**
   * Resources that serve a part of the main one (`{base}/api/intelligence/mcp`, the six published-intelligence tools):
   * a client may ask for a token for one of them, and such a token is accepted only there (docs/oauth.md).
   */
  narrowResources?: () => readonly string[];
  /** Fetches client ID metadata documents; the adapter bounds it and guards it against private addresses. */
  fetchClientMetadata: ClientMetadataFetch;
  /** Resolved access tokens; the gateway enables it while it hears credential notifications. */
  cache?: CredentialCache<OAuthCredentialRow>;
}

/** Authorization server and resource-server use cases. */
export interface OAuthService {
  /**
   * RFC 7591: registers a public client; returns the response body (201). Throws OAuthError. With a client address
   * (the HTTP endpoint always gives one), rate-limited per address: `temporarily_unavailable`, 429, nothing stored.
   */
  registerClient(metadata: unknown, clientAddress?: string): Promise<Record<string, unknown>>;
  /** Checks `/oauth/authorize` parameters (query or the consent form's echo of them). */
  checkAuthorizationRequest(params: URLSearchParams): Promise<AuthorizationCheck>;
  /** The signed-in account approved: stores the grant and a code; returns the client redirect URL. */
  approve(accountId: string, request: AuthorizationRequest): Promise<string>;
  /** The signed-in account refused: the client redirect URL with `access_denied`. */
  deny(request: AuthorizationRequest): string;
  /** The token endpoint (authorization_code and refresh_token grants), for a request read from its form. Throws OAuthError. */
  exchange(request: TokenRequest): Promise<TokenResponse>;
  /** RFC 7009 revocation by a public client of its own token. Unknown tokens succeed silently. Throws OAuthError. */
  revoke(form: URLSearchParams): Promise<void>;
  /**
   * Resolves an OAuth access token; KgateError `unauthenticated` or `account_inactive`. `at`: the resource the token is
   * presented at: `main` accepts only tokens for the main resource; `narrow` (a narrow resource's endpoint) accepts
   * tokens for the main resource or for a narrow one.
   */
  authenticateAccessToken(token: string, at?: 'main' | 'narrow'): Promise<AuthenticatedPrincipal>;
  /** Applications with an active grant, one entry per client. */
  listConnections(accountId: string): Promise<ConnectedApplication[]>;
  /** Revokes every grant of one client for the account, and with them every token; false if there was none. */
  revokeConnection(accountId: string, clientId: string): Promise<boolean>;
  /** Deletes expired codes and tokens and never-used approvals; returns how many rows went. */
  purgeExpired(): Promise<number>;
  /** The issuer identifier (the public base URL). */
  issuer(): string;
  /** The protected resource: `{base}/api/mcp`. */
  resource(): string;
}

/** Builds the OAuth service. */
export function createOAuthService(db: Database, clock: Clock, options: OAuthServiceOptions): OAuthService {
  const cache = options.cache ?? createCredentialCache<OAuthCredentialRow>();
  const forgetAccount = (accountId: string) => cache.forgetAccount(accountId);
  const clients = createClients(db, clock, options.fetchClientMetadata);
  const authorization = createAuthorization(db, clock, clients, options);
  const tokenEndpoint = createTokenEndpoint(db, clock, { resource: options.resource, forgetAccount });
  const connections = createConnections(db, clock, forgetAccount);
  return {
    registerClient: (metadata, clientAddress) => clients.register(metadata, clientAddress),
    checkAuthorizationRequest: (params) => authorization.check(params),
    approve: (accountId, request) => authorization.approve(accountId, request),
    deny: (request) => authorization.deny(request),
    exchange: (request) => tokenEndpoint.exchange(request),
    revoke: createRevocation(db, clock, forgetAccount),
    authenticateAccessToken: createAccessTokenAuthenticator(db, clock, cache, options),
    listConnections: (accountId) => connections.list(accountId),
    revokeConnection: (accountId, clientId) => connections.revoke(accountId, clientId),
    purgeExpired: () => store.purgeExpired(db, clock.now()),
    issuer: options.issuer,
    resource: options.resource,
  };
}
