import type { Database } from '../../db/port.ts';
import { containsPhrase, type ParsedQuery } from './query.ts';
import * as store from './store.ts';
import { words } from './tokenizer.ts';
import { best, type MatchFilter, type Scored, type VaultSearchIndex } from './vault-index.ts';

/** Matches ranked best first, with the search texts read on the way (by note id), so they are not read twice. */
export interface RankedMatches {
  ranked: Scored[];
  texts: Map<string, string>;
}

/**
 * Runs a query against an index: the ranked matches, phrases verified against the stored text, enough to fill
 * `needed` (or all of them). Call it as a reader of the index (`index.reading`): it holds document numbers across
 * database reads.
 */
export async function rankMatches(db: Database, index: VaultSearchIndex, query: ParsedQuery, filter: MatchFilter, needed: number): Promise<RankedMatches> {
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
    const bodies = await searchTextsOf(db, index, ordered);
    for (const candidate of ordered) {
      const note = index.note(candidate.doc);
      const body = bodies.get(note.noteId);
      if (body === undefined) continue;
      texts.set(note.noteId, body);
      if (holdsEveryPhrase(note, body, query.phrases)) verified.push(candidate);
      if (verified.length >= needed) break;
    }
  }
  return { ranked: verified, texts };
}

/** The search texts of some candidates, by note id: kept by the index, or else read from the database. */
export async function searchTextsOf(db: Database, index: VaultSearchIndex, candidates: readonly Scored[]): Promise<Map<string, string>> {
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

/** True when each phrase occurs, words adjacent, in the note's title, path (without `.md`) or body. */
function holdsEveryPhrase(note: { title: string; path: string }, body: string, phrases: readonly string[][]): boolean {
  const fields = [words(note.title), words(note.path.endsWith('.md') ? note.path.slice(0, -3) : note.path), words(body)];
  return phrases.every((phrase) => fields.some((tokens) => containsPhrase(tokens, phrase)));
}
