import { KgateError } from '../../kernel/errors.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import type { SurfaceProfile } from '../invocation/surface.ts';
import { JSONRPC, JsonRpcError, PreserializedResult } from './json-rpc.ts';
import type { ToolCatalogue, ToolOperation } from './tool-list.ts';

/** What a tools/call runs with. */
export interface ToolCallContext {
  pipeline: Pipeline;
  principal: AuthenticatedPrincipal;
  tools: ToolCatalogue;
  /** The surface the endpoint is: the MCP gateway, or the product-only endpoint. */
  surface: SurfaceProfile;
}

/** A tool failure as MCP carries it: `isError` with the stable code, message and details in structuredContent. */
export function toolError(error: KgateError) {
  const structured = { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], structuredContent: structured, isError: true };
}

// The results of frozen outputs (an answer presented once, such as a cached note or search page), serialized once.
const serializedResults = new WeakMap<object, PreserializedResult>();

/** A tool result; that of a frozen output is serialized once and spliced into every reply that carries it. */
export function toolResult(structured: Record<string, unknown>) {
  const result = () => ({ content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured });
  if (!Object.isFrozen(structured)) return result();
  let serialized = serializedResults.get(structured);
  if (serialized === undefined) {
    serialized = new PreserializedResult(JSON.stringify(result()));
    serializedResults.set(structured, serialized);
  }
  return serialized;
}

/** The arguments for the operation, and the idempotency key where the tool takes it as an argument. */
function splitArguments(operation: ToolOperation, args: unknown): { input: unknown; key: unknown } {
  if (!operation.mcp.idempotencyKey || !args || typeof args !== 'object' || Array.isArray(args)) return { input: args, key: undefined };
  const { idempotencyKey, ...input } = args as Record<string, unknown>;
  return { input, key: idempotencyKey };
}

/**
 * tools/call: finds the tool, and runs its operation through the invocation pipeline. A refusal before execution
 * (scope, rate or monthly limit) is thrown as the KgateError it is, for the transport to answer at the protocol
 * level; every failure after admission, argument validation included (spec 7.3), is an `isError` result a model can
 * read and act on.
 */
export async function callTool(params: Record<string, unknown>, ctx: ToolCallContext) {
  const name = params.name;
  if (typeof name !== 'string') {
    await ctx.pipeline.admit(ctx.surface, ctx.principal);
    throw new JsonRpcError(JSONRPC.invalidParams, 'tools/call needs the name of a tool, as a string.');
  }
  const operation = ctx.tools.named(name);
  if (!operation) {
    // A tool result, not a protocol error, so that the model reads the list and corrects itself. The 2025-11-25
    // spec lists unknown tools under protocol errors, but the official conformance suite (tools-call-error) and
    // SEP-1303's aim (errors a model can act on) want isError; docs/mcp.md records the decision.
    await ctx.pipeline.admit(ctx.surface, ctx.principal);
    return toolError(new KgateError('not_found', `Unknown tool: ${name}. Available tools: ${ctx.tools.names.join(', ')}.`));
  }
  const { input, key } = splitArguments(operation, params.arguments ?? {});
  const invocation = await ctx.pipeline.invoke({
    surface: ctx.surface,
    principal: ctx.principal,
    operation,
    readInput: () => input,
    idempotencyKey: { value: key, required: operation.mcp.idempotencyKey === 'required' },
  });
  if (!invocation.ok) {
    if (!invocation.admitted) throw invocation.error;
    return toolError(invocation.error);
  }
  return toolResult(invocation.replayed && operation.mcp.marksReplays ? { ...invocation.output, replayed: true } : invocation.output);
}
