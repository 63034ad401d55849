import { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';
import { IdempotencyKeySchema } from '../../domains/idempotency/index.ts';
import { ContentHashSchema, MAX_TRANSACTION_ACTIONS, TransactionResultSchema, type NoteAction } from '../../domains/notes/index.ts';
import { MappingIdSchema } from '../operations/note-operations.ts';
import { defineOperation, type Operation, type OperationContext } from '../operations/operation.ts';
import { runOperation } from '../operations/run-operation.ts';
import type { McpTool, ToolAnnotations, ToolContext } from './tool.ts';

const WriteEntry = z
  .object({ path: z.string().min(1), content: z.string(), expectedHash: ContentHashSchema.optional() })
  .strict();
const DeletePreviewEntry = z.object({ path: z.string().min(1), expectedHash: ContentHashSchema.optional() }).strict();
const DeleteEntry = z.object({ path: z.string().min(1), expectedHash: ContentHashSchema }).strict();
const notes = <T extends z.ZodType>(entry: T) => z.array(entry).min(1).max(MAX_TRANSACTION_ACTIONS);
const IdempotencyKey = IdempotencyKeySchema.describe('A new key per approved change; retrying with the same key replays the result');

function run(ctx: OperationContext, mappingId: string, dryRun: boolean, actions: NoteAction[]) {
  return ctx.services.notes.runTransaction({
    actor: ctx.principal.actor,
    mappingId,
    dryRun,
    actions,
    surface: 'mcp',
    ...(ctx.idempotency ? { idempotency: ctx.idempotency } : {}),
  });
}

// Applying goes through the same idempotency runner as REST: the transaction stores its result under the key.
const applyWritesOperation = defineOperation({
  id: 'mcp.apply_note_writes',
  summary: 'Apply approved note writes',
  description: '',
  tags: ['mcp'],
  effect: 'write',
  input: z.object({ mappingId: MappingIdSchema, dryRun: z.literal(false), notes: notes(WriteEntry) }),
  output: TransactionResultSchema,
  errors: [],
  run: (ctx, input) => run(ctx, input.mappingId, false, input.notes.map((n) => ({ type: 'write-note' as const, ...n }))),
});

const applyDeletionsOperation = defineOperation({
  id: 'mcp.apply_note_deletions',
  summary: 'Apply approved note deletions',
  description: '',
  tags: ['mcp'],
  effect: 'write',
  input: z.object({ mappingId: MappingIdSchema, dryRun: z.literal(false), notes: notes(DeleteEntry) }),
  output: TransactionResultSchema,
  errors: [],
  run: (ctx, input) => run(ctx, input.mappingId, false, input.notes.map((n) => ({ type: 'delete-note' as const, ...n }))),
});

const createOrAppendOperation = defineOperation({
  id: 'mcp.create_or_append_note',
  summary: 'Create or append to a note',
  description: '',
  tags: ['mcp'],
  effect: 'write',
  input: z.object({
    mappingId: MappingIdSchema,
    path: z.string().min(1),
    content: z.string(),
    dryRun: z.boolean().default(true),
    expectedHash: ContentHashSchema.optional(),
  }),
  output: TransactionResultSchema,
  errors: [],
  run: (ctx, input) =>
    ctx.services.notes.createOrAppend({
      actor: ctx.principal.actor,
      mappingId: input.mappingId,
      dryRun: input.dryRun,
      path: input.path,
      addition: input.content,
      surface: 'mcp',
      ...(input.expectedHash ? { expectedHash: input.expectedHash } : {}),
      ...(ctx.idempotency ? { idempotency: ctx.idempotency } : {}),
    }),
});

const PREVIEW: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

async function applyWithKey(
  ctx: ToolContext,
  operation: Operation,
  input: Record<string, unknown>,
  key: string | undefined,
): Promise<Record<string, unknown>> {
  // The tool's schema validated the arguments; the operation's schema gives them their final shape (defaults).
  const outcome = await runOperation(operation, ctx, operation.input.parse(input), { service: ctx.services.idempotency, key });
  if (!outcome.replayed) return outcome.output as Record<string, unknown>;
  if (outcome.outcome.kind === 'error') throw new KgateError(outcome.outcome.code, outcome.outcome.message, outcome.outcome.details);
  return { ...(outcome.outcome.value as Record<string, unknown>), replayed: true };
}

const Result = TransactionResultSchema.extend({ replayed: z.boolean().optional().describe('True when an earlier identical call is replayed') });

/** The governed write tools (spec 4.3). */
export const WRITE_TOOLS: readonly McpTool[] = [
  {
    name: 'preview_note_writes',
    title: 'Preview note writes',
    description:
      'Dry-runs creating or replacing notes: per note the status, beforeRevision (the current hash to send when applying) and a unified diff. Show the diff to the human and wait for approval. Always a preview: a dryRun argument is rejected.',
    input: z.object({ mappingId: MappingIdSchema, notes: notes(WriteEntry) }),
    output: TransactionResultSchema,
    annotations: PREVIEW,
    scope: 'mcp:write',
    async run(ctx, args) {
      const input = args as { mappingId: string; notes: z.output<typeof WriteEntry>[] };
      return run(ctx, input.mappingId, true, input.notes.map((n) => ({ type: 'write-note' as const, ...n })));
    },
  },
  {
    name: 'apply_note_writes',
    title: 'Apply approved note writes',
    description:
      'Applies the exact notes array a human approved after preview_note_writes, atomically. Needs an idempotencyKey and, for every existing note, its current hash as expectedHash (the preview\'s beforeRevision). A stale hash is rejected and nothing is written.',
    input: z.object({ mappingId: MappingIdSchema, notes: notes(WriteEntry), idempotencyKey: IdempotencyKey }).strict(),
    output: Result,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:write',
    run: (ctx, args) => {
      const { idempotencyKey, ...input } = args as { idempotencyKey: string };
      return applyWithKey(ctx, applyWritesOperation, { ...input, dryRun: false }, idempotencyKey);
    },
  },
  {
    name: 'preview_note_deletions',
    title: 'Preview note deletions',
    description: 'Dry-runs moving notes to the recoverable trash: per note the status, beforeRevision and the diff. Always a preview: a dryRun argument is rejected.',
    input: z.object({ mappingId: MappingIdSchema, notes: notes(DeletePreviewEntry) }),
    output: TransactionResultSchema,
    annotations: PREVIEW,
    scope: 'mcp:write',
    async run(ctx, args) {
      const input = args as { mappingId: string; notes: z.output<typeof DeletePreviewEntry>[] };
      return run(ctx, input.mappingId, true, input.notes.map((n) => ({ type: 'delete-note' as const, ...n })));
    },
  },
  {
    name: 'apply_note_deletions',
    title: 'Apply approved note deletions',
    description: 'Moves the exact approved notes to the recoverable trash, atomically. Each entry needs path and its current expectedHash; needs an idempotencyKey.',
    input: z.object({ mappingId: MappingIdSchema, notes: notes(DeleteEntry), idempotencyKey: IdempotencyKey }).strict(),
    output: Result,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:write',
    run: (ctx, args) => {
      const { idempotencyKey, ...input } = args as { idempotencyKey: string };
      return applyWithKey(ctx, applyDeletionsOperation, { ...input, dryRun: false }, idempotencyKey);
    },
  },
  {
    name: 'create_or_append_note',
    title: 'Create or append to a note',
    description:
      'Creates the note, or appends the content to it on a new line when it exists. A preview by default (dryRun true); applying needs dryRun false, an idempotencyKey and, for an existing note, its current hash as expectedHash.',
    input: createOrAppendOperation.input.extend({ idempotencyKey: IdempotencyKey.optional() }).strict(),
    output: Result,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'mcp:write',
    run: (ctx, args) => {
      const { idempotencyKey, ...input } = args as { idempotencyKey?: string; dryRun: boolean };
      return applyWithKey(ctx, createOrAppendOperation, input, idempotencyKey);
    },
  },
];

/** Preview tools reject a dryRun override (spec 4.3 rule 1), before schema validation so the message says why. */
export const PREVIEW_TOOL_NAMES: ReadonlySet<string> = new Set(['preview_note_writes', 'preview_note_deletions']);
