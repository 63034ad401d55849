/** OAuth 2.1 for the hosted MCP resource: clients, consent grants, codes, tokens and connected applications. */
export {
  ACCESS_TOKEN_TTL_MS,
  AUTHORIZATION_CODE_TTL_MS,
  DEFAULT_SCOPES,
  OAUTH_SCOPES,
  OAuthError,
  REFRESH_TOKEN_TTL_MS,
  SCOPE_EXPLANATIONS,
  isOAuthScope,
} from './contract.ts';
export type {
  AuthorizationCheck,
  AuthorizationCodeTokenRequest,
  AuthorizationRequest,
  ClientKind,
  ConnectedApplication,
  McpScope,
  OAuthClient,
  OAuthCredential,
  OAuthErrorCode,
  OAuthScope,
  RefreshTokenRequest,
  TokenRequest,
  TokenResponse,
} from './contract.ts';
export { createOAuthService } from './service.ts';
export type { ClientMetadataFetch, OAuthCredentialRow, OAuthService, OAuthServiceOptions } from './service.ts';
export { isOAuthAccessToken } from './access-tokens.ts';
export { MAX_REGISTRATION_BYTES, REGISTRATIONS_PER_ADDRESS, REGISTRATION_WINDOW_MS } from './clients.ts';
