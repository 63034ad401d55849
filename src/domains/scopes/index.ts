/** Context scopes: named slices of a mapping (path prefixes, tags) with an audience policy; knowledge reads go through one. */
export { AudienceSchema, ContextScopeSchema, MAX_SCOPE_FILTERS, MAX_SCOPE_NAME_LENGTH, MAX_SCOPES_PER_MAPPING } from './contract.ts';
export type { Audience, ContextScope, ScopeDefinition, ScopeSlice } from './contract.ts';
export { inAudience } from './policy.ts';
export { createScopesService } from './service.ts';
export type { AuthorizedScope, ScopeChangeOptions, ScopesService } from './service.ts';
