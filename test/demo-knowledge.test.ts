import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type BootstrapOutput } from '../src/cli/bootstrap-command.ts';
import { EXAMPLE_HISTORY_DIR } from '../src/cli/demo-history.ts';
import { createServices, type Services } from '../src/app/services.ts';
import type { Database } from '../src/db/port.ts';
import type { AssertionRecord, CommitmentRecord, DecisionRecord, QuestionRecord, RelationRecord } from '../src/domains/knowledge/index.ts';
import type { Clock } from '../src/kernel/clock.ts';
import { contentHash } from '../src/kernel/hashing.ts';
import { openTestDatabase } from './support/database.ts';
import { knowledgeRows, type KnowledgeRows } from './support/knowledge-rows.ts';

const TIDEWATER = 'Projects/Tidewater/Tidewater.md';
const ADR = (n: number) =>
  ({
    1: 'Decisions/ADR-001 CouchDB Replication.md',
    2: 'Decisions/ADR-002 SQLite with Custom Sync.md',
    3: 'Decisions/ADR-003 Photos Sync on Wi-Fi Only.md',
    4: 'Decisions/ADR-004 Close-out Includes Photos.md',
  })[n]!;
const history = (step: string, path: string) => readFileSync(join(EXAMPLE_HISTORY_DIR, step, path), 'utf8');

