import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { NoteAction } from '../notes/index.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import type { Tension } from './relation-contract.ts';

// get_contradictions: recorded tensions with both sides and their history, never flattened.
describe('contradiction reads', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let slice: ScopeSlice;
  let now = new Date('2026-11-25T09:00:00Z');
  const clock: Clock = { now: () => now };

  const apply = (actions: NoteAction[]) =>
    services.idempotency.run({ accountId: owner.accountId, key: randomUUID(), operation: 'test', input: actions }, (commit) =>
      services.notes.runTransaction({ actor: owner.actor, mappingId: owner.mapping.id, dryRun: false, actions, capability: 'direct', commit }),
    );
  const decision = (title: string, contradicts?: string) =>
    `---\ntype: decision\nstatus: accepted\n${contradicts ? `contradicts: "[[${contradicts}]]"\n` : ''}---\n# ${title}\n`;
  const P1 = decision('Photos on Wi-Fi only', 'P2');
  const P1_CALM = decision('Photos on Wi-Fi only');

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('contradictions', clock));
    slice = { vaultId: owner.mapping.vaultId, pathPrefixes: ['Projects/'], tags: [] };
    await apply([
      { type: 'write-note', path: 'Projects/P1.md', content: P1 },
      { type: 'write-note', path: 'Projects/P2.md', content: decision('Close-out includes photos') },
      { type: 'write-note', path: 'Projects/P3.md', content: '---\ncontradicts: "[[H]]"\n---\n# Notes\n' },
      { type: 'write-note', path: 'Projects/P4.md', content: decision('Photos by cable', 'P2') },
      { type: 'write-note', path: 'Hidden/H.md', content: '# Hidden\n' },
      { type: 'write-note', path: 'Hidden/H2.md', content: decision('Hidden view', 'P1') },
    ]);
  });
  afterAll(() => db.close());

  const read = (request: { includeResolved?: boolean; limit?: number; cursor?: string } = {}) => services.knowledge.contradictions(slice, request);
  const byHolder = (tensions: Tension[], path: string) => tensions.find((t) => t.holder.path === path)!;

  it('lists each contradicts relation of a note in the slice with both sides; a side outside the slice is withheld', async () => {
    const page = await read();
    expect(page.items.map((t) => t.holder.path)).toEqual(['Projects/P1.md', 'Projects/P3.md', 'Projects/P4.md']);
    const p1 = byHolder(page.items, 'Projects/P1.md');
    expect(p1).toMatchObject({
      state: 'open',
      resolution: [],
      holder: { withheld: false, title: 'Photos on Wi-Fi only', decisions: [{ status: 'candidate', statusInNote: 'accepted', review: null }] },
      target: { withheld: false, path: 'Projects/P2.md', title: 'Close-out includes photos', targetAsWritten: 'P2', decisions: [{ status: 'candidate' }] },
      history: {
        versions: [{ revision: contentHash(P1), knownFrom: '2026-11-25T09:00:00.000Z', retiredAt: null, retiredRevision: null }],
        events: [{ type: 'record.added', beforeRevision: null, afterRevision: contentHash(P1), recordedAt: '2026-11-25T09:00:00.000Z' }],
        truncated: false,
      },
    });
    expect(byHolder(page.items, 'Projects/P3.md')).toMatchObject({
      state: 'open',
      holder: { decisions: [] },
      target: { withheld: true, path: null, title: null, targetAsWritten: null, decisions: [] },
    });
    expect(JSON.stringify(page)).not.toContain('Hidden');
    expect(page).toMatchObject({ truncated: false, nextCursor: null });
  });

  it('keeps a removed relation as a resolved tension with both history entries', async () => {
    now = new Date('2026-11-26T10:00:00Z');
    await apply([{ type: 'write-note', path: 'Projects/P1.md', content: P1_CALM, expectedHash: contentHash(P1) }]);
    const p1 = byHolder((await read()).items, 'Projects/P1.md');
    expect(p1).toMatchObject({
      state: 'resolved',
      resolution: [{ reason: 'relation_removed', at: '2026-11-26T10:00:00.000Z', side: null }],
      target: { path: 'Projects/P2.md' },
    });
    expect(p1.history.versions).toEqual([
      { revision: contentHash(P1), knownFrom: '2026-11-25T09:00:00.000Z', retiredAt: '2026-11-26T10:00:00.000Z', retiredRevision: contentHash(P1_CALM) },
    ]);
    expect(p1.history.events.map((e) => [e.type, e.beforeRevision, e.afterRevision, e.recordedAt])).toEqual([
      ['record.added', null, contentHash(P1), '2026-11-25T09:00:00.000Z'],
      ['record.removed', contentHash(P1), contentHash(P1_CALM), '2026-11-26T10:00:00.000Z'],
    ]);
    expect((await read({ includeResolved: false })).items.map((t) => t.holder.path)).toEqual(['Projects/P3.md', 'Projects/P4.md']);
  });

  it("resolves a tension once a person rejects one side's decision, and says so with the review", async () => {
    now = new Date('2026-11-27T08:00:00Z');
    const decisions = await services.knowledge.decisions(slice, { statuses: ['candidate'] });
    const p2 = decisions.items.find((d) => d.evidence.path === 'Projects/P2.md')!;
    const person = { ...owner.actor, credentialKind: 'session' as const };
    await services.knowledge.reviewDecision({ actor: person, role: 'owner', slice, recordId: p2.id, verdict: 'rejected' });
    const p4 = byHolder((await read()).items, 'Projects/P4.md');
    expect(p4).toMatchObject({
      state: 'resolved',
      resolution: [{ reason: 'side_rejected', at: '2026-11-27T08:00:00.000Z', side: 'target' }],
      target: { decisions: [{ id: p2.id, status: 'rejected', review: { verdict: 'rejected', reviewedAt: '2026-11-27T08:00:00.000Z' } }] },
    });
    expect((await read({ includeResolved: false })).items.map((t) => t.holder.path)).toEqual(['Projects/P3.md']);
  });

  it('pages with a cursor, also when resolved tensions are left out; refuses a cursor it did not make', async () => {
    const first = await read({ limit: 1 });
    expect(first.items.map((t) => t.holder.path)).toEqual(['Projects/P1.md']);
    expect(first.truncated).toBe(true);
    const second = await read({ limit: 1, cursor: first.nextCursor! });
    const third = await read({ limit: 1, cursor: second.nextCursor! });
    expect([...second.items, ...third.items].map((t) => t.holder.path)).toEqual(['Projects/P3.md', 'Projects/P4.md']);
    expect(third).toMatchObject({ truncated: false, nextCursor: null });
    const open = await read({ limit: 1, includeResolved: false });
    expect(open).toMatchObject({ truncated: false, nextCursor: null });
    expect(open.items.map((t) => t.holder.path)).toEqual(['Projects/P3.md']);
    await expect(read({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
