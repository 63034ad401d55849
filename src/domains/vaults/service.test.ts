import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import type { Database } from '../../db/port.ts';
import type { Services } from '../../app/services.ts';

describe('vaults, mappings and workspace roles', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase());
  });
  afterAll(() => db.close());

  it('bootstrap gives a hosted mapping with the note-change switch on, owned by the account', async () => {
    expect(owner.mapping).toMatchObject({
      provider: 'hosted',
      ownerAccountId: owner.accountId,
      workspaceId: owner.workspaceId,
      allowMcpNoteChanges: true,
      readOnly: false,
      pullOnly: false,
      deviceEncrypted: false,
    });
    expect(await services.vaults.listOwnedMappings(owner.accountId)).toEqual([owner.mapping]);
  });

  it('a new hosted vault starts with the switch off and validates its name', async () => {
    const mapping = await services.vaults.createHostedVault({
      accountId: owner.accountId,
      plan: 'developer',
      workspaceId: owner.workspaceId,
      name: '  Research  ',
    });
    expect(mapping).toMatchObject({ name: 'Research', allowMcpNoteChanges: false, provider: 'hosted' });
    for (const name of ['', '   ', 'x'.repeat(201)]) {
      await expect(
        services.vaults.createHostedVault({ accountId: owner.accountId, plan: 'developer', workspaceId: owner.workspaceId, name }),
      ).rejects.toMatchObject({ code: 'invalid_request' });
    }
  });

  it("enforces the plan's hosted vault limit", async () => {
    const free = await createOwner(services, 'free');
    await expect(
      services.vaults.createHostedVault({ accountId: free.accountId, plan: 'free', workspaceId: free.workspaceId, name: 'Second' }),
    ).rejects.toMatchObject({ code: 'plan_required', details: { limit: 1 } });
  });

  it('only owners and admins may create vaults in a workspace; outsiders see not_found', async () => {
    const editor = await createOwner(services, 'editor');
    await services.workspaces.setMemberRole(owner.workspaceId, editor.accountId, 'editor');
    await expect(
      services.vaults.createHostedVault({ accountId: editor.accountId, plan: 'developer', workspaceId: owner.workspaceId, name: 'E' }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    const outsider = await createOwner(services, 'outsider');
    await expect(
      services.vaults.createHostedVault({ accountId: outsider.accountId, plan: 'developer', workspaceId: owner.workspaceId, name: 'O' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('resolves a mapping for members by role: viewer reads, editor writes, outsider learns nothing', async () => {
    const viewer = await createOwner(services, 'viewer');
    const editor = await createOwner(services, 'editor2');
    const outsider = await createOwner(services, 'outsider2');
    await services.workspaces.setMemberRole(owner.workspaceId, viewer.accountId, 'viewer');
    await services.workspaces.setMemberRole(owner.workspaceId, editor.accountId, 'editor');

    expect((await services.vaults.resolveMapping(viewer.accountId, owner.mapping.id, 'read')).id).toBe(owner.mapping.id);
    await expect(services.vaults.resolveMapping(viewer.accountId, owner.mapping.id, 'write')).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect((await services.vaults.resolveMapping(editor.accountId, owner.mapping.id, 'write')).id).toBe(owner.mapping.id);
    const errors = await Promise.all(
      [owner.mapping.id, '00000000-0000-7000-8000-000000000000', 'nope', ''].map((id) =>
        services.vaults.resolveMapping(outsider.accountId, id, 'read').catch((e: { code: string; message: string }) => e),
      ),
    );
    for (const error of errors) expect(error).toEqual(expect.objectContaining({ code: 'not_found', message: 'The mapping does not exist.' }));
    // Discovery lists only what the account owns, never what it is merely a member of.
    expect(await services.vaults.listOwnedMappings(viewer.accountId)).not.toContainEqual(owner.mapping);
  });

  it('a removed role takes effect on the next resolution', async () => {
    const member = await createOwner(services, 'member');
    await services.workspaces.setMemberRole(owner.workspaceId, member.accountId, 'editor');
    await services.vaults.resolveMapping(member.accountId, owner.mapping.id, 'write');
    await db.query('DELETE FROM workspace_members WHERE workspace_id = $1 AND account_id = $2', [owner.workspaceId, member.accountId]);
    await expect(services.vaults.resolveMapping(member.accountId, owner.mapping.id, 'read')).rejects.toMatchObject({ code: 'not_found' });
  });

  it("only a mapping's owner switches hosted MCP note changes; others see not_found and change nothing", async () => {
    const mapping = await services.vaults.createHostedVault({
      accountId: owner.accountId,
      plan: 'developer',
      workspaceId: owner.workspaceId,
      name: 'Switchable',
    });
    expect((await services.vaults.setMcpNoteChanges(owner.accountId, mapping.id, true)).allowMcpNoteChanges).toBe(true);
    expect((await services.vaults.resolveMapping(owner.accountId, mapping.id, 'read')).allowMcpNoteChanges).toBe(true);

    const admin = await createOwner(services, 'switch-admin');
    await services.workspaces.setMemberRole(owner.workspaceId, admin.accountId, 'admin');
    const outsider = await createOwner(services, 'switch-outsider');
    for (const [accountId, id] of [
      [admin.accountId, mapping.id],
      [outsider.accountId, mapping.id],
      [owner.accountId, '00000000-0000-7000-8000-000000000000'],
      [owner.accountId, 'not-a-uuid'],
    ] as const) {
      await expect(services.vaults.setMcpNoteChanges(accountId, id, false)).rejects.toMatchObject({
        code: 'not_found',
        message: 'The mapping does not exist.',
      });
    }
    expect((await services.vaults.findMappingAsOperator(mapping.id)).allowMcpNoteChanges).toBe(true);
    expect((await services.vaults.setMcpNoteChanges(owner.accountId, mapping.id, false)).allowMcpNoteChanges).toBe(false);
  });
});
