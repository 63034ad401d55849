import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner, type Owner } from '../../../../test/support/fixtures.ts';
import { codeOf, openRuntimeAdminSuite, runtimeRows, type RuntimeAdminSuite } from '../../../../test/support/runtime-admin.ts';
import type { HostedMapping } from '../../vaults/index.ts';
import type { CustomerInstallation } from './index.ts';

describe('runtime administration: workspace assignments and vault grants', () => {
  let suite: RuntimeAdminSuite;
  let installation: CustomerInstallation;
  /** A workspace where the customer is only an editor (its owner is `teamOwner`). */
  let teamOwner: Owner;
  /** A second vault of the customer's own workspace. */
  let research: HostedMapping;

  beforeAll(async () => {
    suite = await openRuntimeAdminSuite('grants');
    const { admin, owner, product, services } = suite;
    installation = await admin.install(owner.accountId, product.slug);
    teamOwner = await createOwner(services, 'team-owner');
    await services.workspaces.setMemberRole(teamOwner.workspaceId, owner.accountId, 'editor');
    research = await services.vaults.createHostedVault({ accountId: owner.accountId, plan: 'developer', workspaceId: owner.workspaceId, name: 'Research' });
  });
  afterAll(() => suite.db.close());

  it('assigns a workspace the customer owns, once', async () => {
    const { admin, owner } = suite;
    const assigned = await admin.assignWorkspace(owner.accountId, installation.id, owner.workspaceId);
    expect(assigned.assignments).toEqual([{ workspaceId: owner.workspaceId, workspaceName: expect.any(String), assignedAt: expect.any(Date) }]);
    expect((await admin.assignWorkspace(owner.accountId, installation.id, owner.workspaceId)).assignments).toEqual(assigned.assignments);
  });

  it("refuses a workspace where the customer is only an editor (forbidden), others' and unknown ones (not_found), and changes nothing", async () => {
    const { admin, db, owner, services } = suite;
    const stranger = await createOwner(services, 'stranger');
    const before = await runtimeRows(db);
    const refusals = await Promise.all([
      codeOf(admin.assignWorkspace(owner.accountId, installation.id, teamOwner.workspaceId)),
      codeOf(admin.assignWorkspace(owner.accountId, installation.id, stranger.workspaceId)),
      codeOf(admin.assignWorkspace(owner.accountId, installation.id, '00000000-0000-7000-8000-000000000000')),
      codeOf(admin.assignWorkspace(owner.accountId, installation.id, 'not-a-uuid')),
      // Someone else's installation, even with a workspace of their own.
      codeOf(admin.assignWorkspace(stranger.accountId, installation.id, stranger.workspaceId)),
    ]);
    expect(refusals).toEqual(['forbidden', 'not_found', 'not_found', 'not_found', 'not_found']);
    expect(await runtimeRows(db)).toBe(before);
  });

  it('grants vaults of an assigned workspace; granting again changes the access', async () => {
    const { admin, owner, chainChanges, product } = suite;
    const changes = chainChanges.length;
    await admin.grantVault(owner.accountId, installation.id, owner.mapping.vaultId, 'read');
    const granted = await admin.grantVault(owner.accountId, installation.id, research.vaultId, 'publish');
    expect(granted.grants.map((g) => [g.vaultName, g.access, g.workspaceId, g.boundAt])).toEqual(
      [
        [owner.mapping.name, 'read', owner.workspaceId, null],
        ['Research', 'publish', owner.workspaceId, null],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const changed = await admin.grantVault(owner.accountId, installation.id, research.vaultId, 'read');
    expect(changed.grants.find((g) => g.vaultId === research.vaultId)?.access).toBe('read');
    expect(chainChanges.slice(changes)).toEqual([product.organizationId, product.organizationId, product.organizationId]);
  });

  it('refuses a vault of an unassigned workspace, a bad access, unknown vaults and other customers, and changes nothing', async () => {
    const { admin, db, owner, services } = suite;
    const stranger = await createOwner(services, 'stranger-2');
    // Admin of the team's workspace too, so that the only thing missing is its assignment.
    await services.workspaces.setMemberRole(teamOwner.workspaceId, owner.accountId, 'admin');
    const before = await runtimeRows(db);
    const refusals = await Promise.all([
      codeOf(admin.grantVault(owner.accountId, installation.id, teamOwner.mapping.vaultId, 'read')),
      codeOf(admin.grantVault(owner.accountId, installation.id, owner.mapping.vaultId, 'write' as never)),
      codeOf(admin.grantVault(owner.accountId, installation.id, stranger.mapping.vaultId, 'read')),
      codeOf(admin.grantVault(owner.accountId, installation.id, 'not-a-uuid', 'read')),
      codeOf(admin.grantVault(stranger.accountId, installation.id, stranger.mapping.vaultId, 'read')),
      codeOf(admin.revokeVault(owner.accountId, installation.id, teamOwner.mapping.vaultId)),
      codeOf(admin.unassignWorkspace(owner.accountId, installation.id, teamOwner.workspaceId)),
    ]);
    expect(refusals).toEqual(['workspace_not_assigned', 'invalid_request', 'not_found', 'not_found', 'not_found', 'not_found', 'not_found']);
    expect(await runtimeRows(db)).toBe(before);
    await services.workspaces.setMemberRole(teamOwner.workspaceId, owner.accountId, 'editor');
  });

  it('refuses granting a vault of an assigned workspace where the customer is now only an editor', async () => {
    const { admin, db, owner, services } = suite;
    await services.workspaces.setMemberRole(teamOwner.workspaceId, owner.accountId, 'admin');
    await admin.assignWorkspace(owner.accountId, installation.id, teamOwner.workspaceId);
    await services.workspaces.setMemberRole(teamOwner.workspaceId, owner.accountId, 'editor');
    const before = await runtimeRows(db);
    expect(await codeOf(admin.grantVault(owner.accountId, installation.id, teamOwner.mapping.vaultId, 'read'))).toBe('forbidden');
    expect(await runtimeRows(db)).toBe(before);
    // Taking a delegation back needs no role.
    const after = await admin.unassignWorkspace(owner.accountId, installation.id, teamOwner.workspaceId);
    expect(after.assignments.map((a) => a.workspaceId)).toEqual([owner.workspaceId]);
  });

  it('revokes a grant, and unassigning a workspace removes the grants of its vaults', async () => {
    const { admin, db, owner } = suite;
    const revoked = await admin.revokeVault(owner.accountId, installation.id, research.vaultId);
    expect(revoked.grants.map((g) => g.vaultId)).toEqual([owner.mapping.vaultId]);
    const unassigned = await admin.unassignWorkspace(owner.accountId, installation.id, owner.workspaceId);
    expect({ assignments: unassigned.assignments, grants: unassigned.grants }).toEqual({ assignments: [], grants: [] });
    expect(await db.query('SELECT * FROM runtime_vault_grants')).toEqual([]);
  });
});
