import type { z } from 'zod';
import type { IdempotencyService } from '../../domains/idempotency/index.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import type { Operation, OperationServices } from '../operations/operation.ts';

/** What a tool runs with. */
export interface ToolContext {
  principal: AuthenticatedPrincipal;
  services: OperationServices & { vaults: VaultsService; idempotency: IdempotencyService };
}

/** MCP tool annotations (hints for clients; authority is always checked by the server). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One MCP tool: listed by tools/list with schemas generated from `input` and `output`, run by tools/call. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  /** The OAuth scope a token needs to call it (spec 5): reading tools `mcp:read`, previews and writes `mcp:write`. */
  scope: 'mcp:read' | 'mcp:write';
  /** Runs with arguments already validated against `input`. */
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}


/** Annotations of a tool that only reads. */
export const READ_ONLY_TOOL: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * A read operation published as an MCP tool: the same input (strict: unknown arguments are refused) and output,
 * the operation's description followed by advice for models.
 */
export function readOperationTool<I extends z.ZodObject, O extends z.ZodObject>(
  operation: Operation<I, O>,
  tool: { name: string; title: string; advice: string },
): McpTool {
  return {
    name: tool.name,
    title: tool.title,
    description: `${operation.description} ${tool.advice}`,
    input: operation.input.strict(),
    output: operation.output,
    annotations: READ_ONLY_TOOL,
    scope: 'mcp:read',
    async run(ctx, args) {
      return (await operation.run(ctx, args as z.output<I>));
    },
  };
}
