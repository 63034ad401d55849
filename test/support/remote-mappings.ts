import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/port.ts';
import type { RemoteMapping } from '../../src/domains/providers/contract.ts';
import type { RemoteKind, RemoteRoot } from '../../src/domains/providers/port.ts';
import { newId } from '../../src/kernel/ids.ts';

/** What a remote mapping row is made of in a test; everything but the provider and root has a default. */
export interface RemoteMappingInput {
  accountId: string;
  workspaceId: string;
  provider: RemoteKind;
  root: RemoteRoot;
  name?: string;
  deviceEncrypted?: boolean;
  canWrite?: boolean;
  allowMcpNoteChanges?: boolean;
}

/**
 * Inserts, with SQL, a provider connection (with no stored token: tests hand tokens to their own call factory), a
 * vault for the synchronized copy, a remote mapping of it in the owner's workspace, and its sync state row, before
 * the mapping service exists to make them. Returns the mapping as the sync engine takes it.
 */
export async function insertRemoteMapping(db: Database, input: RemoteMappingInput): Promise<RemoteMapping> {
  const connectionId = newId();
  const vaultId = newId();
  const mappingId = newId();
  const name = input.name ?? `${input.provider} ${randomBytes(3).toString('hex')}`;
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO provider_connections (id, account_id, provider, provider_account_id, provider_account_name, scopes, can_read, can_write)
       VALUES ($1, $2, $3, $4, $5, $6::text[], true, $7)`,
      [connectionId, input.accountId, input.provider, `acct-${randomBytes(4).toString('hex')}`, 'Test Account', [], input.canWrite ?? false],
    );
    await tx.query('INSERT INTO vaults (id, workspace_id, name) VALUES ($1, $2, $3)', [vaultId, input.workspaceId, name]);
    await tx.query(
      `INSERT INTO mappings (id, workspace_id, owner_account_id, provider, vault_id, name, provider_connection_id, remote_config, remote_root,
                             device_encrypted, allow_mcp_note_changes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11)`,
      [
        mappingId,
        input.workspaceId,
        input.accountId,
        input.provider,
        vaultId,
        name,
        connectionId,
        JSON.stringify(input.root),
        displayRoot(input.root),
        input.deviceEncrypted ?? false,
        input.allowMcpNoteChanges ?? false,
      ],
    );
    await tx.query('INSERT INTO remote_sync (mapping_id) VALUES ($1)', [mappingId]);
  });
  return {
    id: mappingId,
    workspaceId: input.workspaceId,
    ownerAccountId: input.accountId,
    vaultId,
    provider: input.provider,
    root: input.root,
    connectionId,
    deviceEncrypted: input.deviceEncrypted ?? false,
  };
}

function displayRoot(root: RemoteRoot): string {
  switch (root.kind) {
    case 'drive':
      return root.path;
    case 'dropbox':
      return root.path;
    case 'github':
      return `${root.owner}/${root.repo}@${root.branch}:${root.folder}`;
  }
}
