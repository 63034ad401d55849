import type { Actor } from '../../kernel/principal.ts';

/** Results per page when the caller does not say (spec 8: every search is bounded). */
export const DEFAULT_SEARCH_LIMIT = 20;
/** Most results per page. */
export const MAX_SEARCH_LIMIT = 100;
/** Longest query accepted, in characters. */
export const MAX_QUERY_CHARS = 500;

/** One search request: words and "quoted phrases", all required, with optional tag and folder filters. */
export interface SearchRequest {
  query: string;
  /** Notes must carry every one of these tags (case-insensitive, without '#'; nested tags match their parents). */
  tags?: readonly string[];
  /** Notes must sit in this folder or below it (vault-relative, case-insensitive). */
  folder?: string;
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/** One matching note. */
export interface SearchHit {
  path: string;
  title: string;
  /** Relevance (higher is better); comparable only within one result list. */
  score: number;
  /** Where the query matched: any of title, path, body. */
  matchedIn: Array<'title' | 'path' | 'body'>;
  /** A short passage of the body around the first match, '' when only the title or path matched. */
  snippet: string;
  /** [start, end) offsets of matched words inside `snippet`. */
  highlights: Array<[number, number]>;
  tags: string[];
}

/** A page of results, best first. */
export interface SearchPage {
  results: SearchHit[];
  /** True when more results exist than this page holds; `nextCursor` then fetches them. */
  truncated: boolean;
  nextCursor: string | null;
}

/** Ranked full-text search over the notes of one hosted mapping. */
export interface SearchService {
  searchNotes(actor: Actor, mappingId: string, request: SearchRequest): Promise<SearchPage>;
}
