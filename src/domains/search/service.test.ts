import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listVaultFolder } from '../../cli/vault-folder.ts';
import { SYNTHETIC_COMMON_TERM, SYNTHETIC_PHRASE, SYNTHETIC_RARE_TERM, generateSyntheticVault } from '../../../bench/vault-generator.ts';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import type { Database } from '../../db/port.ts';
import { createServices, type Services } from '../../app/services.ts';
import { MAX_IMPORT_BATCH } from '../notes/index.ts';
import type { SearchPage } from './contract.ts';
import { createSearchService } from './service.ts';

// Big enough for a few rare-term notes (1 in 1,000) and many phrase notes (1 in 100).
const NOTES = 3000;

/** The oracle: which generated notes hold a word (or phrase), read straight from their text, not through kgate. */
function notesWith(notes: ReadonlyArray<{ path: string; content: string }>, text: string): Set<string> {
  const pattern = new RegExp(`(^|[^\\p{L}\\p{N}])${text.replace(/ /g, '\\s+')}($|[^\\p{L}\\p{N}])`, 'iu');
  return new Set(notes.filter((note) => pattern.test(note.content) || pattern.test(note.path)).map((note) => note.path));
}

describe('search on a generated vault', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  const notes = [...generateSyntheticVault({ notes: NOTES, seed: 7 })];

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('generated'));
    for (let k = 0; k < notes.length; k += MAX_IMPORT_BATCH) {
      await services.notes.importNotes(owner.actor, owner.mapping.id, notes.slice(k, k + MAX_IMPORT_BATCH));
    }
  }, 120_000);
  afterAll(() => db.close());

  async function everything(query: string): Promise<SearchPage['results']> {
    const all: SearchPage['results'] = [];
    let cursor: string | undefined;
    do {
      const page = await services.search.searchNotes(owner.actor, owner.mapping.id, { query, limit: 100, ...(cursor ? { cursor } : {}) });
      all.push(...page.results);
      cursor = page.nextCursor ?? undefined;
      expect(page.truncated).toBe(cursor !== undefined);
    } while (cursor);
    return all;
  }

  it.each([
    ['the rare term', SYNTHETIC_RARE_TERM, SYNTHETIC_RARE_TERM],
    ['the common term', SYNTHETIC_COMMON_TERM, SYNTHETIC_COMMON_TERM],
    ['the phrase', `"${SYNTHETIC_PHRASE}"`, SYNTHETIC_PHRASE],
  ])('finds exactly the notes holding %s, each once, best first, across pages', async (_label, query, text) => {
    const expected = notesWith(notes, text);
    expect(expected.size).toBeGreaterThan(0);
    const found = await everything(query);
    expect(found.map((hit) => hit.path).sort()).toEqual([...expected].sort());
    for (let k = 1; k < found.length; k++) expect(found[k - 1]!.score).toBeGreaterThanOrEqual(found[k]!.score);
  });

  it('answers the first page of a common term bounded and flagged', async () => {
    const page = await services.search.searchNotes(owner.actor, owner.mapping.id, { query: SYNTHETIC_COMMON_TERM });
    expect(page.results).toHaveLength(20);
    expect(page.truncated).toBe(true);
    for (const hit of page.results) expect(hit.snippet.toLowerCase()).toContain(SYNTHETIC_COMMON_TERM);
  });

  it('gives the same answers when the vault is too large to keep its texts in memory', async () => {
    const lean = createSearchService(db, services.vaults, { maxKeptTextChars: 10_000 });
    for (const query of [SYNTHETIC_RARE_TERM, SYNTHETIC_COMMON_TERM, `"${SYNTHETIC_PHRASE}"`]) {
      const request = { query, limit: 30 };
      expect(await lean.searchNotes(owner.actor, owner.mapping.id, request)).toEqual(await services.search.searchNotes(owner.actor, owner.mapping.id, request));
    }
  });

  it('gives the same answer from a fresh service (another process) as from a warm one', async () => {
    const warm = await services.search.searchNotes(owner.actor, owner.mapping.id, { query: `${SYNTHETIC_COMMON_TERM} ${SYNTHETIC_PHRASE}`, limit: 50 });
    const cold = await createServices(db).search.searchNotes(owner.actor, owner.mapping.id, { query: `${SYNTHETIC_COMMON_TERM} ${SYNTHETIC_PHRASE}`, limit: 50 });
    expect(cold).toEqual(warm);
  });
});

describe('search on the example vault', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('example'));
    const root = fileURLToPath(new URL('../../../examples/vault/', import.meta.url));
    const files = (await listVaultFolder(root)).filter((entry) => entry.kind === 'note');
    await services.notes.importNotes(owner.actor, owner.mapping.id, files.map((f) => ({ path: f.path, content: readFileSync(`${root}${f.path}`, 'utf8') })));
  });
  afterAll(() => db.close());

  const search = (query: string, extra: { tags?: string[]; folder?: string } = {}) =>
    services.search.searchNotes(owner.actor, owner.mapping.id, { query, ...extra });

  it('puts the note named after the query first', async () => {
    const page = await search('offline sync');
    expect(page.results[0]!.path).toBe('Projects/Offline Sync.md');
    expect(page.results.length).toBeGreaterThan(1);
  });

  it('filters by inline nested tags and by folder', async () => {
    const tagged = await search('technicians', { tags: ['project'] });
    expect(tagged.results.length).toBeGreaterThan(0);
    for (const hit of tagged.results) expect(hit.tags.some((tag) => tag.startsWith('project/'))).toBe(true);
    const inDecisions = await search('sync', { folder: 'Decisions' });
    expect(inDecisions.results.length).toBeGreaterThan(0);
    for (const hit of inDecisions.results) expect(hit.path.startsWith('Decisions/')).toBe(true);
  });

  it('searches the alias text of a WikiLink, not its target', async () => {
    // Tidewater.md links [[Reference/Glossary#Work order|work orders]]: the body reads "work orders".
    const page = await search('"receive work orders"');
    expect(page.results.map((hit) => hit.path)).toEqual(['Projects/Tidewater/Tidewater.md']);
  });
});
