import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { NoteAction } from '../notes/index.ts';
import { knowledgeRows, knowledgeSnapshot } from '../../../test/support/knowledge-rows.ts';

// Knowledge compiles inside every applied change, through the real notes service and its governed write path: what a
// change stores (records, versions, change events, receipts) commits with it or not at all.
describe('knowledge compiled on every applied change', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let vaultId: string;
  let now = new Date('2026-11-25T09:00:00Z');
  const clock: Clock = { now: () => now };
  const at = (iso: string) => {
    now = new Date(iso);
    return now;
  };

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('apply-compile', clock));
    vaultId = owner.mapping.vaultId!;
  });
  afterAll(() => db.close());

  const rows = () => knowledgeRows(db, vaultId);
  const apply = (actions: NoteAction[], as: Owner = owner) =>
    services.idempotency.run({ accountId: as.accountId, key: randomUUID(), operation: 'test', input: actions }, (commit) =>
      services.notes.runTransaction({ actor: as.actor, mappingId: as.mapping.id, dryRun: false, actions, capability: 'direct', commit }),
    );

  const plan = (status: string, task: '[ ]' | '[x]') =>
    [
      '---',
      'type: decision',
      `status: ${status}`,
      'decided: 2026-11-20',
      'contradicts: "[[Photos over mobile data]]"',
      '---',
      '# Photos sync on Wi-Fi only',
      '',
      `- ${task} Tell Harbor's crews [owner:: [[Priya Natarajan]]] 📅 2026-12-01 ^tell`,
      '',
      '> [!question] Who pays for mobile data in the pilot?',
      '',
    ].join('\n');
  const PLAN_1 = plan('proposed', '[ ]');
  const PLAN_2 = plan('accepted', '[x]');

  it('creates: every record kind of the note, a version known from the change, record.added events and a receipt', async () => {
    const t1 = at('2026-11-25T09:00:00Z');
    await apply([{ type: 'write-note', path: 'Decisions/Wi-Fi.md', content: PLAN_1 }]);
    const h1 = contentHash(PLAN_1);
    const { records, versions, changes, receipts } = await rows();
    expect(records.map((r) => r.kind).sort()).toEqual(['commitment', 'decision', 'question', 'relation']);
    expect(records.every((r) => r.path === 'Decisions/Wi-Fi.md' && r.revision === h1)).toBe(true);
    expect(records.find((r) => r.kind === 'commitment')!.record).toMatchObject({ owner: 'Priya Natarajan', due: '2026-12-01', closed: false });
    expect(versions).toHaveLength(4);
    for (const v of versions) expect(v).toMatchObject({ revision: h1, known_from: t1, retired_at: null });
    expect(changes.map((c) => [c.type, c.before_revision, c.after_revision, c.created_at])).toEqual(
      records.map(() => ['record.added', null, h1, t1]),
    );
    expect(receipts).toEqual([{ path: 'Decisions/Wi-Fi.md', revision: h1, first_seen_at: t1 }]);
  });

  it('updates: the events the change implies with both revisions; altered records get a new version and retire the old one', async () => {
    const t2 = at('2026-11-26T10:00:00Z');
    const [h1, h2] = [contentHash(PLAN_1), contentHash(PLAN_2)];
    const before = await rows();
    await apply([{ type: 'write-note', path: 'Decisions/Wi-Fi.md', content: PLAN_2, expectedHash: h1 }]);
    const after = await rows();
    const fresh = after.changes.slice(before.changes.length);
    // Exactly these two: the question and the relation did not change (the next test looks at their versions).
    expect(fresh.map((c) => [c.type, c.before_value, c.after_value, c.before_revision, c.after_revision, c.created_at]).sort()).toEqual([
      ['commitment.closed', null, null, h1, h2, t2],
      ['decision.status_changed', 'proposed', 'accepted', h1, h2, t2],
    ]);
    for (const kind of ['decision', 'commitment']) {
      const id = after.records.find((r) => r.kind === kind)!.record_id;
      expect(after.versions.filter((v) => v.record_id === id).map((v) => [v.revision, v.known_from, v.retired_at, v.retired_revision])).toEqual([
        [h1, new Date('2026-11-25T09:00:00Z'), t2, h2],
        [h2, t2, null, null],
      ]);
    }
    expect(after.receipts).toEqual([...before.receipts, { path: 'Decisions/Wi-Fi.md', revision: h2, first_seen_at: t2 }]);
  });

  // A record read back from jsonb has its keys in jsonb's order; substance compares canonical JSON, so an unaltered
  // record of a changed note is no change.
  it('leaves the records a change did not alter untouched: no event, one version known from the first sighting', async () => {
    const after = await rows();
    const h2 = contentHash(PLAN_2);
    expect(after.changes.filter((c) => c.after_revision === h2 && c.type === 'record.updated')).toEqual([]);
    for (const kind of ['question', 'relation']) {
      const id = after.records.find((r) => r.kind === kind)!.record_id;
      expect(after.versions.filter((v) => v.record_id === id).map((v) => [v.known_from, v.retired_at])).toEqual([[new Date('2026-11-25T09:00:00Z'), null]]);
    }
  });

  it('knows an entity edited after the fact from the time of the edit, never from the date its author wrote', async () => {
    const entity = (release: string) => `---\ntype: project\nid: tidewater\nvalid_from: 2020-01-01\ntarget_release: ${release}\n---\n# Tidewater\n`;
    const t3 = at('2026-11-27T08:00:00Z');
    await apply([{ type: 'write-note', path: 'Projects/Tidewater.md', content: entity('2027-01-18') }]);
    const t4 = at('2026-11-28T08:00:00Z');
    await apply([{ type: 'write-note', path: 'Projects/Tidewater.md', content: entity('2027-02-01'), expectedHash: contentHash(entity('2027-01-18')) }]);
    const { versions, changes, receipts } = await rows();
    const assertion = versions.filter((v) => v.kind === 'assertion');
    expect(assertion.map((v) => [v.record.value, v.record.validFrom, v.known_from, v.retired_at])).toEqual([
      ['"2027-01-18"', '2020-01-01', t3, t4],
      ['"2027-02-01"', '2020-01-01', t4, null],
    ]);
    expect(changes.at(-1)).toMatchObject({ type: 'assertion.superseded', before_value: '"2027-01-18"', after_value: '"2027-02-01"', created_at: t4 });
    expect(receipts.filter((r) => r.path === 'Projects/Tidewater.md').map((r) => r.first_seen_at)).toEqual([t3, t4]);
  });

  it('moves: the records leave the old path and arrive at the new one, and the new path is receipted', async () => {
    const t5 = at('2026-11-29T08:00:00Z');
    const h2 = contentHash(PLAN_2);
    const before = await rows();
    await apply([{ type: 'move-note', path: 'Decisions/Wi-Fi.md', newPath: 'Archive/Wi-Fi.md', expectedHash: h2, rewriteLinks: false }]);
    const after = await rows();
    const moved = after.records.filter((r) => r.path.endsWith('Wi-Fi.md'));
    expect(moved.map((r) => [r.path, r.revision])).toEqual(moved.map(() => ['Archive/Wi-Fi.md', h2]));
    const fresh = after.changes.slice(before.changes.length);
    expect(fresh.filter((c) => c.type === 'record.removed').map((c) => [c.path, c.before_revision, c.after_revision])).toEqual(
      moved.map(() => ['Decisions/Wi-Fi.md', h2, null]),
    );
    expect(fresh.filter((c) => c.type === 'record.added').map((c) => [c.path, c.before_revision, c.after_revision])).toEqual(
      moved.map(() => ['Archive/Wi-Fi.md', null, h2]),
    );
    const current = after.versions.filter((v) => v.retired_at === null && v.path.endsWith('Wi-Fi.md'));
    expect(current.map((v) => [v.path, v.known_from])).toEqual(moved.map(() => ['Archive/Wi-Fi.md', t5]));
    expect(after.versions.filter((v) => v.path === 'Decisions/Wi-Fi.md').every((v) => v.retired_at !== null)).toBe(true);
    expect(after.receipts.at(-1)).toEqual({ path: 'Archive/Wi-Fi.md', revision: h2, first_seen_at: t5 });
  });

  it('deletes to the trash and restores: records removed and back, the receipt of the first sighting kept', async () => {
    const t6 = at('2026-11-30T08:00:00Z');
    const h2 = contentHash(PLAN_2);
    const before = await rows();
    await apply([{ type: 'delete-note', path: 'Archive/Wi-Fi.md', expectedHash: h2 }]);
    const deleted = await rows();
    expect(deleted.records.filter((r) => r.path === 'Archive/Wi-Fi.md')).toEqual([]);
    expect(deleted.notes.map((n) => n.path)).not.toContain('Archive/Wi-Fi.md');
    const removed = deleted.changes.slice(before.changes.length);
    expect(removed.map((c) => [c.type, c.before_revision, c.after_revision, c.created_at])).toEqual(removed.map(() => ['record.removed', h2, null, t6]));
    expect(removed).toHaveLength(4);
    expect(deleted.versions.filter((v) => v.path === 'Archive/Wi-Fi.md').every((v) => v.retired_at?.getTime() === t6.getTime())).toBe(true);

    const t7 = at('2026-12-01T08:00:00Z');
    const trash = await services.notes.listTrash(owner.actor, owner.mapping.id, {});
    const entry = trash.items.find((e) => e.originalPath === 'Archive/Wi-Fi.md')!;
    await apply([{ type: 'restore-note', trashId: entry.id, path: 'Archive/Wi-Fi.md' }]);
    const restored = await rows();
    const back = restored.records.filter((r) => r.path === 'Archive/Wi-Fi.md');
    // The same path and content: the same record ids as before the deletion.
    expect(back.map((r) => r.record_id).sort()).toEqual(before.records.filter((r) => r.path === 'Archive/Wi-Fi.md').map((r) => r.record_id).sort());
    const added = restored.changes.slice(deleted.changes.length);
    expect(added.map((c) => [c.type, c.before_revision, c.after_revision, c.created_at])).toEqual(added.map(() => ['record.added', null, h2, t7]));
    expect(restored.versions.filter((v) => v.path === 'Archive/Wi-Fi.md' && v.retired_at === null).map((v) => v.known_from)).toEqual(back.map(() => t7));
    // Seen again, not first seen: the receipt keeps the move's time.
    expect(restored.receipts.filter((r) => r.path === 'Archive/Wi-Fi.md')).toEqual([{ path: 'Archive/Wi-Fi.md', revision: h2, first_seen_at: new Date('2026-11-29T08:00:00Z') }]);
  });

  it('imports: new and changed notes compile, unchanged ones change nothing', async () => {
    const t8 = at('2026-12-02T08:00:00Z');
    const question = '---\ntype: question\nstatus: open\n---\n# Who owns the pilot SLA?\n';
    const before = await rows();
    const result = await services.notes.importNotes(owner.actor, owner.mapping.id, [
      { path: 'Questions/SLA.md', content: question },
      { path: 'Archive/Wi-Fi.md', content: PLAN_2 }, // unchanged
      { path: 'Projects/Tidewater.md', content: '---\ntype: project\nid: tidewater\nstatus: pilot\n---\n# Tidewater\n' },
    ]);
    expect(result).toMatchObject({ created: 1, updated: 1, unchanged: 1 });
    const after = await rows();
    const fresh = after.changes.slice(before.changes.length);
    expect(fresh.every((c) => c.created_at.getTime() === t8.getTime())).toBe(true);
    expect(fresh.map((c) => [c.path, c.type]).sort()).toEqual([
      ['Projects/Tidewater.md', 'record.added'], // status
      ['Projects/Tidewater.md', 'record.removed'], // target_release
      ['Questions/SLA.md', 'record.added'],
    ]);
    expect(after.records.find((r) => r.path === 'Questions/SLA.md')!.record).toMatchObject({ kind: 'question', text: 'Who owns the pilot SLA?', answered: false });
    expect(after.receipts.slice(before.receipts.length).map((r) => [r.path, r.first_seen_at])).toEqual([
      ['Projects/Tidewater.md', t8],
      ['Questions/SLA.md', t8],
    ]);
  });

  it('changes no knowledge row when a transaction is refused for a stale hash', async () => {
    at('2026-12-03T08:00:00Z');
    const before = await knowledgeSnapshot(db);
    await expect(
      apply([
        { type: 'write-note', path: 'Decisions/New.md', content: PLAN_1 },
        { type: 'write-note', path: 'Questions/SLA.md', content: '---\ntype: question\nstatus: answered\n---\n# Who owns the pilot SLA?\n', expectedHash: contentHash('not what is there\n') },
      ]),
    ).rejects.toMatchObject({ code: 'stale_revision' });
    expect(await knowledgeSnapshot(db)).toBe(before);
  });

  it('records each transaction of a group commit with its own records, events and receipts', async () => {
    const t9 = at('2026-12-04T08:00:00Z');
    const before = await rows();
    const share = (key: string, actions: NoteAction[]) => {
      const shared = services.notes.shareTransaction({ actor: owner.actor, mappingId: owner.mapping.id, actions, capability: 'direct' })!;
      return services.idempotency.runShared({ accountId: owner.accountId, key, operation: 'test', input: actions }, { ...shared, present: (result) => result });
    };
    const names = ['a', 'b', 'c', 'd'];
    await Promise.all(names.map((n) => share(`group-${n}`, [{ type: 'write-note', path: `Group/${n}.md`, content: `- [ ] Task ${n} [owner:: [[Jonas Berg]]] ^${n}\n` }])));
    const after = await rows();
    const fresh = after.changes.slice(before.changes.length);
    expect(fresh.map((c) => [c.path, c.type, c.after_revision]).sort()).toEqual(
      names.map((n) => [`Group/${n}.md`, 'record.added', contentHash(`- [ ] Task ${n} [owner:: [[Jonas Berg]]] ^${n}\n`)]),
    );
    expect(after.records.filter((r) => r.path.startsWith('Group/')).map((r) => r.record.kind)).toEqual(names.map(() => 'commitment'));
    expect(after.receipts.filter((r) => r.path.startsWith('Group/')).map((r) => [r.path, r.first_seen_at])).toEqual(names.map((n) => [`Group/${n}.md`, t9]));
  });

  it('compiles nothing behind a device-encrypted mapping: not on import, delete or move, nor in the background', async () => {
    const other = await createOwner(services, 'encrypted');
    await services.vaults.updateMappingFlags(other.mapping.id, { deviceEncrypted: true });
    await services.notes.importNotes(other.actor, other.mapping.id, [
      { path: 'D.md', content: PLAN_1 },
      { path: 'E.md', content: '---\ntype: project\nid: x\nstatus: active\n---\n' },
    ]);
    await apply([{ type: 'delete-note', path: 'E.md', expectedHash: contentHash('---\ntype: project\nid: x\nstatus: active\n---\n') }], other);
    await apply([{ type: 'move-note', path: 'D.md', newPath: 'F.md', expectedHash: contentHash(PLAN_1), rewriteLinks: false }], other);
    await services.knowledge.compileBacklog(db);
    const encrypted = await knowledgeRows(db, other.mapping.vaultId);
    expect(encrypted).toEqual({ notes: [], records: [], versions: [], changes: [], receipts: [] });
  });
});
