/** Personal access tokens: issue, list, rotate, revoke, and bearer authentication. */
export { TokenInfoSchema } from './contract.ts';
export type { AuthenticatedPrincipal, IssuedToken, TokenInfo } from './contract.ts';
export { createTokensService } from './service.ts';
export type { IssueTokenInput, TokensService } from './service.ts';
export { TOKEN_PREFIX, isWellFormedToken } from './token-format.ts';
export { createCredentialCache } from './credential-cache.ts';
export type { CachedCredential, CredentialCache } from './credential-cache.ts';
export type { TokenCredentialRow } from './store.ts';
