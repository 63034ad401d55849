import type { Context, Handler } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import type { RuntimePrincipal } from '../../domains/runtime/index.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { HttpEnv } from '../http/context.ts';
import type { Invocation, Pipeline } from '../invocation/pipeline.ts';
import { PRODUCT_SURFACE } from '../invocation/surface.ts';
import type { OperationServices, RuntimeCallContext } from '../operations/operation.ts';
import { authenticateProduct, type ProductAuthenticators } from './auth.ts';
import { bindProductInput, jsonBodyOf, refuseClaimedAuthority } from './bind.ts';
import { operationReceipt, sendEnvelope, sendProblem, type Receipt } from './envelope.ts';
import { pathParams, type ProductRoute } from './routes.ts';

/** What a product route runs on. */
export interface ProductHandlerDependencies extends ProductAuthenticators {
  pipeline: Pipeline;
  runtime: OperationServices['runtime'];
}

/**
 * Aborted when the client's connection closes before its answer was sent: a metered call aborts its model request
 * with it (spec 4.7: a client disconnect cancels the upstream request).
 */
export function clientSignalOf(c: Context<HttpEnv>): AbortSignal {
  const incoming = c.env?.incoming;
  const outgoing = c.env?.outgoing;
  const controller = new AbortController();
  if (!incoming || !outgoing) return c.req.raw.signal ?? controller.signal;
  // 'close' of the response fires when it ended or when the connection was lost before that: only the second aborts.
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller.signal;
}

/** Link 9: the token carries the credential scope the call needs. */
export function requireScope(principal: RuntimePrincipal, scope: string | undefined): void {
  if (scope && !(principal.scopes as readonly string[]).includes(scope)) {
    throw new KgateError('insufficient_scope', `This operation needs the ${scope} scope, which the access token does not carry.`, { scope });
  }
}

/**
 * The handler of one Product Runtime route: the wire around the invocation pipeline. In the chain's order
 * (docs/runtime.md): authenticate (links 1 to 8), refuse a claimed audience, brand or grant, the credential scope
 * (9), the workspace, vault and context scope the route names (10 to 12); then the pipeline reserves the
 * organization's operation (13), validates, runs, and the answer is a V1 envelope with the call's receipt.
 * Nothing before the reservation consumes anything.
 */
export function productHandler(route: ProductRoute, deps: ProductHandlerDependencies): Handler<HttpEnv> {
  return async (c) => {
    const prepared = await prepareProductCall(c, route, deps);
    const invocation = await invokeProductCall(c, route, deps, prepared);
    return sendOutcome(c, route, invocation, prepared.call);
  };
}

/** A product call authorized and resolved (links 1 to 12), ready for the pipeline. */
export interface PreparedProductCall {
  principal: AuthenticatedPrincipal;
  call: RuntimeCallContext;
  body: Record<string, unknown> | undefined;
}

/** The steps of the chain before the pipeline: nothing here consumes anything (see productHandler). */
export async function prepareProductCall(c: Context<HttpEnv>, route: ProductRoute, deps: ProductHandlerDependencies): Promise<PreparedProductCall> {
  const { binding, operation } = route;
  // A route that names a workspace but no vault (getWorkspace) checks link 10 itself, before the reservation too.
  const workspaceOnly = !binding.vault && pathParams(binding.path).includes('workspaceId');
  const principal = await authenticateProduct(deps, c.req.header('authorization'));
  c.set('principal', principal);
  const runtime = principal.runtime!;
  const body = binding.method === 'POST' ? jsonBodyOf(c) : undefined;
  refuseClaimedAuthority(c, body);
  const applies = operation.idempotency === 'always' || (operation.idempotency === 'when-applying' && body?.dryRun === false);
  requireScope(runtime, binding.needs);
  if (applies) requireScope(runtime, binding.applyNeeds);
  const access = applies && binding.applyNeeds ? 'publish' : 'read';
  const call: RuntimeCallContext = { principal: runtime, requestId: c.get('requestId') ?? '', signal: clientSignalOf(c), receipts: [] };
  if (binding.vault) call.vault = await deps.runtime.resolveVault(runtime, c.req.param('workspaceId') ?? '', c.req.param('vaultId') ?? '', access);
  else if (workspaceOnly) await deps.runtime.requireWorkspace(runtime, c.req.param('workspaceId') ?? '');
  if (binding.scope) {
    call.scope = await deps.runtime.resolveScope(runtime, c.req.param('scopeId') ?? '', access);
    call.vault = call.scope.vault;
  }
  return { principal, call, body };
}

/** Link 13 on: the pipeline reserves the operation, validates the input and runs it with the prepared call. */
export function invokeProductCall(c: Context<HttpEnv>, route: ProductRoute, deps: ProductHandlerDependencies, prepared: PreparedProductCall): Promise<Invocation> {
  const { binding, operation } = route;
  const { call } = prepared;
  return deps.pipeline.invoke({
    surface: PRODUCT_SURFACE,
    principal: prepared.principal,
    operation,
    readInput: () => bindProductInput(c, route, prepared.body, binding.vault ? call.vault!.mappingId : undefined),
    idempotencyKey: { value: c.req.header('idempotency-key'), required: false },
    runtime: call,
  });
}

/** The receipts of an outcome: the operation receipt, then what the operation added (usage, safety). */
export function outcomeReceipts(c: Context<HttpEnv>, invocation: Invocation, call: RuntimeCallContext): Receipt[] {
  return [...(invocation.runtimeReservation ? [operationReceipt(c.get('requestId') ?? '', invocation.runtimeReservation)] : []), ...(call.receipts ?? [])];
}

/** An outcome as its V1 envelope on the wire. */
export function sendOutcome(c: Context<HttpEnv>, route: ProductRoute, invocation: Invocation, call: RuntimeCallContext): Response {
  const { binding } = route;
  const receipts = outcomeReceipts(c, invocation, call);
  // A metered call's ledger replays it, not the idempotency store: its usage receipt says so.
  if (invocation.replayed || call.receipts?.some((receipt) => receipt.replayed === true)) c.header('Idempotent-Replayed', 'true');
  if (!invocation.ok) {
    const { error } = invocation;
    // A capability that is not here is an answer, not a failure (DESIGN.md principle 4).
    if (error.code === 'unavailable') {
      return sendEnvelope(c, { kind: binding.kind, status: 'unavailable', data: null, receipts, problems: [{ code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }] });
    }
    return sendProblem(c, error, receipts);
  }
  return sendEnvelope(c, { kind: binding.kind, status: 'ok', data: invocation.output, receipts, problems: [] });
}
