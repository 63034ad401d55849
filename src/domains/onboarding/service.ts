import type { Database } from '../../db/port.ts';
import type { AccountsService } from '../accounts/index.ts';
import type { TokensService } from '../tokens/index.ts';
import type { HostedMapping, VaultsService } from '../vaults/index.ts';
import type { WorkspacesService } from '../workspaces/index.ts';

/** Default owner of a bootstrapped installation. */
export const DEFAULT_OWNER_EMAIL = 'owner@kgate.local';
/** Name of the workspace and vault that bootstrap creates. */
export const DEFAULT_WORKSPACE_NAME = 'Personal';
export const DEFAULT_VAULT_NAME = 'Demo vault';

/** Input of `bootstrapOwner`. */
export interface BootstrapInput {
  email?: string;
  password?: string;
}

/** What bootstrap found or created, and the new token (shown once). */
export interface BootstrapResult {
  accountId: string;
  workspaceId: string;
  mapping: HostedMapping;
  token: string;
  accountCreated: boolean;
  vaultCreated: boolean;
}

/** First-run setup of an installation. */
export interface OnboardingService {
  /**
   * Idempotently makes sure an owner account (developer plan when new), an owned workspace and a hosted vault with
   * its mapping exist, then issues a new personal access token. Everything happens in one transaction. The demo
   * mapping has "Allow hosted MCP note changes" on, so agents can preview and apply writes out of the box.
   */
  bootstrapOwner(input: BootstrapInput): Promise<BootstrapResult>;
}

/** Builds the onboarding service from the domains it orchestrates. */
export function createOnboardingService(deps: {
  db: Database;
  accounts: AccountsService;
  workspaces: WorkspacesService;
  vaults: VaultsService;
  tokens: TokensService;
}): OnboardingService {
  const { db, accounts, workspaces, vaults, tokens } = deps;
  return {
    bootstrapOwner: (input) =>
      db.transaction(async (tx) => {
        const { account, created: accountCreated } = await accounts.ensureAccount(
          { email: input.email ?? DEFAULT_OWNER_EMAIL, plan: 'developer', ...(input.password ? { password: input.password } : {}) },
          tx,
        );
        const { workspace } = await workspaces.ensureOwnedWorkspace(account.id, DEFAULT_WORKSPACE_NAME, tx);
        const owned = await vaults.listOwnedMappings(account.id, tx);
        const existing = owned.find(
          (m): m is HostedMapping => m.provider === 'hosted' && m.vaultId !== null && m.workspaceId === workspace.id,
        );
        const mapping =
          existing ??
          (await vaults.createHostedVault(
            { accountId: account.id, plan: account.plan, workspaceId: workspace.id, name: DEFAULT_VAULT_NAME, allowMcpNoteChanges: true },
            tx,
          ));
        const issued = await tokens.issueToken(
          { accountId: account.id, name: `bootstrap ${new Date().toISOString().slice(0, 10)}` },
          tx,
        );
        return {
          accountId: account.id,
          workspaceId: workspace.id,
          mapping,
          token: issued.token,
          accountCreated,
          vaultCreated: existing === undefined,
        };
      }),
  };
}
