/** Vaults: hosted vaults and the mappings through which callers reach any vault. */
export { ApprovalPolicySchema, MappingSchema, ProviderKindSchema } from './contract.ts';
export type { ApprovalPolicy, HostedMapping, Mapping, MappingAccess, MappingFlags, ProviderKind } from './contract.ts';
export { PREVIEW_WINDOW_MS, approvalRefusal, mappingWriteSummary, noteChangeRefusal } from './policy.ts';
export type { MappingWriteSummary, NoteChangeCapability } from './policy.ts';
export { createVaultsService } from './service.ts';
export type { CreateHostedVaultInput, CreateRemoteMappingInput, VaultsService } from './service.ts';
export { AUTHORITY_CACHE_MAX_AGE_MS, createAuthorityCache } from './authority-cache.ts';
export type { AuthorityCache, MappingAuthority } from './authority-cache.ts';
