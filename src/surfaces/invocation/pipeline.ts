import { KgateError } from '../../kernel/errors.ts';
import type { IdempotencyService, IdempotentCommit, IdempotentOutcome } from '../../domains/idempotency/index.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { RuntimeReservation } from '../../domains/runtime/index.ts';
import type { Reservation, UsageService } from '../../domains/usage/index.ts';
import {
  appliesChange,
  type AnyOperation,
  type OperationContext,
  type OperationScope,
  type OperationServices,
  type RuntimeCallContext,
} from '../operations/operation.ts';
import { admit, assertCredentialAccepted } from './admit.ts';
import { createFairShare } from './fair-share.ts';
import { authenticate, authenticateSession, type Authenticators } from './authenticate.ts';
import type { Metrics } from '../../metrics.ts';
import { present } from './present.ts';
import type { SurfaceProfile } from './surface.ts';
import { validateInput, validateKey, type ReceivedKey } from './validate.ts';

/** What the pipeline runs on. */
export interface PipelineDependencies extends Authenticators {
  usage: Pick<UsageService, 'reserve'>;
  idempotency: Pick<IdempotencyService, 'run' | 'runShared' | 'runStaged'>;
  services: OperationServices;
  /** Counts refusals before execution for the operator, by surface and code. */
  metrics?: Pick<Metrics, 'countRefusal'> | undefined;
}

/** One call of an operation, as a surface hands it over after translating its wire. */
export interface Call {
  surface: SurfaceProfile;
  principal: AuthenticatedPrincipal;
  operation: AnyOperation;
  /** Reads the raw input; run after admission, so that a malformed request still counts as a call (spec 7.3). */
  readInput: () => unknown;
  /** The idempotency key as received (header or argument), checked by the pipeline. */
  idempotencyKey: ReceivedKey;
  /** On the Product Runtime: the chain as its surface resolved it before the call (docs/runtime.md). */
  runtime?: RuntimeCallContext;
}

/**
 * How a call ended. `admitted: false` means it was refused before execution (scope, rate or monthly limit) and
 * consumed nothing; surfaces answer such refusals at the protocol level. `replayed` marks an answer stored under
 * the idempotency key by an earlier identical call.
 */
export type Invocation = (
  | { ok: true; output: Record<string, unknown>; replayed: boolean; reservation: Reservation | undefined }
  | { ok: false; error: KgateError; admitted: boolean; replayed: boolean; reservation: Reservation | undefined }
) & {
  /** On a metered Product Runtime call: what its reservation left of the organization's month. */
  runtimeReservation?: RuntimeReservation;
};

/** The one invocation pipeline every surface calls (docs/architecture.md shows its steps). */
export interface Pipeline {
  /** Authenticates a request for a surface: credential, account status, plan. Throws the refusal. */
  authenticate(surface: SurfaceProfile, authorization: string | undefined): Promise<AuthenticatedPrincipal>;
  /** Authenticates a request by its session secret (the session cookie's value), after the surface's transport rules. */
  authenticateSession(surface: SurfaceProfile, sessionSecret: string | undefined): Promise<AuthenticatedPrincipal>;
  /** Admits a protocol request that runs no operation (MCP `initialize`, `tools/list`...): scope, then one unit. */
  admit(surface: SurfaceProfile, principal: AuthenticatedPrincipal, scope?: OperationScope): Promise<Reservation | undefined>;
  /** Runs one call of an operation through every step after authentication. */
  invoke(call: Call): Promise<Invocation>;
}

/** Marks an error that replays a stored outcome, so the surface can say so (for example Idempotent-Replayed). */
class ReplayedError extends KgateError {}

/** What is left of a call once its turn on the request thread is over: waiting for its outcome. */
type Pending = () => Promise<IdempotentOutcome<Record<string, unknown>>>;

/**
 * Claims the key when the call applies a change, runs the operation, stores its outcome: steps 6 to 8. A call that
 * can share its commit (Operation.share) is only made ready here; what it returns waits for the call's group, so
 * that the wait holds no heavy turn and the group's members are made ready in their own turns.
 */
async function execute(
  deps: PipelineDependencies,
  ctx: OperationContext,
  call: Call,
  input: Record<string, unknown>,
  key: string | undefined,
): Promise<Pending> {
  const { operation } = call;
  if (!appliesChange(operation, input)) {
    const value = present(operation, await operation.run(ctx, input));
    return () => Promise.resolve({ replayed: false, value });
  }
  if (key === undefined) throw new KgateError('idempotency_key_required', call.surface.words.missingKey);
  const runtime = ctx.principal.runtime;
  const request = {
    accountId: ctx.principal.accountId,
    key,
    operation: operation.id,
    input,
    ...(runtime ? { principalScope: `service-principal:${runtime.principalId}` } : {}),
  };
  const shared = operation.share?.(ctx, input);
  if (shared) {
    return () => deps.idempotency.runShared(request, { ...shared, present: (result: unknown) => present(operation, result as Record<string, unknown>) });
  }
  const work = async (commit: IdempotentCommit) => present(operation, await operation.run({ ...ctx, commit }, input));
  const outcome = operation.stage
    ? await deps.idempotency.runStaged(request, (claim) => operation.stage!(ctx, input, claim), work)
    : await deps.idempotency.run(request, work);
  return () => Promise.resolve(outcome);
}

