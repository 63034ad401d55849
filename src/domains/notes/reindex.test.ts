import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import type { Database } from '../../db/port.ts';
import type { Services } from '../../app/services.ts';
import { NOTE_MODEL_VERSION } from './note-index.ts';
import { REINDEX_BATCH } from './reindex.ts';

describe('re-deriving notes stored by an older parser', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('reindex'));
    // More notes than one batch, each linking to the next and tagged, in two folders.
    const files = Array.from({ length: REINDEX_BATCH + 30 }, (_, k) => ({
      path: `${k % 2 ? 'Odd' : 'Even'}/Note ${k}.md`,
      content: `---\ntags: [batch]\n---\n# Note ${k}\n\nMentions marmalade${k} and [[Note ${k + 1}]]. #topic/${k % 3}\n`,
    }));
    await services.notes.importNotes(owner.actor, owner.mapping.id, files.slice(0, 200));
    await services.notes.importNotes(owner.actor, owner.mapping.id, files.slice(200));
  });
  afterAll(() => db.close());

  const snapshot = () =>
    db.query<Record<string, unknown>>(
      `SELECT path, content, content_hash, updated_at, search_text, tag_keys,
              (SELECT count(*)::int FROM note_links l WHERE l.note_id = n.id) AS links
         FROM notes n WHERE vault_id = $1 ORDER BY path`,
      [owner.mapping.vaultId],
    );

  it('restores search text, tags and links from the content, without touching the notes themselves', async () => {
    const fresh = await snapshot();
    expect(fresh.every((row) => row.links === 1 && (row.tag_keys as string[]).includes('batch'))).toBe(true);
    // What a database written before migration 0004 looks like: no model at all.
    await db.query("UPDATE notes SET model_version = 0, search_text = '', tag_keys = '{}' WHERE vault_id = $1", [owner.mapping.vaultId]);
    await db.query('DELETE FROM note_links WHERE vault_id = $1', [owner.mapping.vaultId]);
    const versionBefore = (await db.query<{ v: number }>('SELECT content_version AS v FROM vaults WHERE id = $1', [owner.mapping.vaultId]))[0]!.v;
    expect((await services.search.searchNotes(owner.actor, owner.mapping.id, { query: 'marmalade7' })).results).toEqual([]);

    expect(await services.notes.reindexStale()).toBe(fresh.length);

    expect(await snapshot()).toEqual(fresh);
    const versionAfter = (await db.query<{ v: number }>('SELECT content_version AS v FROM vaults WHERE id = $1', [owner.mapping.vaultId]))[0]!.v;
    expect(versionAfter).toBeGreaterThan(versionBefore);
    const stale = await db.query('SELECT 1 FROM notes WHERE model_version < $1', [NOTE_MODEL_VERSION]);
    expect(stale).toEqual([]);
    // The search index notices the new version and finds the text again.
    expect((await services.search.searchNotes(owner.actor, owner.mapping.id, { query: 'marmalade7' })).results.map((h) => h.path)).toEqual(['Odd/Note 7.md']);
    expect(await services.notes.reindexStale()).toBe(0);
  });

  it('stops between batches when asked', async () => {
    await db.query('UPDATE notes SET model_version = 0 WHERE vault_id = $1', [owner.mapping.vaultId]);
    let batches = 0;
    const done = await services.notes.reindexStale(() => batches++ >= 1);
    expect(done).toBe(REINDEX_BATCH);
    expect(await services.notes.reindexStale()).toBe(30);
  });
});
