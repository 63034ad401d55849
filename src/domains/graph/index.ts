/** Graph: the WikiLink graph of hosted vaults, resolved from the stored links of each note. */
export {
  DEFAULT_RELATIONS_LIMIT,
  EmbedSchema,
  EmbeddedFileSchema,
  GraphRelationsSchema,
  IncomingLinkSchema,
  MAX_INCOMING_CANDIDATES,
  MAX_RELATIONS_LIMIT,
  OutgoingLinkSchema,
  UnresolvedLinkSchema,
} from './contract.ts';
export type { Embed, EmbeddedFile, FileLink, GraphRelations, IncomingLink, OutgoingLink, RelationsRequest, UnresolvedLink } from './contract.ts';
export { RESOLVER_CACHE_VAULTS } from './resolver-cache.ts';
export { createGraphService } from './service.ts';
export type { GraphOptions, GraphService } from './service.ts';
