import type { Database } from '../../db/port.ts';
import type { SearchHit, SearchPage } from './contract.ts';
import type { ParsedQuery } from './query.ts';
import { rankMatches, searchTextsOf } from './rank-matches.ts';
import { nextPageCursor, type CheckedSearch } from './search-request.ts';
import { snippetOf } from './snippet.ts';
import { FIELD, type Scored, type VaultSearchIndex } from './vault-index.ts';

/** Characters of body read around a match for its snippet, and how far before the match the window starts. */
const WINDOW_CHARS = 400;
const WINDOW_LEAD = 100;

const FIELD_NAMES = [
  [FIELD.title, 'title'],
  [FIELD.path, 'path'],
  [FIELD.body, 'body'],
] as const;

/**
 * Ranks, pages and builds the results of one search. Run it as a reader of the index (`index.reading`), so that
 * the document numbers it holds across database reads stay valid.
 */
export async function answerPage(db: Database, index: VaultSearchIndex, search: CheckedSearch): Promise<SearchPage> {
  const { query, offset, limit } = search;
  // One more than the page tells whether there is a next page.
  const { ranked, texts } = await rankMatches(db, index, query, search.filter, offset + limit + 1);
  const page = ranked.slice(offset, offset + limit);
  // Texts come from the index or, for vaults too large to keep them, whole from the database (cheaper than
  // windows cut in SQL, which must decompress them anyway).
  for (const [id, text] of await searchTextsOf(db, index, page.filter((c) => !texts.has(index.note(c.doc).noteId)))) texts.set(id, text);
  const wordSet = new Set(query.words);
  const results = page.map((candidate) => hitOf(index, candidate, texts.get(index.note(candidate.doc).noteId) ?? '', query, wordSet));
  const truncated = ranked.length > offset + limit;
  return { results, truncated, nextCursor: truncated ? nextPageCursor(search) : null };
}

/** One result: the note, its rounded score, where it matched, and a snippet of `text` (its search text). */
function hitOf(index: VaultSearchIndex, candidate: Scored, text: string, query: ParsedQuery, wordSet: ReadonlySet<string>): SearchHit {
  const note = index.note(candidate.doc);
  // The snippet is cut from a window around the first match, known from the index, instead of scanning the whole
  // text; phrase queries scan it (the index knows where words are, not phrases).
  const first = query.phrases.length === 0 ? index.firstBodyOffset(candidate.doc, query.words) : -1;
  const start = Math.max(0, first - WINDOW_LEAD);
  const { snippet, highlights } =
    first >= 0
      ? snippetOf(text.slice(start, start + WINDOW_CHARS), wordSet, query.phrases, { before: start > 0, after: start + WINDOW_CHARS < text.length }, first - start)
      : snippetOf(text, wordSet, query.phrases);
  return {
    path: note.path,
    title: note.title,
    score: Math.round(candidate.score * 1000) / 1000,
    matchedIn: FIELD_NAMES.filter(([bit]) => (candidate.fields & bit) !== 0).map(([, name]) => name),
    snippet,
    highlights,
    tags: [...note.tagKeys],
  };
}