// The demo vault as `kgate serve` seeds it on first start: examples/vault imported, then the steps of
// examples/history applied as governed writes. Its knowledge shows every record kind, a superseded decision, two
// decisions in tension, owned commitments with due dates, open and answered questions, and an entity edited over time.
describe('the demo vault and its history', () => {
  let db: Database;
  let services: Services;
  let output: BootstrapOutput;
  let rows: KnowledgeRows;
  // Each reading of the clock is a second later, so that the import and each step have their own known time.
  let ticks = 0;
  const clock: Clock = { now: () => new Date(Date.UTC(2027, 0, 10, 9) + ticks++ * 1000) };

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    services = createServices(db, clock);
    output = await bootstrap('http://localhost:8787', services, { email: 'demo@example.test' });
    rows = await knowledgeRows(db, output.vaultId);
  });
  afterAll(() => db.close());

  const records = <K extends string>(kind: K, path?: string) => rows.records.filter((r) => r.kind === kind && (path === undefined || r.path === path)).map((r) => r.record);
  const changesOf = (path: string, type: string) => rows.changes.filter((c) => c.path === path && c.type === type);

  it('imports the vault, then applies each step of its history as a change of the notes it names', async () => {
    expect(output.seeded).toMatchObject({ updated: 0, unchanged: 0, historySteps: 2 });
    for (const path of [TIDEWATER, ADR(3), ADR(4)]) {
      const [note] = await db.query<{ content: string }>('SELECT content FROM notes WHERE vault_id = $1 AND path = $2', [output.vaultId, path]);
      expect(note?.content, path).toBe(history('02-go-live-moves', path));
    }
    const updates = await db.query<{ path: string; key: string }>(
      "SELECT path, idempotency_key AS key FROM provenance_events WHERE vault_id = $1 AND kind = 'note.updated' ORDER BY seq",
      [output.vaultId],
    );
    // Step one changes the project note; step two the two decisions and the project note, in path order.
    expect(updates.map((u) => u.path)).toEqual([TIDEWATER, ADR(3), ADR(4), TIDEWATER]);
    expect(new Set(updates.map((u) => u.key)).size).toBe(2); // one transaction per step
  });

  it('holds decisions: one superseded by another, and two in tension, each naming the other', () => {
    const decisions = records('decision') as DecisionRecord[];
    const byPath = (n: number) => decisions.find((d) => d.evidence.path === ADR(n) && d.evidence.lines[0] === 1)!;
    expect(byPath(1).statusInNote).toBe('superseded');
    expect(byPath(2)).toMatchObject({ statusInNote: 'accepted', supersedes: ['ADR-001 CouchDB Replication'] });
    expect(byPath(3).statusInNote).toBe('accepted');
    expect(byPath(4)).toMatchObject({ statusInNote: 'accepted', decided: '2026-12-04', validFrom: '2026-12-04' });
    const relations = records('relation') as RelationRecord[];
    expect(relations.map((r) => [r.evidence.path, r.type, r.target]).sort()).toEqual(
      expect.arrayContaining([
        [ADR(2), 'supersedes', 'ADR-001 CouchDB Replication'],
        [ADR(3), 'contradicts', 'ADR-004 Close-out Includes Photos'],
        [ADR(4), 'contradicts', 'ADR-003 Photos Sync on Wi-Fi Only'],
      ]),
    );
    // Decisions in meeting notes are callouts: candidates like any other.
    expect(decisions.some((d) => d.evidence.path === 'Meetings/2026-10-06 Kickoff.md' && d.title === 'Pilot with Harbor Utilities')).toBe(true);
  });

  it('holds commitments with owners and due dates, open questions from callouts and question notes, and entities', () => {
    const commitments = records('commitment') as CommitmentRecord[];
    expect(commitments.find((c) => c.text.startsWith('Draft the pilot SLA'))).toMatchObject({ owner: 'Priya Natarajan', due: '2026-12-05', closed: false });
    expect(commitments.find((c) => c.evidence.blockId === 'go-live')).toMatchObject({ owner: 'Ana Ruiz', due: '2027-02-01', closed: false });
    const owners = new Set(commitments.flatMap((c) => (c.owner ? [c.owner] : [])));
    expect(owners).toEqual(new Set(['Ana Ruiz', 'Jonas Berg', 'Priya Natarajan']));
    const questions = records('question') as QuestionRecord[];
    expect(questions.find((q) => q.text === 'Pilot pricing: flat fee or per technician?')).toMatchObject({ answered: false });
    expect(questions.find((q) => q.text === 'Should photos upload over mobile data?')).toMatchObject({ answered: true });
    expect(questions.find((q) => q.text === 'Can a work order be closed while its photos still wait for Wi-Fi?')).toMatchObject({ answered: false });
    const entities = new Set((records('assertion') as AssertionRecord[]).map((a) => `${a.entityType}/${a.entityId}`));
    expect(entities).toEqual(new Set(['project/tidewater', 'customer/harbor-utilities', 'person/person-ana-ruiz', 'person/person-jonas-berg', 'person/person-priya-natarajan']));
  });

  it('has an entity edited over time: each value known from the step that stored it, never from the date the note gives', () => {
    const receipts = rows.receipts.filter((r) => r.path === TIDEWATER);
    expect(receipts.map((r) => r.revision)).toEqual([
      contentHash(readFileSync(join(EXAMPLE_HISTORY_DIR, '..', 'vault', TIDEWATER), 'utf8')),
      contentHash(history('01-pilot-planning', TIDEWATER)),
      contentHash(history('02-go-live-moves', TIDEWATER)),
    ]);
    const [imported, planned, moved] = receipts.map((r) => r.first_seen_at);
    expect(imported! < planned! && planned! < moved!).toBe(true);
    const release = rows.versions.filter((v) => v.record.kind === 'assertion' && v.record.entityId === 'tidewater' && v.record.property === 'target_release');
    expect(release[0]).toMatchObject({ record: { value: '"2027-01-18"', validFrom: '2026-09-15' }, known_from: imported });
    expect(release.at(-1)).toMatchObject({ record: { value: '"2027-02-01"', validFrom: '2026-12-04' }, known_from: moved, retired_at: null });
    expect(changesOf(TIDEWATER, 'assertion.superseded').map((c) => [c.before_value, c.after_value, c.created_at])).toEqual(
      expect.arrayContaining([
        ['"build"', '"pilot-prep"', planned],
        ['48000', '51200', planned],
        ['"2027-01-18"', '"2027-02-01"', moved],
      ]),
    );
  });

  it('records what each step implies: a decision accepted and commitments closed', () => {
    expect(changesOf(ADR(4), 'decision.status_changed').map((c) => [c.before_value, c.after_value])).toEqual([['proposed', 'accepted']]);
    const closed = rows.changes.filter((c) => c.type === 'commitment.closed');
    const closedIds = new Set(closed.map((c) => c.record_id));
    const blockIds = (records('commitment') as CommitmentRecord[]).filter((c) => closedIds.has(c.id)).map((c) => c.evidence.blockId).sort();
    expect(blockIds).toEqual(['ask-harbor', 'insurer-list', 'pilot-build']);
  });
});
