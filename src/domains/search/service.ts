import type { Database } from '../../db/port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/cursor.ts';
import { KgateError } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import type { Actor } from '../../kernel/principal.ts';
import { notePathKey } from '../../kernel/vault-path.ts';
import { assertReadableBodies } from '../notes/index.ts';
import type { VaultsService } from '../vaults/index.ts';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type SearchHit, type SearchPage, type SearchRequest, type SearchService } from './contract.ts';
import { containsPhrase, parseQuery, type ParsedQuery } from './query.ts';
import { snippetOf } from './snippet.ts';
import * as store from './store.ts';
import { words } from './tokenizer.ts';
import { FIELD, VaultSearchIndex, best, type MatchFilter, type Scored } from './vault-index.ts';

/** Notes loaded per query while building or refreshing an index. */
const LOAD_PAGE = 2000;
/** Most notes held in memory across all vault indexes; the least recently searched vault is dropped first. */
export const DEFAULT_MAX_INDEXED_NOTES = 200_000;
/** Most tags in a filter. */
const MAX_FILTER_TAGS = 10;
/** Characters of body read around a match for its snippet, and how far before the match the window starts. */
const WINDOW_CHARS = 400;
const WINDOW_LEAD = 100;
/** Deepest page a cursor may reach, so that paging cannot ask for unbounded work. */
const MAX_OFFSET = 10_000;

type Cursor = { o: number; q: string };
const isCursor = (v: unknown): v is Cursor =>
  typeof v === 'object' && v !== null && Number.isInteger((v as Cursor).o) && (v as Cursor).o > 0 && typeof (v as Cursor).q === 'string';

function boundedLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new KgateError('invalid_request', `limit is an integer from 1 to ${MAX_SEARCH_LIMIT}.`, { field: 'limit' });
  }
  return limit;
}

