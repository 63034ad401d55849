/** Service principals and their client credentials, the Product Runtime token endpoint's grant, and bearer authentication. */
export { createRuntimeCredentialsService } from './service.ts';
export type { RuntimeCredentialsService } from './service.ts';
export {
  ASSERTION_ALGORITHMS,
  JWT_BEARER_ASSERTION_TYPE,
  MAX_ACTIVE_CREDENTIALS_PER_PRINCIPAL,
  RuntimeOAuthError,
} from './contract.ts';
export type {
  AddPublicKeyInput,
  CreatePrincipalInput,
  CredentialInfo,
  IssuedClientSecret,
  PrincipalInfo,
  RuntimeOAuthErrorCode,
  RuntimeTokenResponse,
} from './contract.ts';
export { RUNTIME_TOKEN_PREFIX } from './access-tokens.ts';
export { CLIENT_SECRET_PREFIX } from './client-secrets.ts';
