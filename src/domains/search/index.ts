/** Search: ranked full-text search over the notes of a hosted mapping, from an in-memory index per vault. */
export { DEFAULT_SEARCH_LIMIT, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT } from './contract.ts';
export type { SearchHit, SearchPage, SearchRequest, SearchService } from './contract.ts';
export { createSearchService } from './service.ts';
/** The notes search's tokenizer, shared with the published-intelligence search so both find the same words. */
export { forEachWord } from './tokenizer.ts';
export { createSearchPageCache, DEFAULT_SEARCH_PAGE_CACHE_BYTES } from './page-cache.ts';
export type { SearchPageCache } from './page-cache.ts';
export type { SearchIndexSnapshots } from './index-snapshot.ts';