function filterOf(request: SearchRequest): MatchFilter {
  const tags = (request.tags ?? []).map((tag) => tag.trim().replace(/^#/, '').toLowerCase()).filter((tag) => tag !== '');
  if (tags.length > MAX_FILTER_TAGS) throw new KgateError('invalid_request', `At most ${MAX_FILTER_TAGS} tags.`, { field: 'tags' });
  const folder = request.folder === undefined ? undefined : notePathKey(request.folder.normalize('NFC').trim().replace(/^\/+|\/+$/g, ''));
  return { ...(tags.length > 0 ? { tagKeys: tags } : {}), ...(folder ? { folderKey: folder } : {}) };
}

const FIELD_NAMES = [
  [FIELD.title, 'title'],
  [FIELD.path, 'path'],
  [FIELD.body, 'body'],
] as const;

/**
 * Builds the search service. Each vault's notes are indexed in memory on first search, from the search text
 * stored when changes were applied, and every search first brings the index up to the vault's content version
 * (one small query when nothing changed), so results always reflect committed writes, whichever process made them.
 */
export function createSearchService(
  db: Database,
  vaults: VaultsService,
  options: { maxIndexedNotes?: number; maxKeptTextChars?: number } = {},
): SearchService {
  const maxIndexedNotes = options.maxIndexedNotes ?? DEFAULT_MAX_INDEXED_NOTES;
  // Map order is recency order: a search re-inserts its vault at the end.
  const indexes = new Map<string, VaultSearchIndex>();
  const refreshing = new Map<string, Promise<VaultSearchIndex>>();

  async function load(index: VaultSearchIndex, vaultId: string, since: number | null): Promise<void> {
    let after: string | null = null;
    for (;;) {
      const rows = await store.notesChangedSince(db, vaultId, since, after, LOAD_PAGE);
      for (const row of rows) index.upsert({ noteId: row.id, path: row.path, title: row.title, tagKeys: row.tag_keys, searchText: row.search_text });
      if (rows.length < LOAD_PAGE) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  async function refresh(vaultId: string, version: number): Promise<VaultSearchIndex> {
    let index = indexes.get(vaultId);
    if (!index) {
      index = new VaultSearchIndex(version, options.maxKeptTextChars);
      await load(index, vaultId, null);
    } else {
      await load(index, vaultId, index.version);
      // Deletions leave no row behind: compare counts, and only when they differ, the ids.
      if (index.size !== (await store.countNotes(db, vaultId))) {
        const live = await store.noteIds(db, vaultId);
        for (const id of [...index.noteIds()]) if (!live.has(id)) index.remove(id);
      }
      // Rows read above may be newer than `version`; re-reading them next time is harmless (upserts).
      index.version = version;
      index.compactIfIdle();
    }
    indexes.delete(vaultId);
    indexes.set(vaultId, index);
    evict();
    return index;
  }

  function evict(): void {
    let total = 0;
    for (const index of indexes.values()) total += index.weight;
    for (const [vaultId, index] of indexes) {
      if (total <= maxIndexedNotes || indexes.size === 1) return;
      indexes.delete(vaultId);
      total -= index.weight;
    }
  }

  /** The vault's index, at least as recent as `version` (the version this search's caller saw). */
  async function current(vaultId: string, version: number): Promise<VaultSearchIndex> {
    for (;;) {
      const index = indexes.get(vaultId);
      if (index && index.version >= version) return index;
      // One refresh per vault at a time; concurrent searches wait for it, then check again: a refresh that was
      // already under way may be for an older version than the one this search must see.
      let pending = refreshing.get(vaultId);
      if (!pending) {
        pending = refresh(vaultId, version).finally(() => refreshing.delete(vaultId));
        refreshing.set(vaultId, pending);
      }
      await pending;
    }
  }

  /** The search texts of some candidates, by note id: kept by the index, or else read from the database. */
  async function textsOf(index: VaultSearchIndex, candidates: readonly Scored[]): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    const missing: string[] = [];
    for (const candidate of candidates) {
      const { noteId } = index.note(candidate.doc);
      const kept = index.text(candidate.doc);
      if (kept === undefined) missing.push(noteId);
      else texts.set(noteId, kept);
    }
    for (const [id, text] of await store.searchTexts(db, missing)) texts.set(id, text);
    return texts;
  }

  /** The ranked matches, phrases verified against the stored text, enough to fill `needed` (or all of them). */
  async function rankedMatches(index: VaultSearchIndex, query: ParsedQuery, filter: MatchFilter, needed: number) {
    const candidates = index.match(query.words, filter);
    const texts = new Map<string, string>();
    if (query.phrases.length === 0) return { ranked: best(index, candidates, needed), texts };
    // Phrases: rank the candidates holding all the words, then keep those holding each phrase, best first,
    // reading the text of just enough of them.
    const verified: Scored[] = [];
    let considered = 0;
    while (verified.length < needed && considered < candidates.length) {
      const batchSize = Math.min(candidates.length, considered + Math.max(64, (needed - verified.length) * 2));
      const ordered = best(index, candidates, batchSize).slice(considered);
      considered = batchSize;
      const bodies = await textsOf(index, ordered);
      for (const candidate of ordered) {
        const note = index.note(candidate.doc);
        const body = bodies.get(note.noteId);
        if (body === undefined) continue;
        texts.set(note.noteId, body);
        const fields = [words(note.title), words(note.path.endsWith('.md') ? note.path.slice(0, -3) : note.path), words(body)];
        if (query.phrases.every((phrase) => fields.some((tokens) => containsPhrase(tokens, phrase)))) verified.push(candidate);
        if (verified.length >= needed) break;
      }
    }
    return { ranked: verified, texts };
  }

  /** Ranks, pages and builds the results; runs as a reader of the index (document numbers stay valid). */
  async function answer(
    index: VaultSearchIndex,
    query: ParsedQuery,
    filter: MatchFilter,
    offset: number,
    limit: number,
    fingerprint: string,
  ): Promise<SearchPage> {
    // One more than the page tells whether there is a next page.
    const { ranked, texts } = await rankedMatches(index, query, filter, offset + limit + 1);
    const page = ranked.slice(offset, offset + limit);
    // Texts come from the index or, for vaults too large to keep them, whole from the database (cheaper than
    // windows cut in SQL, which must decompress them anyway); the snippet is cut from a window around the first
    // match, known from the index, instead of scanning the whole text.
    for (const [id, text] of await textsOf(index, page.filter((c) => !texts.has(index.note(c.doc).noteId)))) texts.set(id, text);
    const wordSet = new Set(query.words);
    const results: SearchHit[] = page.map((candidate) => {
      const note = index.note(candidate.doc);
      const text = texts.get(note.noteId) ?? '';
      const first = query.phrases.length === 0 ? index.firstBodyOffset(candidate.doc, query.words) : -1;
      const start = Math.max(0, first - WINDOW_LEAD);
      const { snippet, highlights } =
        first >= 0
          ? snippetOf(text.slice(start, start + WINDOW_CHARS), wordSet, query.phrases, { before: start > 0, after: start + WINDOW_CHARS < text.length })
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
    });
    const truncated = ranked.length > offset + limit;
    return { results, truncated, nextCursor: truncated ? encodeCursor({ o: offset + limit, q: fingerprint }) : null };
  }

  return {
    async searchNotes(actor: Actor, mappingId: string, request: SearchRequest): Promise<SearchPage> {
      const query = parseQuery(request.query);
      const filter = filterOf(request);
      const limit = boundedLimit(request.limit);
      const fingerprint = sha256Hex(JSON.stringify([query, filter])).slice(0, 16);
      const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor, isCursor);
      if (cursor !== undefined && cursor.q !== fingerprint) {
        throw new KgateError('invalid_request', 'The cursor belongs to another query.', { field: 'cursor' });
      }
      const offset = cursor?.o ?? 0;
      if (offset > MAX_OFFSET) throw new KgateError('invalid_request', `Results past the first ${MAX_OFFSET} cannot be paged to.`, { field: 'cursor' });
      // One query resolves the caller's authority over the mapping and the vault's content version.
      const { mapping, contentVersion } = await vaults.resolveHostedVault(actor.accountId, mappingId, 'read');
      assertReadableBodies(mapping);
      const index = await current(mapping.vaultId, contentVersion);
      return index.reading(() => answer(index, query, filter, offset, limit, fingerprint));
    },
  };
}
