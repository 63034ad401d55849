import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';

// Automation proposals (docs/proposals.md, "Automation proposals"): the same lifecycle as agents' proposals, a
// person's approval, and the bounded executor that executes only approved automation proposals, as the person who
// approved them, whose write access it checks again.
describe('automation proposals and the bounded executor', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let colleague: Owner;
  let ownerSession: Actor;
  let colleagueSession: Actor;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('automation-proposals'));
    colleague = await createOwner(services, 'colleague');
    await services.workspaces.setMemberRole(owner.workspaceId, colleague.accountId, 'editor');
    ownerSession = { accountId: owner.accountId, credentialKind: 'session', credentialId: randomUUID() };
    colleagueSession = { accountId: colleague.accountId, credentialKind: 'session', credentialId: randomUUID() };
  });
  afterAll(() => db.close());

  const propose = (path: string, origin: 'agent' | 'automation' = 'automation', actor: Actor = owner.actor) =>
    services.proposals.propose({
      actor,
      capability: 'direct',
      mappingId: owner.mapping.id,
      kind: 'action',
      title: `Add ${path}`,
      writes: [{ path, content: `# ${path}\n` }],
      deletions: [],
      origin,
      automationSource: 'forms',
    });
  const noteOf = async (path: string) =>
    (await db.query<{ content: string }>('SELECT content FROM notes WHERE vault_id = $1 AND path = $2', [owner.mapping.vaultId, path]))[0]?.content;
  const stepsOf = async (id: string) =>
    (await db.query<{ step: string; credential_kind: string; account_id: string }>('SELECT step, credential_kind, account_id FROM action_proposal_steps WHERE proposal_id = $1 ORDER BY seq', [id]));

  it('stores the origin and source, and executes an approved automation proposal as its approver', async () => {
    const { proposal } = await propose('Inbox/Auto A.md');
    expect(proposal.origin).toBe('automation');
    expect(proposal.automationSource).toBe('forms');
    // Proposed is not approved: the executor does nothing and the proposal waits.
    expect(await services.proposals.executeApproved(proposal.id)).toBeUndefined();
    expect(await services.proposals.approvedForExecution('all', 50)).not.toContain(proposal.id);
    await services.proposals.approve(colleagueSession, owner.mapping.id, proposal.id);
    expect(await services.proposals.approvedForExecution({ accountId: owner.accountId }, 50)).toContain(proposal.id);
    // The colleague is an editor: no automation management, so their scope holds nothing to execute.
    expect(await services.proposals.approvedForExecution({ accountId: colleague.accountId }, 50)).toEqual([]);
    const executed = await services.proposals.executeApproved(proposal.id);
    expect(executed?.state).toBe('executed');
    expect(await noteOf('Inbox/Auto A.md')).toBe('# Inbox/Auto A.md\n');
    const steps = await stepsOf(proposal.id);
    expect(steps.map((s) => s.step)).toEqual(['propose', 'approve', 'execute']);
    expect(steps[2]).toMatchObject({ credential_kind: 'automation', account_id: colleague.accountId });
    // Again: answered as it is, applied once.
    expect((await services.proposals.executeApproved(proposal.id))?.state).toBe('executed');
    expect((await stepsOf(proposal.id)).length).toBe(3);
  });

  it('never executes agents’ proposals, however approved', async () => {
    const { proposal } = await propose('Inbox/Agent A.md', 'agent');
    await services.proposals.approve(ownerSession, owner.mapping.id, proposal.id);
    expect(await services.proposals.approvedForExecution('all', 50)).not.toContain(proposal.id);
    expect(await services.proposals.executeApproved(proposal.id)).toBeUndefined();
    expect(await noteOf('Inbox/Agent A.md')).toBeUndefined();
    expect((await stepsOf(proposal.id)).map((s) => s.step)).toEqual(['propose', 'approve']);
  });

  it('fails the proposal, applying nothing, when the approver lost write access since', async () => {
    const { proposal } = await propose('Inbox/Auto B.md');
    await services.proposals.approve(colleagueSession, owner.mapping.id, proposal.id);
    await services.workspaces.setMemberRole(owner.workspaceId, colleague.accountId, 'viewer');
    try {
      const failed = await services.proposals.executeApproved(proposal.id);
      expect(failed?.state).toBe('failed');
      expect(failed?.failure?.code).toBe('forbidden');
      expect(await noteOf('Inbox/Auto B.md')).toBeUndefined();
    } finally {
      await services.workspaces.setMemberRole(owner.workspaceId, colleague.accountId, 'editor');
    }
  });

  it('applies once when two executors race for one approved proposal', async () => {
    const { proposal } = await propose('Inbox/Auto C.md');
    await services.proposals.approve(ownerSession, owner.mapping.id, proposal.id);
    const [a, b] = await Promise.all([services.proposals.executeApproved(proposal.id), services.proposals.executeApproved(proposal.id)]);
    expect([a?.state, b?.state]).toEqual(['executed', 'executed']);
    expect((await stepsOf(proposal.id)).filter((s) => s.step === 'execute')).toHaveLength(1);
  });

  it('lists a workspace’s proposals for those who may read them, by origin, and nobody else’s', async () => {
    const automation = await services.proposals.listWorkspace(owner.actor, owner.workspaceId, { origin: 'automation' });
    expect(automation.proposals.length).toBeGreaterThanOrEqual(3);
    expect(automation.proposals.every((p) => p.origin === 'automation')).toBe(true);
    const approved = await services.proposals.listWorkspace(colleague.actor, owner.workspaceId, { states: ['executed'], origin: 'automation', limit: 1 });
    expect(approved.proposals).toHaveLength(1);
    expect(approved.nextCursor).not.toBeNull();
    const stranger = await createOwner(services, 'stranger');
    const error = await services.proposals.listWorkspace(stranger.actor, owner.workspaceId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KgateError);
    expect((error as KgateError).code).toBe('not_found');
    // Approving stays a person's act for automation proposals too.
    const { proposal } = await propose('Inbox/Auto D.md');
    const refused = await services.proposals.approve(owner.actor, owner.mapping.id, proposal.id).catch((e: unknown) => e);
    expect((refused as KgateError).code).toBe('forbidden');
    expect((await stepsOf(proposal.id)).map((s) => s.step)).toEqual(['propose']);
  });
});
