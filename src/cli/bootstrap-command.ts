import type { Services } from '../app/services.ts';
import { applyDemoHistory } from './demo-history.ts';
import { importFolder, type ImportReport } from './import-folder.ts';
import { EXAMPLE_VAULT_DIR } from './runtime.ts';

/** The JSON object `kgate admin bootstrap --json` prints. */
export interface BootstrapOutput {
  accountId: string;
  workspaceId: string;
  vaultId: string;
  mappingId: string;
  token: string;
  baseUrl: string;
  mcpUrl: string;
  created: { account: boolean; vault: boolean };
  /** What seeding the demo vault did: the notes imported, then the steps of later edits applied (examples/history). */
  seeded: (Pick<ImportReport, 'created' | 'updated' | 'unchanged'> & { historySteps: number }) | null;
}

/**
 * Runs the idempotent bootstrap and seeds the demo vault from `examples/vault/` when the vault is new or empty
 * (unless `empty`), then applies its later edits from `examples/history/` as governed writes, so that the demo's
 * knowledge has a history. Seeding an existing vault with notes would overwrite the owner's edits, so it never happens.
 */
export async function bootstrap(
  baseUrl: string,
  services: Services,
  options: { email?: string; password?: string; empty?: boolean },
): Promise<BootstrapOutput> {
  const result = await services.onboarding.bootstrapOwner({
    ...(options.email ? { email: options.email } : {}),
    ...(options.password ? { password: options.password } : {}),
  });
  const actor = { accountId: result.accountId, credentialKind: 'operator' as const, client: 'kgate-cli' };
  let seeded: BootstrapOutput['seeded'] = null;
  if (!options.empty && (await services.notes.countNotes(actor, result.mapping.id)) === 0) {
    const report = await importFolder(services.notes, actor, result.mapping.id, EXAMPLE_VAULT_DIR, { files: services.files });
    const historySteps = await applyDemoHistory(services, actor, result.mapping.id);
    seeded = { created: report.created, updated: report.updated, unchanged: report.unchanged, historySteps };
  }
  return {
    accountId: result.accountId,
    workspaceId: result.workspaceId,
    vaultId: result.mapping.vaultId,
    mappingId: result.mapping.id,
    token: result.token,
    baseUrl,
    mcpUrl: `${baseUrl}/api/mcp`,
    created: { account: result.accountCreated, vault: result.vaultCreated },
    seeded,
  };
}

/** A ready-to-paste MCP client configuration; the token comes from SERVICE_MCP_TOKEN, never from the file. */
export function mcpClientConfig(mcpUrl: string): string {
  return JSON.stringify(
    {
      mcpServers: {
        kgate: {
          type: 'http',
          url: mcpUrl,
          headers: { Authorization: 'Bearer ${SERVICE_MCP_TOKEN}' },
        },
      },
    },
    null,
    2,
  );
}

/**
 * The first-start banner: the token and the sign-in password (both shown once), the MCP URL and client
 * configurations, by OAuth sign-in or with the token.
 */
export function firstStartBanner(output: BootstrapOutput, email: string, password?: string): string {
  const signIn = password
    ? [
        `Sign in at ${output.baseUrl}/signin as ${email} with the password ${password}`,
        '(shown only this once; `kgate admin bootstrap --email E --password-stdin` sets a new one).',
        `MCP clients that support OAuth (Claude, ChatGPT, Cursor, VS Code) need only the URL ${output.mcpUrl}:`,
        'they open the sign-in and consent pages themselves. Review them at /account/connections.',
        '',
      ]
    : [];
  return [
    '',
    `First start: created the account ${email} with a workspace and a demo vault` +
      (output.seeded
        ? ` (${output.seeded.created} notes from examples/vault, then ${output.seeded.historySteps} steps of later edits from examples/history).`
        : '.'),
    '',
    ...signIn,
    'Your personal access token, shown only this once. Keep it secret and put it in your environment:',
    '',
    `  export SERVICE_MCP_TOKEN=${output.token}`,
    '',
    `REST API:      curl -H "Authorization: Bearer $SERVICE_MCP_TOKEN" ${output.baseUrl}/api/account`,
    `MCP endpoint:  ${output.mcpUrl}`,
    `Mapping id:    ${output.mappingId}`,
    '',
    'MCP client configuration (reads the token from SERVICE_MCP_TOKEN; paste into .mcp.json or your client):',
    '',
    mcpClientConfig(output.mcpUrl),
    '',
  ].join('\n');
}
