import type { z } from 'zod';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import type { GraphService } from '../../domains/graph/index.ts';
import type { NotesService } from '../../domains/notes/index.ts';
import type { ProvenanceService } from '../../domains/provenance/index.ts';
import type { SearchService } from '../../domains/search/index.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { IdempotencyClaim } from '../../domains/idempotency/index.ts';

/** The domain services operations call. */
export interface OperationServices {
  notes: NotesService;
  provenance: ProvenanceService;
  search: SearchService;
  graph: GraphService;
}

/** Everything an operation runs with besides its input. */
export interface OperationContext {
  principal: AuthenticatedPrincipal;
  services: OperationServices;
  /** Present when the request applies a change under an idempotency key; domains complete it in their transaction. */
  idempotency?: IdempotencyClaim;
}

/**
 * One operation, defined once: its id, input and output schemas, what it does to data, the error codes it can
 * answer, and the domain call. The REST routes, the OpenAPI document and MCP tool definitions are all generated
 * from this, so what is published is what is enforced (DESIGN.md principle 5).
 */
export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** Stable id, also the OpenAPI operationId. */
  id: string;
  summary: string;
  description: string;
  tags: readonly string[];
  input: I;
  output: O;
  /** `read` never changes data; `write` previews by default and applies only with `dryRun: false`. */
  effect: 'read' | 'write';
  /** Error codes this operation itself can answer (authentication, plan and limit errors are added by surfaces). */
  errors: readonly ErrorCode[];
  run(ctx: OperationContext, input: z.output<I>): Promise<z.input<O>>;
}

/** Declares an operation with full type inference of its input and output. */
export function defineOperation<I extends z.ZodObject, O extends z.ZodType>(operation: Operation<I, O>): Operation<I, O> {
  return operation;
}

/** True when a write operation's input asks to apply (not just preview). */
export function applies(operation: Operation, input: Record<string, unknown>): boolean {
  return operation.effect === 'write' && input.dryRun === false;
}
