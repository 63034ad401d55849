import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import { INVITATION_TTL_MS } from './membership.ts';

describe('team membership', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let now = new Date('2026-11-25T10:00:00Z');
  const clock: Clock = { now: () => now };

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('team-owner', clock));
    await services.accounts.setPlan(owner.accountId, 'team');
  });
  afterAll(() => db.close());

  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: { code?: string }) => error.code,
    );
  const members = async () => (await services.membership.listMembers(owner.accountId, owner.workspaceId)).map((m) => [m.accountId, m.role]);
  const invitationRows = () => db.query('SELECT * FROM workspace_invitations ORDER BY id');

  it('invites with a single-use link kept only as a hash, and the invited person joins with that role', async () => {
    const guest = await createOwner(services, 'guest');
    const { token } = await services.membership.invite(owner.accountId, owner.workspaceId, 'viewer');
    expect(JSON.stringify(await invitationRows())).not.toContain(token);
    expect(await services.membership.previewInvitation(token)).toMatchObject({ workspaceId: owner.workspaceId, role: 'viewer' });
    await services.membership.acceptInvitation(guest.accountId, token);
    expect(await members()).toContainEqual([guest.accountId, 'viewer']);
    // Used up: the same link answers as one that never existed, and changes nothing.
    const other = await createOwner(services, 'other');
    const before = await members();
    expect(await codeOf(services.membership.acceptInvitation(other.accountId, token))).toBe('not_found');
    expect(await codeOf(services.membership.previewInvitation(token))).toBe('not_found');
    expect(await members()).toEqual(before);
  });

  it('lets two people racing for one link join once', async () => {
    const [a, b] = [await createOwner(services, 'race-a'), await createOwner(services, 'race-b')];
    const { token } = await services.membership.invite(owner.accountId, owner.workspaceId, 'editor');
    const outcomes = await Promise.all([a, b].map((p) => codeOf(services.membership.acceptInvitation(p.accountId, token))));
    expect(outcomes.sort()).toEqual(['not_found', 'resolved']);
    const joined = (await members()).filter(([id]) => id === a.accountId || id === b.accountId);
    expect(joined).toHaveLength(1);
  });

  it('expires links, and refuses revoked, unknown and malformed ones alike', async () => {
    const late = await createOwner(services, 'late');
    const expiring = await services.membership.invite(owner.accountId, owner.workspaceId, 'viewer');
    const revoked = await services.membership.invite(owner.accountId, owner.workspaceId, 'viewer');
    await services.membership.revokeInvitation(owner.accountId, owner.workspaceId, revoked.invitation.id);
    const before = await members();
    now = new Date(now.getTime() + INVITATION_TTL_MS + 1);
    try {
      for (const token of [expiring.token, revoked.token, 'x'.repeat(43), '', 'short']) {
        expect(await codeOf(services.membership.acceptInvitation(late.accountId, token)), token).toBe('not_found');
      }
    } finally {
      now = new Date(now.getTime() - INVITATION_TTL_MS - 1);
    }
    expect(await members()).toEqual(before);
  });

  it('lets only managers invite and change roles, only owners touch owners, and keeps one owner', async () => {
    const editor = await createOwner(services, 'editor');
    const admin = await createOwner(services, 'admin');
    await services.workspaces.setMemberRole(owner.workspaceId, editor.accountId, 'editor');
    await services.workspaces.setMemberRole(owner.workspaceId, admin.accountId, 'admin');
    const before = await members();
    expect(await codeOf(services.membership.invite(editor.accountId, owner.workspaceId, 'viewer'))).toBe('forbidden');
    expect(await codeOf(services.membership.invite(owner.accountId, owner.workspaceId, 'owner'))).toBe('invalid_request');
    expect(await codeOf(services.membership.setRole(owner.accountId, owner.workspaceId, editor.accountId, 'nope' as 'viewer'))).toBe('invalid_request');
    expect(await codeOf(services.membership.setRole(editor.accountId, owner.workspaceId, admin.accountId, 'viewer'))).toBe('forbidden');
    expect(await codeOf(services.membership.setRole(admin.accountId, owner.workspaceId, owner.accountId, 'viewer'))).toBe('forbidden');
    expect(await codeOf(services.membership.setRole(admin.accountId, owner.workspaceId, editor.accountId, 'owner'))).toBe('forbidden');
    expect(await codeOf(services.membership.setRole(owner.accountId, owner.workspaceId, owner.accountId, 'admin'))).toBe('conflict');
    expect(await codeOf(services.membership.removeMember(owner.accountId, owner.workspaceId, owner.accountId))).toBe('conflict');
    expect(await codeOf(services.membership.removeMember(admin.accountId, owner.workspaceId, owner.accountId))).toBe('forbidden');
    expect(await members()).toEqual(before);
    // An admin manages non-owners; anyone may leave.
    await services.membership.setRole(admin.accountId, owner.workspaceId, editor.accountId, 'viewer');
    await services.membership.removeMember(editor.accountId, owner.workspaceId, editor.accountId);
    expect((await members()).map(([id]) => id)).not.toContain(editor.accountId);
  });

  it("a removed member's access to the workspace's vault ends at once", async () => {
    const member = await createOwner(services, 'removed');
    await services.workspaces.setMemberRole(owner.workspaceId, member.accountId, 'editor');
    await services.vaults.resolveMapping(member.accountId, owner.mapping.id, 'write');
    expect((await services.vaults.listAccessibleMappings(member.accountId)).map((m) => m.mapping.id)).toContain(owner.mapping.id);
    await services.membership.removeMember(owner.accountId, owner.workspaceId, member.accountId);
    expect(await codeOf(services.vaults.resolveMapping(member.accountId, owner.mapping.id, 'read'))).toBe('not_found');
    expect((await services.vaults.listAccessibleMappings(member.accountId)).map((m) => m.mapping.id)).not.toContain(owner.mapping.id);
  });

  it("holds to the plan's member limit", async () => {
    const solo = await createOwner(services, 'solo'); // on the developer plan: at most 3 members
    const limit = 3;
    for (let k = 1; k < limit; k++) await services.workspaces.setMemberRole(solo.workspaceId, (await createOwner(services, `m${k}`)).accountId, 'viewer');
    expect(await codeOf(services.membership.invite(solo.accountId, solo.workspaceId, 'viewer'))).toBe('plan_required');
  });
});
