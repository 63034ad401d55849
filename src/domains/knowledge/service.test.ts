import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import { createKnowledgeService } from './service.ts';

describe('stored knowledge', () => {
  let db: Database;
  let owner: Owner;
  let vaultId: string;
  let now = new Date('2026-11-25T09:00:00Z');
  const clock: Clock = { now: () => now };
  let knowledge: ReturnType<typeof createKnowledgeService>;

  beforeAll(async () => {
    ({ db, owner } = await openDomainDatabase('knowledge', clock));
    knowledge = createKnowledgeService(db, clock);
    vaultId = owner.mapping.vaultId!;
  });
  afterAll(() => db.close());

  const decision = (status: string) => `---\ntype: decision\nstatus: ${status}\ndecided: 2026-01-01\n---\n# Use SQLite\n\n- [ ] Ship it ^ship\n`;
  const stored = () => db.query<{ kind: string; revision: string }>('SELECT kind, revision FROM knowledge_records WHERE vault_id = $1 AND path = $2 ORDER BY kind', [vaultId, 'D.md']);
  const changes = () => db.query<{ type: string; before_value: string | null; after_value: string | null }>('SELECT type, before_value, after_value FROM knowledge_changes WHERE vault_id = $1 ORDER BY seq', [vaultId]);

  it('stores a new note\'s records with their change events, and recompiling the same revision changes nothing', async () => {
    const first = await db.transaction((tx) => knowledge.recordNote(tx, vaultId, 'D.md', { revision: 'r1', content: decision('proposed') }));
    expect(first.map((c) => c.type)).toEqual(['record.added', 'record.added']);
    expect(await stored()).toEqual([
      { kind: 'commitment', revision: 'r1' },
      { kind: 'decision', revision: 'r1' },
    ]);
    const before = await changes();
    expect(await knowledge.recordNote(db, vaultId, 'D.md', { revision: 'r1', content: decision('proposed') })).toEqual([]);
    expect(await changes()).toEqual(before);
  });

  it('records exactly what a change implies, and what a deletion removes', async () => {
    now = new Date('2026-11-25T10:00:00Z');
    const changed = await knowledge.recordNote(db, vaultId, 'D.md', { revision: 'r2', content: decision('accepted').replace('- [ ]', '- [x]') });
    expect(changed.map((c) => [c.type, c.before ?? null, c.after ?? null]).sort()).toEqual([
      ['commitment.closed', null, null],
      ['decision.status_changed', 'proposed', 'accepted'],
    ]);
    const removed = await knowledge.recordNote(db, vaultId, 'D.md', null);
    expect(removed.map((c) => c.type)).toEqual(['record.removed', 'record.removed']);
    expect(await stored()).toEqual([]);
    expect(await knowledge.recordNote(db, vaultId, 'D.md', null)).toEqual([]);
  });

  it('receipts the first sighting of a revision only: a later sighting, or an old author date, never moves it', async () => {
    now = new Date('2026-11-25T11:00:00Z');
    await knowledge.recordNote(db, vaultId, 'E.md', { revision: 'e1', content: decision('accepted') });
    now = new Date('2026-11-26T11:00:00Z');
    // The same content seen again later (a restore, a re-import): the receipt keeps the first time.
    await knowledge.recordNote(db, vaultId, 'E.md', { revision: 'e1', content: decision('accepted') });
    expect(await knowledge.firstSeen(db, vaultId, 'E.md', 'e1')).toEqual(new Date('2026-11-25T11:00:00Z'));
    // The note claims it was decided in January; the replica saw it only now.
    expect(await knowledge.firstSeen(db, vaultId, 'E.md', 'never-seen')).toBeUndefined();
  });

  it('reads records back from the database as equal to the same records compiled: an edit elsewhere changes none', async () => {
    const every =
      '---\ntype: project\nid: tide\nstatus: building\nowner: Ana\ncontradicts: "[[B]]"\nrelates_to:\n  - "[[C]]"\n---\n# Tide\n\n' +
      '> [!decision] Ship it\n\n> [!question] When?\n\n- [ ] Do it [owner:: [[Ana]]] 📅 2026-12-01\n';
    await knowledge.recordNote(db, vaultId, 'F.md', { revision: 'f1', content: every });
    const versions = async () => (await db.query('SELECT seq FROM knowledge_record_versions WHERE vault_id = $1 AND path = $2', [vaultId, 'F.md'])).length;
    const before = await versions();
    expect(before).toBe(7);
    // Text added above the body's records moves their lines, and changes no knowledge.
    const moved = every.replace('# Tide\n', '# Tide\n\nAn introduction.\n');
    expect(await knowledge.recordNote(db, vaultId, 'F.md', { revision: 'f2', content: moved })).toEqual([]);
    expect(await versions()).toBe(before);
  });
});
