/**
 * Published intelligence packs (docs/packs.md, issue 19): the pack folder format (reading, parsing and validating a
 * pack with every problem named by file and line), storing immutable pack versions, and the six tools' answers at a
 * cutoff for the callers entitled to a pack's product.
 */
export * from './format/index.ts';
export type * from './contract.ts';
// The six published-intelligence answers over one loaded pack version (issue 19, part B).
export { buildPackView, createPackView } from './queries.ts';
export type { PackView } from './queries.ts';
export { computeAvailability, isAvailableAt, sourceVersionAvailableFrom } from './availability.ts';
export type { AssertionAvailability, AvailabilityInterval, PackAvailability } from './availability.ts';
export { PACK_ANSWER_LIMITS } from './paging.ts';
export { MAX_QUESTION_CHARS } from './search-index.ts';
export { packContentHash } from './content-hash.ts';
export { lineCount } from './bulk.ts';
export { publishPack, publishedBy } from './publish.ts';
export {
  LISTED_VERSIONS_PER_PACK,
  MAX_ENTITLED_PRODUCTS,
  entitledProducts,
  entitlementOf,
  findPackVersion,
  findPackVersionById,
  latestPackVersionId,
  listEntitledPacks,
  listProductPacks,
  packVersionId,
} from './store.ts';
export type { EntitledProduct, PackEntitlement, PackVersionSummary, ProductPack } from './store.ts';
export { loadPackVersion, readSourceText } from './version-store.ts';
export { DEFAULT_CACHED_PACK_VERSIONS, createPacksService } from './service.ts';