/** A stored outcome as the output it was, or its error thrown again: step 9. */
function unwrap(operation: AnyOperation, outcome: IdempotentOutcome<Record<string, unknown>>): Record<string, unknown> {
  if (!outcome.replayed) return outcome.value;
  const stored = outcome.outcome;
  if (stored.kind === 'error') throw new ReplayedError(stored.code, stored.message, stored.details);
  // Stripped again: a stored answer never carries more than the schema of today allows.
  return present(operation, stored.value);
}

/**
 * Builds the pipeline. Its steps, in order: authenticate (credential, account status, plan), accept the credential
 * kind, check the scope, reserve one unit of the allowance, validate the input and the idempotency key, claim the
 * key (when the call applies a change), run, complete the key with the outcome in the change's own transaction,
 * unwrap a replay, strip the output to its schema. Errors keep their stable codes; surfaces only put them on their
 * wire (problem JSON; JSON-RPC errors and `isError` results).
 */
export function createPipeline(deps: PipelineDependencies): Pipeline {
  const heavy = createFairShare();
  // Every refusal before execution passes through here once, whichever step refused: the operator's count of them.
  const countRefusal = (surface: SurfaceProfile, error: unknown): void => {
    if (error instanceof KgateError) deps.metrics?.countRefusal(surface.name, error.code);
  };
  return {
    async authenticate(surface, authorization) {
      try {
        return await authenticate(deps, surface, authorization);
      } catch (error) {
        countRefusal(surface, error);
        throw error;
      }
    },
    async authenticateSession(surface, sessionSecret) {
      try {
        return await authenticateSession(deps, surface, sessionSecret);
      } catch (error) {
        countRefusal(surface, error);
        throw error;
      }
    },
    async admit(surface, principal, scope) {
      try {
        return await admit(deps.usage, surface, principal, scope);
      } catch (error) {
        countRefusal(surface, error);
        throw error;
      }
    },
    async invoke(call) {
      const { surface, principal, operation } = call;
      let reservation: Reservation | undefined;
      let runtimeReservation: RuntimeReservation | undefined;
      try {
        assertCredentialAccepted(operation, principal);
        reservation = await admit(deps.usage, surface, principal, operation.scope);
        // The Product Runtime meters the product organization's month instead of an account's allowance.
        if (surface.runtimeMeter && principal.runtime) runtimeReservation = await deps.services.runtime.reserve(principal.runtime);
      } catch (error) {
        countRefusal(surface, error);
        if (error instanceof KgateError) return { ok: false, error, admitted: false, replayed: false, reservation };
        throw error;
      }
      const metered = runtimeReservation ? { runtimeReservation } : {};
      const run = async (): Promise<Pending> => {
        const input = validateInput(surface, operation, await Promise.resolve(call.readInput()));
        // Only an operation that can apply a change takes a key; a read ignores one (REST) or refuses it as an argument.
        const key = operation.idempotency === 'none' ? undefined : validateKey(surface, call.idempotencyKey);
        const ctx: OperationContext = {
          principal,
          services: deps.services,
          noteChanges: surface.noteChanges,
          ...(call.runtime ? { runtime: call.runtime } : {}),
        };
        if (operation.idempotency === 'metered') {
          // The models ledger keeps the request under its key, outside any transaction (models/runner.ts).
          if (key === undefined) throw new KgateError('idempotency_key_required', surface.words.missingKey);
          const value = present(operation, await operation.run({ ...ctx, idempotencyKey: key }, input));
          return () => Promise.resolve({ replayed: false, value });
        }
        return execute(deps, ctx, call, input, key);
      };
      try {
        // Heavy calls (validation of many notes, plans, diffs) take turns on the request thread (fair-share.ts).
        const pending = await (operation.cost === 'heavy' ? heavy.run(run) : run());
        const outcome = await pending();
        return { ok: true as const, output: unwrap(operation, outcome), replayed: outcome.replayed, reservation, ...metered };
      } catch (error) {
        if (error instanceof KgateError) return { ok: false, error, admitted: true, replayed: error instanceof ReplayedError, reservation, ...metered };
        throw error;
      }
    },
  };
}
