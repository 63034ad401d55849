import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import type { Database } from '../../db/port.ts';
import type { Services } from '../../app/services.ts';

// A note's links live exactly as long as the note (migration 0010): no foreign key checks them as they are
// written, and a trigger removes them with their note, whatever deletes it.
describe('the stored links of a note', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let other: Owner;

  const linked = [
    { path: 'A.md', content: '# A\n\nSee [[B]] and [[C]].\n' },
    { path: 'B.md', content: '# B\n\nBack to [[A]], ![[C]] and [[B#Self]].\n' },
    { path: 'C.md', content: '# C\n\nOnly [[A]].\n' },
  ];
  const linksOf = (vaultId: string) =>
    db.query<{ path: string; links: number }>(
      `SELECT n.path, count(l.ordinal)::int AS links FROM notes n LEFT JOIN note_links l ON l.note_id = n.id
        WHERE n.vault_id = $1 GROUP BY n.path ORDER BY n.path`,
      [vaultId],
    );
  const linkRowsOf = async (vaultId: string) =>
    (await db.query<{ count: number }>('SELECT count(*)::int AS count FROM note_links WHERE vault_id = $1', [vaultId]))[0]!.count;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('links'));
    other = await createOwner(services, 'other-links');
    for (const o of [owner, other]) await services.notes.importNotes(o.actor, o.mapping.id, linked);
  });
  afterAll(() => db.close());

  it('are stored as written, without a foreign key to check each one', async () => {
    expect(await linksOf(owner.mapping.vaultId)).toEqual([
      { path: 'A.md', links: 2 },
      { path: 'B.md', links: 3 },
      { path: 'C.md', links: 1 },
    ]);
    const keys = await db.query<{ conname: string }>(
      "SELECT conname FROM pg_constraint WHERE conrelid = 'note_links'::regclass AND contype = 'f'",
    );
    expect(keys).toEqual([]);
  });

  it('leave with their note, and only with it', async () => {
    await db.query("DELETE FROM notes WHERE vault_id = $1 AND path = 'B.md'", [owner.mapping.vaultId]);
    expect(await linksOf(owner.mapping.vaultId)).toEqual([
      { path: 'A.md', links: 2 },
      { path: 'C.md', links: 1 },
    ]);
    expect(await linkRowsOf(owner.mapping.vaultId)).toBe(3);
    // The other vault's copy of B keeps its links.
    expect(await linkRowsOf(other.mapping.vaultId)).toBe(6);
  });

  it('leave with every note of a vault that is deleted, through the cascade from the vault', async () => {
    await db.transaction(async (tx) => {
      await tx.query('DELETE FROM mappings WHERE vault_id = $1', [owner.mapping.vaultId]);
      await tx.query('DELETE FROM vaults WHERE id = $1', [owner.mapping.vaultId]);
    });
    expect(await db.query('SELECT id FROM notes WHERE vault_id = $1', [owner.mapping.vaultId])).toEqual([]);
    expect(await linkRowsOf(owner.mapping.vaultId)).toBe(0);
    expect(await linkRowsOf(other.mapping.vaultId)).toBe(6);
  });

  it('are replaced whole when their note is written again', async () => {
    await services.notes.importNotes(other.actor, other.mapping.id, [{ path: 'B.md', content: '# B\n\nNow only [[C]].\n' }]);
    expect(await linksOf(other.mapping.vaultId)).toEqual([
      { path: 'A.md', links: 2 },
      { path: 'B.md', links: 1 },
      { path: 'C.md', links: 1 },
    ]);
    expect(await linkRowsOf(other.mapping.vaultId)).toBe(4);
  });
});
