import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSyntheticVault } from '../bench/vault-generator.ts';
import type { Services } from '../src/app/services.ts';
import type { Database } from '../src/db/port.ts';
import { compileNote } from '../src/domains/knowledge/index.ts';
import { contentHash } from '../src/kernel/hashing.ts';
import { openDomainDatabase } from './support/domain-database.ts';
import type { Owner } from './support/fixtures.ts';
import { knowledgeRows } from './support/knowledge-rows.ts';

// A generated vault (bench/vault-generator.ts, with its share of knowledge material) imported through the notes
// service compiles every record kind; the background compiler, run on the same notes stored without knowledge,
// compiles exactly the same records.
describe('knowledge of a generated vault', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  const notes = [...generateSyntheticVault({ notes: 500, seed: 11 })];
  const expected = notes.flatMap((n) => compileNote(n.path, contentHash(n.content), n.content));

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('generated'));
  });
  afterAll(() => db.close());

  const stored = async () => (await knowledgeRows(db, owner.mapping.vaultId)).records.map((r) => r.record);

  it('compiles each record kind on import, as the compiler does note by note', async () => {
    expect(await services.notes.importNotes(owner.actor, owner.mapping.id, notes)).toMatchObject({ created: notes.length, rejected: [] });
    const records = await stored();
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    expect(records.sort(byId)).toEqual([...expected].sort(byId));
    const kinds = new Map<string, number>();
    for (const r of records) kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
    expect([...kinds.keys()].sort()).toEqual(['assertion', 'commitment', 'decision', 'question', 'relation']);
  });

  it('compiles the same records in the background from notes stored without knowledge', async () => {
    const before = await stored();
    await db.exec('DELETE FROM knowledge_notes; DELETE FROM knowledge_records; DELETE FROM knowledge_record_history');
    expect(await services.knowledge.compileBacklog(db)).toEqual({ notes: notes.length, records: expected.length });
    expect(await stored()).toEqual(before);
  });
});
