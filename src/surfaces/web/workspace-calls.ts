import type { WebSession } from '../../domains/sessions/index.ts';
import type { AuthenticatedPrincipal, TokensService } from '../../domains/tokens/index.ts';
import { sessionActor } from '../invocation/authenticate.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import { WORKSPACE_SURFACE } from '../invocation/surface.ts';
import type { AnyOperation } from '../operations/operation.ts';

/** The principal of a signed-in session, from server records (the account's current status, plan and overrides). */
export function sessionPrincipal(tokens: Pick<TokensService, 'principalFor'>, session: WebSession): Promise<AuthenticatedPrincipal> {
  return tokens.principalFor(sessionActor(session));
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
