import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, snapshotTables, type Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { NoteAction } from '../notes/index.ts';
import { PROPOSAL_TTL_MS } from './contract.ts';

// The proposal lifecycle through the real services on a real database: what an agent proposes is what a person's
// execution applies, nothing else moves a proposal, and a refused step leaves everything as it was.
describe('proposals', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let now = new Date('2026-11-26T09:00:00Z');
  const clock: Clock = { now: () => now };
  let person: Actor;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('proposals', clock));
    person = { accountId: owner.accountId, credentialKind: 'session', credentialId: randomUUID() };
  });
  afterAll(() => db.close());

  const apply = (actions: NoteAction[], actor: Actor = owner.actor) =>
    services.idempotency.run({ accountId: actor.accountId, key: randomUUID(), operation: 'test', input: actions }, (commit) =>
      services.notes.runTransaction({ actor, mappingId: owner.mapping.id, dryRun: false, actions, capability: 'direct', commit }),
    );
  const propose = (writes: Array<{ path: string; content: string; expectedHash?: string }>, deletions: Array<{ path: string; expectedHash?: string }> = [], extra: { contextScopeId?: string; kind?: 'action' | 'knowledge-change'; title?: string; actor?: Actor } = {}) =>
    services.proposals.propose({
      actor: extra.actor ?? owner.actor,
      capability: 'agent',
      mappingId: owner.mapping.id,
      kind: extra.kind ?? 'action',
      contextScopeId: extra.contextScopeId,
      title: extra.title ?? 'Tidy the plan',
      rationale: 'Because the plan changed',
      writes,
      deletions,
    });
  const hashOf = async (path: string) => {
    const rows = await db.query<{ content_hash: string }>('SELECT content_hash FROM notes WHERE vault_id = $1 AND path = $2', [owner.mapping.vaultId, path]);
    return rows[0]?.content_hash ?? null;
  };
  const snapshot = async () =>
    JSON.stringify([await snapshotTables(db), await db.query('SELECT * FROM action_proposals ORDER BY seq'), await db.query('SELECT * FROM action_proposal_steps ORDER BY seq')]);
  const refusal = async (work: Promise<unknown>): Promise<KgateError> => {
    const error = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KgateError);
    return error as KgateError;
  };

  it('stores exactly what was previewed: the actions, the revisions previewed against, the diff and a receipt', async () => {
    await apply([{ type: 'write-note', path: 'Plans/A.md', content: '# A\n\none\n' }]);
    const before = contentHash('# A\n\none\n');
    const { proposal, created } = await propose([{ path: 'Plans/A.md', content: '# A\n\ntwo\n' }, { path: 'Plans/New.md', content: '# New\n' }]);
    expect(created).toBe(true);
    expect(proposal.state).toBe('proposed');
    expect(proposal.actions).toEqual([
      { type: 'write-note', path: 'Plans/A.md', content: '# A\n\ntwo\n', expectedHash: before },
      { type: 'write-note', path: 'Plans/New.md', content: '# New\n' },
    ]);
    expect(proposal.preview.map((a) => [a.status, a.beforeRevision])).toEqual([
      ['update', before],
      ['create', null],
    ]);
    expect(proposal.preview[0]!.diff).toContain('+two');
    expect(await hashOf('Plans/A.md')).toBe(before);
    expect(await hashOf('Plans/New.md')).toBeNull();
    const { steps } = await services.proposals.get(owner.actor, owner.mapping.id, proposal.id);
    expect(steps).toMatchObject([{ step: 'propose', fromState: null, toState: 'proposed', by: { accountId: owner.accountId, credentialKind: 'personal_access_token' } }]);
    expect(steps[0]!.receipt).toMatchObject({ notesHash: proposal.notesHash, againstHash: proposal.againstHash, previewReceipt: expect.any(String) });
    // The same change by the same credential against the same revisions is the proposal already waiting.
    const again = await propose([{ path: 'Plans/A.md', content: '# A\n\ntwo\n' }, { path: 'Plans/New.md', content: '# New\n' }]);
    expect(again).toMatchObject({ created: false, proposal: { id: proposal.id } });
  });

  it('refuses what could not apply now, a change without notes, a knowledge change without a scope, and an oversized title, storing nothing', async () => {
    const before = await snapshot();
    expect((await refusal(propose([{ path: 'Plans/A.md', content: 'x', expectedHash: `sha256:${'0'.repeat(64)}` }]))).code).toBe('stale_revision');
    expect((await refusal(propose([], [{ path: 'Plans/Missing.md' }]))).code).toBe('not_found');
    expect((await refusal(propose([]))).code).toBe('invalid_request');
    expect((await refusal(propose([{ path: 'Plans/B.md', content: 'x' }], [], { kind: 'knowledge-change' }))).code).toBe('invalid_request');
    expect((await refusal(propose([{ path: 'Plans/B.md', content: 'x' }], [], { title: 'x'.repeat(201) }))).code).toBe('invalid_request');
    expect((await refusal(propose([{ path: '../escape.md', content: 'x' }]))).code).toBe('invalid_path');
    expect(await snapshot()).toBe(before);
  });

  it('keeps a scoped proposal inside its scope: by folder, and by the tags of the note or of its new content', async () => {
    const scope = await services.scopes.create(owner.actor, owner.mapping.id, { name: 'Plans', pathPrefixes: ['Plans/'], tags: ['plan'], audience: { minimumRole: 'viewer', agents: true } });
    await apply([{ type: 'write-note', path: 'Plans/Tagged.md', content: '# T\n#plan\n' }]);
    const inside = await propose([{ path: 'Plans/Tagged.md', content: '# T\n#plan\nmore\n' }, { path: 'Plans/Fresh.md', content: '# F\n#plan/sub\n' }], [], { contextScopeId: scope.id, kind: 'knowledge-change' });
    expect(inside.proposal).toMatchObject({ kind: 'knowledge-change', contextScopeId: scope.id });
    const before = await snapshot();
    for (const writes of [[{ path: 'Other/X.md', content: '#plan\n' }], [{ path: 'Plans/Untagged.md', content: '# no tag\n' }]]) {
      expect((await refusal(propose(writes, [], { contextScopeId: scope.id, kind: 'knowledge-change' }))).code).toBe('forbidden');
    }
    for (const id of [randomUUID(), 'nope']) {
      expect((await refusal(propose([{ path: 'Plans/Fresh2.md', content: '#plan\n' }], [], { contextScopeId: id, kind: 'knowledge-change' }))).code).toBe('not_found');
    }
    expect(await snapshot()).toBe(before);
  });

  it('lets only a signed-in person with write access approve, reject, execute or undo; everything else is refused with nothing changed', async () => {
    const { proposal } = await propose([{ path: 'Plans/Refused.md', content: '# R\n' }]);
    const viewer = await createOwner(services, 'viewer');
    await services.workspaces.setMemberRole(owner.workspaceId, viewer.accountId, 'viewer');
    const stranger = await createOwner(services, 'stranger');
    const tokenActors: Actor[] = [owner.actor, { ...owner.actor, credentialKind: 'oauth', credentialId: randomUUID() }, { ...owner.actor, credentialKind: 'operator' }];
    const before = await snapshot();
    for (const actor of tokenActors) {
      for (const step of ['approve', 'reject', 'execute', 'undo'] as const) {
        expect((await refusal(services.proposals[step](actor, owner.mapping.id, proposal.id))).code).toBe('forbidden');
      }
    }
    const viewerSession: Actor = { accountId: viewer.accountId, credentialKind: 'session', credentialId: randomUUID() };
    expect((await refusal(services.proposals.approve(viewerSession, owner.mapping.id, proposal.id))).code).toBe('forbidden');
    const strangerSession: Actor = { accountId: stranger.accountId, credentialKind: 'session', credentialId: randomUUID() };
    expect((await refusal(services.proposals.approve(strangerSession, owner.mapping.id, proposal.id))).code).toBe('not_found');
    for (const id of [randomUUID(), 'not-an-id']) expect((await refusal(services.proposals.approve(person, owner.mapping.id, id))).code).toBe('not_found');
    // Executing before approval is a conflict of states, not an apply.
    expect((await refusal(services.proposals.execute(person, owner.mapping.id, proposal.id))).code).toBe('conflict');
    expect(await snapshot()).toBe(before);
  });

  it('executes exactly the approved actions once, under proposal:<id>, however often the person asks', async () => {
    await apply([{ type: 'write-note', path: 'Plans/Exec.md', content: '# E\n' }]);
    const { proposal } = await propose([{ path: 'Plans/Exec.md', content: '# E\n\nexecuted\n' }, { path: 'Plans/Exec-new.md', content: '# N\n' }]);
    await services.proposals.approve(person, owner.mapping.id, proposal.id, 'looks right');
    const [first, second] = await Promise.all([services.proposals.execute(person, owner.mapping.id, proposal.id), services.proposals.execute(person, owner.mapping.id, proposal.id)]);
    const third = await services.proposals.execute(person, owner.mapping.id, proposal.id);
    for (const p of [first, second, third]) expect(p).toMatchObject({ state: 'executed', executedAt: first.executedAt });
    expect(await hashOf('Plans/Exec.md')).toBe(contentHash('# E\n\nexecuted\n'));
    expect(await hashOf('Plans/Exec-new.md')).toBe(contentHash('# N\n'));
    const events = await db.query<{ kind: string; idempotency_key: string | null; credential_kind: string; details: Record<string, unknown> }>(
      `SELECT kind, idempotency_key, credential_kind, details FROM provenance_events WHERE mapping_id = $1 AND (idempotency_key = $2 OR details->>'proposalId' = $3) ORDER BY seq`,
      [owner.mapping.id, `proposal:${proposal.id}`, proposal.id],
    );
    expect(events.map((e) => [e.kind, e.credential_kind])).toEqual([
      ['proposal.created', 'personal_access_token'],
      ['proposal.approved', 'session'],
      ['note.updated', 'session'],
      ['note.created', 'session'],
      ['proposal.executed', 'session'],
    ]);
    const { steps } = await services.proposals.get(owner.actor, owner.mapping.id, proposal.id);
    expect(steps.map((s) => s.step)).toEqual(['propose', 'approve', 'execute']);
    expect(steps[2]!.receipt).toMatchObject({ idempotencyKey: `proposal:${proposal.id}`, notesHash: proposal.notesHash, againstHash: proposal.againstHash });
  });

  it('fails an execution when a note changed since the preview: nothing applied, the proposal says why', async () => {
    await apply([{ type: 'write-note', path: 'Plans/Stale.md', content: '# S\n' }]);
    const { proposal } = await propose([{ path: 'Plans/Stale.md', content: '# S\n\nproposed\n' }, { path: 'Plans/Stale-new.md', content: '# new\n' }]);
    await services.proposals.approve(person, owner.mapping.id, proposal.id);
    await apply([{ type: 'write-note', path: 'Plans/Stale.md', content: '# S\n\nsomeone else\n', expectedHash: contentHash('# S\n') }]);
    const notesBefore = await snapshotTables(db);
    const failed = await services.proposals.execute(person, owner.mapping.id, proposal.id);
    expect(failed).toMatchObject({ state: 'failed', failure: { code: 'stale_revision' }, result: null });
    expect(await snapshotTables(db)).not.toBe(notesBefore); // the failure is an event of the feed ...
    expect(await hashOf('Plans/Stale.md')).toBe(contentHash('# S\n\nsomeone else\n')); // ... and no note changed
    expect(await hashOf('Plans/Stale-new.md')).toBeNull();
    expect((await refusal(services.proposals.execute(person, owner.mapping.id, proposal.id))).code).toBe('conflict');
  });

  it('undoes an executed proposal where every note is as it left it, and refuses with nothing changed where one is not', async () => {
    await apply([
      { type: 'write-note', path: 'Plans/U1.md', content: '# U1\n' },
      { type: 'write-note', path: 'Plans/U2.md', content: '# U2\n' },
    ]);
    const { proposal } = await propose([{ path: 'Plans/U1.md', content: '# U1 changed\n' }, { path: 'Plans/U-new.md', content: '# created\n' }], [{ path: 'Plans/U2.md' }]);
    await services.proposals.approve(person, owner.mapping.id, proposal.id);
    await services.proposals.execute(person, owner.mapping.id, proposal.id);
    expect((await services.proposals.get(owner.actor, owner.mapping.id, proposal.id)).proposal.reversible).toBe(true);
    const undone = await services.proposals.undo(person, owner.mapping.id, proposal.id);
    expect(undone.state).toBe('undone');
    expect(await hashOf('Plans/U1.md')).toBe(contentHash('# U1\n'));
    expect(await hashOf('Plans/U2.md')).toBe(contentHash('# U2\n'));
    expect(await hashOf('Plans/U-new.md')).toBeNull();

    const second = (await propose([{ path: 'Plans/U1.md', content: '# U1 again\n' }])).proposal;
    await services.proposals.approve(person, owner.mapping.id, second.id);
    await services.proposals.execute(person, owner.mapping.id, second.id);
    await apply([{ type: 'write-note', path: 'Plans/U1.md', content: '# U1 by hand\n', expectedHash: contentHash('# U1 again\n') }]);
    expect((await services.proposals.get(owner.actor, owner.mapping.id, second.id)).proposal.reversible).toBe(false);
    const kept = await services.proposals.undo(person, owner.mapping.id, second.id);
    expect(kept).toMatchObject({ state: 'executed', failure: { code: 'stale_revision' } });
    expect(await hashOf('Plans/U1.md')).toBe(contentHash('# U1 by hand\n'));
  });

  it('expires a proposal nobody acted on, and refuses to act on it then', async () => {
    const { proposal } = await propose([{ path: 'Plans/Old.md', content: '# old\n' }]);
    now = new Date(now.getTime() + PROPOSAL_TTL_MS + 1000);
    expect((await refusal(services.proposals.approve(person, owner.mapping.id, proposal.id))).code).toBe('conflict');
    const { proposal: read, steps } = await services.proposals.get(owner.actor, owner.mapping.id, proposal.id);
    expect(read.state).toBe('expired');
    expect(steps.map((s) => [s.step, s.by.credentialKind])).toEqual([
      ['propose', 'personal_access_token'],
      ['expire', 'system'],
    ]);
    const waiting = (await propose([{ path: 'Plans/Old2.md', content: '# old\n' }])).proposal;
    now = new Date(now.getTime() + PROPOSAL_TTL_MS + 1000);
    expect(await services.proposals.expireDue()).toBeGreaterThanOrEqual(1);
    expect((await services.proposals.get(owner.actor, owner.mapping.id, waiting.id)).proposal.state).toBe('expired');
  });

  it('lists a mapping\'s proposals newest first, by state, with a cursor', async () => {
    const all = await services.proposals.list(owner.actor, owner.mapping.id, { limit: 2 });
    expect(all.proposals).toHaveLength(2);
    expect(all.truncated).toBe(true);
    const next = await services.proposals.list(owner.actor, owner.mapping.id, { limit: 200, cursor: all.nextCursor! });
    const ids = [...all.proposals, ...next.proposals].map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const expired = await services.proposals.list(owner.actor, owner.mapping.id, { states: ['expired'] });
    expect(expired.proposals.every((p) => p.state === 'expired')).toBe(true);
    expect(expired.proposals.length).toBeGreaterThanOrEqual(2);
  });
});
