import { KgateError } from '../../kernel/errors.ts';
import { entitlementsOf, type AccountsService } from '../../domains/accounts/index.ts';
import type { WebSession } from '../../domains/sessions/index.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import { WORKSPACE_SURFACE } from '../invocation/surface.ts';
import type { AnyOperation } from '../operations/operation.ts';

/** How provenance names the workspace as a client. */
export const WORKSPACE_CLIENT = 'kgate workspace';

/**
 * The principal of a signed-in session, from server records: the session was resolved from its cookie (which
 * checks that the account is active), and the account's current plan is read again here.
 */
export async function sessionPrincipal(accounts: Pick<AccountsService, 'getAccount'>, session: WebSession): Promise<AuthenticatedPrincipal> {
  const account = await accounts.getAccount(session.accountId);
  if (account.status !== 'active') throw new KgateError('account_inactive', 'The account is suspended.');
  return {
    actor: { accountId: account.id, credentialKind: 'session', credentialId: session.id, client: WORKSPACE_CLIENT },
    accountId: account.id,
    status: account.status,
    plan: account.plan,
    entitlements: entitlementsOf(account.plan),
  };
}

/** Calls operations for the person of one session; a refusal or failure is thrown as its KgateError. */
export type WorkspaceCall = <T = Record<string, unknown>>(operation: AnyOperation, input: Record<string, unknown>, idempotencyKey?: string) => Promise<T>;

/**
 * The operations a page runs, through the one invocation pipeline on the workspace surface: the same validation,
 * authority checks, idempotency and provenance as REST and MCP, with the session as the credential.
 */
export function workspaceCaller(pipeline: Pipeline, principal: AuthenticatedPrincipal): WorkspaceCall {
  return async <T>(operation: AnyOperation, input: Record<string, unknown>, idempotencyKey?: string): Promise<T> => {
    const outcome = await pipeline.invoke({
      surface: WORKSPACE_SURFACE,
      principal,
      operation,
      readInput: () => input,
      idempotencyKey: { value: idempotencyKey, required: false },
    });
    if (!outcome.ok) throw outcome.error;
    return outcome.output as T;
  };
}
