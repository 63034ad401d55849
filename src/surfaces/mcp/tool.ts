import type { z } from 'zod';
import type { IdempotencyService } from '../../domains/idempotency/index.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import type { OperationServices } from '../operations/operation.ts';

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
  /** Runs with arguments already validated against `input`. */
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

