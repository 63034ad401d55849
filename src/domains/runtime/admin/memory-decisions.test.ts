import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../kernel/clock.ts';
import { createOwner, type Owner } from '../../../../test/support/fixtures.ts';
import { codeOf, insertCandidate, insertPrincipal, openRuntimeAdminSuite, runtimeRows, type RuntimeAdminSuite } from '../../../../test/support/runtime-admin.ts';

describe('runtime administration: shared memory decisions', () => {
  let now = new Date('2026-11-26T09:00:00Z');
  const clock: Clock = { now: () => now };
  let suite: RuntimeAdminSuite;
  let editor: Owner;
  let viewer: Owner;
  let stranger: Owner;
  let first: string;
  let second: string;
  let at: { installationId: string; principalId: string; scopeId: string; vaultId: string };

  beforeAll(async () => {
    suite = await openRuntimeAdminSuite('memory', clock);
    const { admin, db, owner, product, services } = suite;
    const installation = await admin.install(owner.accountId, product.slug);
    const principalId = await insertPrincipal(db, installation.id);
    const scope = await services.scopes.create(owner.actor, owner.mapping.id, { name: 'Class', pathPrefixes: ['Class/'], tags: [], audience: { minimumRole: 'viewer', agents: true } });
    at = { installationId: installation.id, principalId, scopeId: scope.id, vaultId: owner.mapping.vaultId };
    first = await insertCandidate(db, { ...at, title: 'Meeting day' });
    second = await insertCandidate(db, { ...at, title: 'Room' });
    [editor, viewer, stranger] = [await createOwner(services, 'editor'), await createOwner(services, 'viewer'), await createOwner(services, 'stranger')];
    await services.workspaces.setMemberRole(owner.workspaceId, editor.accountId, 'editor');
    await services.workspaces.setMemberRole(owner.workspaceId, viewer.accountId, 'viewer');
  });
  afterAll(() => suite.db.close());

  it('lists undecided candidates to people with vault.write only', async () => {
    const { admin, owner, product } = suite;
    const listed = await admin.listMemoryCandidates(editor.accountId);
    expect(listed.truncated).toBe(false);
    expect(listed.items.map((c) => c.id).sort()).toEqual([first, second].sort());
    expect(listed.items.find((c) => c.id === first)).toMatchObject({
      vaultId: owner.mapping.vaultId,
      scope: { name: 'Class' },
      product: { slug: product.slug, name: product.name },
      title: 'Meeting day',
      evidence: [{ path: 'Class/Schedule.md' }],
      status: 'candidate',
      decidedBy: null,
    });
    expect((await admin.listMemoryCandidates(owner.accountId, owner.mapping.vaultId)).items).toHaveLength(2);
    expect((await admin.listMemoryCandidates(viewer.accountId)).items).toEqual([]);
    expect((await admin.listMemoryCandidates(stranger.accountId)).items).toEqual([]);
    const refusals = await Promise.all([
      codeOf(admin.listMemoryCandidates(viewer.accountId, owner.mapping.vaultId)),
      codeOf(admin.listMemoryCandidates(stranger.accountId, owner.mapping.vaultId)),
      codeOf(admin.listMemoryCandidates(editor.accountId, 'not-a-uuid')),
    ]);
    expect(refusals).toEqual(['not_found', 'not_found', 'not_found']);
  });

  it('refuses deciding without vault.write, a bad decision and unknown candidates, and changes nothing', async () => {
    const { admin, db } = suite;
    const before = await runtimeRows(db);
    const refusals = await Promise.all([
      codeOf(admin.decideMemoryCandidate(viewer.accountId, first, 'accepted')),
      codeOf(admin.decideMemoryCandidate(stranger.accountId, first, 'rejected')),
      codeOf(admin.decideMemoryCandidate(editor.accountId, first, 'maybe' as never)),
      codeOf(admin.decideMemoryCandidate(editor.accountId, '00000000-0000-7000-8000-000000000000', 'accepted')),
      codeOf(admin.decideMemoryCandidate(editor.accountId, 'not-a-uuid', 'accepted')),
    ]);
    expect(refusals).toEqual(['not_found', 'not_found', 'invalid_request', 'not_found', 'not_found']);
    expect(await runtimeRows(db)).toBe(before);
  });

  it('records who decided and when; a decided candidate cannot be decided again', async () => {
    const { admin, db } = suite;
    const accepted = await admin.decideMemoryCandidate(editor.accountId, first, 'accepted');
    expect(accepted).toMatchObject({ id: first, status: 'accepted', decidedBy: editor.accountId, decidedAt: now });
    const decided = await runtimeRows(db);
    expect(await codeOf(admin.decideMemoryCandidate(editor.accountId, first, 'rejected'))).toBe('conflict');
    expect(await codeOf(admin.decideMemoryCandidate(suite.owner.accountId, first, 'accepted'))).toBe('conflict');
    expect(await runtimeRows(db)).toBe(decided);
    expect((await admin.listMemoryCandidates(editor.accountId)).items.map((c) => c.id)).toEqual([second]);
  });

  it('two people deciding at once: one decision lands, the other is conflict', async () => {
    const { admin, owner } = suite;
    const outcomes = await Promise.all([
      codeOf(admin.decideMemoryCandidate(editor.accountId, second, 'rejected')),
      codeOf(admin.decideMemoryCandidate(owner.accountId, second, 'accepted')),
    ]);
    expect(outcomes.sort()).toEqual(['conflict', 'resolved']);
    const [row] = await suite.db.query<{ status: string; decided_by: string }>('SELECT status, decided_by FROM runtime_memory_candidates WHERE id = $1', [second]);
    expect([['rejected', editor.accountId], ['accepted', owner.accountId]]).toContainEqual([row!.status, row!.decided_by]);
  });

  it('lists decided candidates, the newest decision first, with who decided and when, to people with vault.write only', async () => {
    const { admin, db, owner } = suite;
    const [secondRow] = await db.query<{ status: string; decided_by: string }>('SELECT status, decided_by FROM runtime_memory_candidates WHERE id = $1', [second]);
    const later = new Date('2026-11-26T10:00:00Z');
    now = later;
    const third = await insertCandidate(db, { ...at, title: 'Teacher' });
    const undecided = await insertCandidate(db, { ...at, title: 'Still open' });
    await admin.decideMemoryCandidate(owner.accountId, third, 'rejected');

    const listed = await admin.listDecidedMemory(editor.accountId);
    expect(listed.truncated).toBe(false);
    // The third was decided last; the first two at the same moment, so in either order after it.
    expect(listed.items[0]!.id).toBe(third);
    expect(listed.items.map((c) => c.id).sort()).toEqual([first, second, third].sort());
    expect(listed.items.map((c) => c.id)).not.toContain(undecided);
    expect(listed.items[0]).toMatchObject({ title: 'Teacher', status: 'rejected', decidedBy: owner.accountId, decidedAt: later, decider: { accountId: owner.accountId, email: owner.email } });
    expect(listed.items.find((c) => c.id === first)).toMatchObject({ status: 'accepted', decidedAt: new Date('2026-11-26T09:00:00Z'), decider: { accountId: editor.accountId, email: editor.email } });
    const secondDecider = secondRow!.decided_by === editor.accountId ? editor : owner;
    expect(listed.items.find((c) => c.id === second)).toMatchObject({ status: secondRow!.status, decider: { accountId: secondDecider.accountId, email: secondDecider.email } });
    expect((await admin.listDecidedMemory(owner.accountId, { vaultId: owner.mapping.vaultId })).items.map((c) => c.id)).toEqual(listed.items.map((c) => c.id));

    expect((await admin.listDecidedMemory(viewer.accountId)).items).toEqual([]);
    expect((await admin.listDecidedMemory(stranger.accountId)).items).toEqual([]);
    const refusals = await Promise.all([
      codeOf(admin.listDecidedMemory(viewer.accountId, { vaultId: owner.mapping.vaultId })),
      codeOf(admin.listDecidedMemory(stranger.accountId, { vaultId: owner.mapping.vaultId })),
      codeOf(admin.listDecidedMemory(stranger.accountId, { vaultId: stranger.mapping.vaultId })),
      codeOf(admin.listDecidedMemory(editor.accountId, { vaultId: 'not-a-uuid' })),
    ]);
    // The stranger's own vault has no decided candidate: an empty listing, not a refusal.
    expect(refusals).toEqual(['not_found', 'not_found', 'resolved', 'not_found']);
  });

  it('a decided listing answers at most the newest 100 and says it is truncated', async () => {
    const { admin, db, owner } = suite;
    now = new Date('2026-11-27T09:00:00Z');
    for (let i = 0; i < 100; i++) await insertCandidate(db, { ...at, title: `Bulk ${i}` });
    await db.query(`UPDATE runtime_memory_candidates SET status = 'accepted', decided_by = $1, decided_at = $2 WHERE title LIKE 'Bulk %'`, [owner.accountId, now]);
    const listed = await admin.listDecidedMemory(editor.accountId);
    expect(listed.items).toHaveLength(100);
    expect(listed.truncated).toBe(true);
    expect(listed.items.every((c) => c.title.startsWith('Bulk '))).toBe(true);
  });
});
