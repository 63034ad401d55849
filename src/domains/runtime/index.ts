/**
 * The Product Runtime (docs/runtime.md): organizations, products, installations, service principals and their
 * credentials, workspace assignments and vault grants, context scopes reached through them, metering, shared memory.
 */
export {
  DEFAULT_MEDIA_STORAGE_BYTES,
  MAX_RUNTIME_NAME_LENGTH,
  ProductRuntimeSettingsSchema,
  RUNTIME_SCOPES,
  RUNTIME_TOKEN_TTL_SECONDS,
  RUNTIME_VERSION,
  RuntimeScopeSchema,
  RuntimeSlugSchema,
  VaultGrantAccessSchema,
} from './contract.ts';
export type { ProductRuntimeSettings, RuntimePrincipal, RuntimeScope, VaultGrantAccess } from './contract.ts';
export { MAX_MEMORY_PAGE, MemoryCandidateInputSchema } from './memory.ts';
export type { MemoryCandidateInput, MemoryEntry } from './memory.ts';
export type { RuntimeReservation } from './metering.ts';
export { createRuntimeService, runtimeActor } from './service.ts';
export type { PrincipalAuthenticator, ReachedScope, RuntimeService } from './service.ts';
export type { GrantedVault } from './vault-chain.ts';
export { effectiveScopePolicy } from './scope-policy.ts';
export type { EffectiveScopePolicy } from './scope-policy.ts';
