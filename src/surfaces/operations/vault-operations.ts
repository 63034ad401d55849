import { z } from 'zod';
import { mappingWriteSummary } from '../../domains/vaults/index.ts';
import { roleAllows } from '../../domains/workspaces/index.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation } from './operation.ts';

const MappingOut = z.object({
  mappingId: z.string().describe('Pass it as mappingId to every vault operation'),
  name: z.string(),
  provider: z.string().describe('hosted, drive, dropbox or github'),
  readOnly: z
    .boolean()
    .describe('True when the mapping accepts no note changes at all (read-only, pull-only, or a remote mapping whose provider connection has no file-write access)'),
  writeAccess: z.boolean().describe('True when MCP note changes are allowed on this exact mapping, for your role'),
  role: z.enum(['owner', 'admin', 'editor', 'viewer']).describe('Your role in the workspace of the mapping; a viewer only reads'),
  workspaceId: z.string().describe('The workspace the mapping belongs to (the automation gateway names workspaces by it)'),
  remoteRoot: z.string().nullable().describe('A remote mapping: the provider folder, or repository@branch:folder, it maps; null when hosted'),
  connected: z.boolean().describe('False when a remote mapping\'s provider connection is disconnected (its calls answer provider_disconnected); true when hosted'),
  deviceEncrypted: z.boolean().describe('True when note bodies are encrypted on the device and the server cannot read them'),
  approvalPolicy: z
    .enum(['open', 'preview-first', 'people-approve'])
    .describe('The owner\'s approval policy: preview-first needs a matching preview before each apply; people-approve means agents propose (propose_action) and a person approves'),
});

/** The mappings the calling account may see: the discovery every vault operation starts from. */
export const listMappings = defineOperation({
  id: 'listMappings',
  summary: 'List vault mappings',
  description:
    'Lists the vault mappings you may use: those of every workspace you belong to, owned and shared, with the ' +
    'mappingId to pass to every vault operation, your role, whether the mapping is read-only, and whether MCP may ' +
    'change its notes for you (writeAccess).',
  tags: ['mappings'],
  input: z.strictObject({}),
  output: z.object({ vaults: z.array(MappingOut), truncated: z.boolean().describe('Always false: every mapping you may use is listed') }),
  errors: [],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  rest: [{ method: 'GET', path: '/mappings' }],
  mcp: { name: 'list_vaults', title: 'List vaults', advice: 'Call this first; never guess a mappingId.', annotations: READ_ONLY_TOOL },
  async run(ctx) {
    const mappings = await ctx.services.vaults.listAccessibleMappings(ctx.principal.accountId);
    return {
      vaults: mappings.map(({ mapping: m, role }) => {
        const summary = mappingWriteSummary(m);
        const writes = roleAllows(role, 'vault.write');
        return { mappingId: m.id, name: m.name, provider: m.provider, readOnly: summary.readOnly, writeAccess: summary.writeAccess && writes, role, workspaceId: m.workspaceId, remoteRoot: m.remoteRoot, connected: m.provider === 'hosted' || m.connection?.status === 'active', deviceEncrypted: m.deviceEncrypted, approvalPolicy: m.approvalPolicy };
      }),
      truncated: false,
    };
  },
});
