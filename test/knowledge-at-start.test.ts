import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServices } from '../src/app/services.ts';
import type { Database } from '../src/db/port.ts';
import { compileNote } from '../src/domains/knowledge/index.ts';
import type { Clock } from '../src/kernel/clock.ts';
import { contentHash } from '../src/kernel/hashing.ts';
import { openTestDatabase } from './support/database.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway } from './support/gateway.ts';
import { knowledgeRows } from './support/knowledge-rows.ts';

const NOTES = [
  { path: 'Decisions/ADR-3.md', content: '---\ntype: decision\nstatus: accepted\ncontradicts: "[[ADR-4]]"\n---\n# Photos on Wi-Fi only\n\n- [ ] Tell the crews [owner:: [[Priya]]] 📅 2026-12-01\n' },
  { path: 'Projects/Tidewater.md', content: '---\ntype: project\nid: tidewater\nvalid_from: 2026-09-15\nstatus: active\ntarget_release: 2027-01-18\n---\n# Tidewater\n' },
  { path: 'Questions/Tiles.md', content: '---\ntype: question\nstatus: open\n---\n# Who pays for the map tiles?\n\n> [!question] Per device or flat?\n' },
];
const RECEIPTED = 'Questions/Tiles.md';

// A gateway started on a database whose notes were stored without knowledge (before compilation existed) compiles
// them in the background once it is up. Their versions are known from this replica's receipt of the revision when it
// has one, and from nothing otherwise: it writes no receipt it did not observe.
describe('knowledge compiled in the background at start', () => {
  let db: Database;
  let owner: Owner;
  const seeded = new Date('2026-11-20T08:00:00Z');
  const started = new Date('2026-11-25T08:00:00Z');

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    const services = createServices(db, { now: () => seeded } satisfies Clock);
    owner = await createOwner(services, 'backlog');
    await services.notes.importNotes(owner.actor, owner.mapping.id, NOTES);
    // As before compilation existed: no knowledge rows, except the receipt of one note (seen by a build that receipted).
    await db.exec('DELETE FROM knowledge_notes; DELETE FROM knowledge_records; DELETE FROM knowledge_record_history');
    await db.query('DELETE FROM knowledge_observations WHERE path <> $1', [RECEIPTED]);
  });
  afterAll(() => db.close());

  it('compiles every note once the server is up, known from its receipt or from nothing, and logs the count', async () => {
    const gateway = await startTestGateway({ database: db, clock: { now: () => started } });
    try {
      const done = await vi.waitFor(
        () => {
          const line = gateway.logs.map((l) => JSON.parse(l) as { msg: string; notes?: number; records?: number }).find((l) => l.msg.startsWith('compiled the knowledge'));
          if (!line) throw new Error('not compiled yet');
          return line;
        },
        { timeout: 60_000, interval: 50 },
      );
      const expected = NOTES.flatMap((n) => compileNote(n.path, contentHash(n.content), n.content));
      expect(done).toMatchObject({ notes: NOTES.length, records: expected.length });

      const rows = await knowledgeRows(db, owner.mapping.vaultId);
      expect(rows.notes).toEqual(NOTES.map((n) => ({ path: n.path, revision: contentHash(n.content) })));
      expect(rows.records.map((r) => r.record_id).sort()).toEqual(expected.map((r) => r.id).sort());
      expect(new Set(rows.records.map((r) => r.kind))).toEqual(new Set(['decision', 'commitment', 'relation', 'assertion', 'question']));
      expect(rows.versions).toHaveLength(expected.length);
      for (const version of rows.versions) {
        expect(version.retired_at).toBeNull();
        // Content stored before receipts is known from nothing; the receipted note from its first sighting.
        expect([version.path, version.known_from]).toEqual([version.path, version.path === RECEIPTED ? seeded : null]);
      }
      // Nothing is receipted that this replica did not observe: only the one receipt from before remains.
      expect(rows.receipts).toEqual([{ path: RECEIPTED, revision: contentHash(NOTES[2]!.content), first_seen_at: seeded }]);
      expect(rows.changes.slice(-expected.length).every((c) => c.type === 'record.added' && c.created_at.getTime() === started.getTime())).toBe(true);
    } finally {
      await gateway.stop();
    }
  });

  it('leaves nothing for a later start to compile', async () => {
    const services = createServices(db, { now: () => started });
    expect(await services.knowledge.compileBacklog(db)).toEqual({ notes: 0, records: 0 });
  });
});
