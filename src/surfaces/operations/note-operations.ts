import { z } from 'zod';
import {
  ContentHashSchema,
  MAX_INVENTORY_PAGE,
  MAX_TRANSACTION_ACTIONS,
  MAX_TRASH_PAGE,
  NoteActionSchema,
  TransactionResultSchema,
  type NoteAction,
} from '../../domains/notes/index.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { NoteOut, NoteSummaryOut, TrashEntryOut, presentNote, presentSummary, presentTrash } from './presenters.ts';

/** The mapping a vault operation works on: an opaque UUID returned by discovery, never a credential by itself. */
export const MappingIdSchema = z.uuid().describe('The hosted mapping (UUID) to work on');
const PathSchema = z.string().min(1).describe('Vault-relative path ending in .md');
const DryRunSchema = z
  .boolean()
  .default(true)
  .describe('true (default): preview only. false: apply, which needs an Idempotency-Key');
const CursorSchema = z.string().max(2048).optional().describe('The nextCursor of the previous page');

function transaction(ctx: OperationContext, mappingId: string, dryRun: boolean, actions: NoteAction[]) {
  return ctx.services.notes.runTransaction({
    actor: ctx.principal.actor,
    mappingId,
    dryRun,
    actions,
    ...(ctx.idempotency ? { idempotency: ctx.idempotency } : {}),
  });
}

const WRITE_ERRORS = [
  'invalid_request',
  'invalid_path',
  'payload_too_large',
  'not_found',
  'forbidden',
  'mapping_read_only',
  'device_encrypted',
  'conflict',
  'stale_revision',
  'precondition_required',
  'idempotency_key_required',
  'idempotency_key_reused',
  'idempotency_key_in_flight',
] as const;

/** Bounded inventory of a hosted vault. */
export const listNotes = defineOperation({
  id: 'listNotes',
  summary: 'List notes',
  description: `Lists the notes of a hosted vault in byte order of path, at most ${MAX_INVENTORY_PAGE} per page, with a cursor when there are more.`,
  tags: ['notes'],
  effect: 'read',
  input: z.object({
    mappingId: MappingIdSchema,
    cursor: CursorSchema,
    limit: z.number().int().min(1).max(MAX_INVENTORY_PAGE).optional().describe(`Page size, at most ${MAX_INVENTORY_PAGE}`),
  }),
  output: z.object({
    notes: z.array(NoteSummaryOut),
    nextCursor: z.string().nullable(),
    truncated: z.boolean().describe('True when more notes follow; fetch them with nextCursor'),
  }),
  errors: ['invalid_request', 'not_found'],
  async run(ctx, input) {
    const page = await ctx.services.notes.listNotes(ctx.principal.actor, input.mappingId, {
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    });
    return { notes: page.items.map(presentSummary), nextCursor: page.nextCursor, truncated: page.nextCursor !== null };
  },
});

/** One note with its content and revision. */
export const readNote = defineOperation({
  id: 'readNote',
  summary: 'Read a note',
  description: 'Returns the content, content hash and revision of one note.',
  tags: ['notes'],
  effect: 'read',
  input: z.object({ mappingId: MappingIdSchema, path: PathSchema }),
  output: NoteOut,
  errors: ['invalid_request', 'invalid_path', 'not_found', 'device_encrypted'],
  async run(ctx, input) {
    return presentNote(await ctx.services.notes.readNote(ctx.principal.actor, input.mappingId, input.path));
  },
});

/** Create or replace one note: a preview with a diff by default. */
export const writeNote = defineOperation({
  id: 'writeNote',
  summary: 'Write a note (preview or apply)',
  description:
    'Creates or replaces one note. By default only previews: the result shows the unified diff and beforeRevision. ' +
    'Applying needs dryRun false, an Idempotency-Key header and, for an existing note, its current hash as ' +
    'expectedHash or If-Match. A stale hash is rejected with 412 and never overwrites.',
  tags: ['notes'],
  effect: 'write',
  input: z.object({
    mappingId: MappingIdSchema,
    path: PathSchema,
    content: z.string().describe('The whole new Markdown content'),
    dryRun: DryRunSchema,
    expectedHash: ContentHashSchema.optional(),
  }),
  output: TransactionResultSchema,
  errors: WRITE_ERRORS,
  run: (ctx, input) =>
    transaction(ctx, input.mappingId, input.dryRun, [
      { type: 'write-note', path: input.path, content: input.content, ...(input.expectedHash ? { expectedHash: input.expectedHash } : {}) },
    ]),
});

/** Move one note to the trash: a preview by default. */
export const deleteNote = defineOperation({
  id: 'deleteNote',
  summary: 'Delete a note (preview or apply)',
  description:
    'Moves one note to the recoverable trash. By default only previews. Applying needs dryRun false, an ' +
    'Idempotency-Key header and the current revision as If-Match; the trash entry is written before the live note is removed.',
  tags: ['notes'],
  effect: 'write',
  input: z.object({ mappingId: MappingIdSchema, path: PathSchema, dryRun: DryRunSchema, expectedHash: ContentHashSchema.optional() }),
  output: TransactionResultSchema,
  errors: WRITE_ERRORS,
  run: (ctx, input) =>
    transaction(ctx, input.mappingId, input.dryRun, [
      { type: 'delete-note', path: input.path, ...(input.expectedHash ? { expectedHash: input.expectedHash } : {}) },
    ]),
});

/** Atomic multi-note transaction. */
export const runNoteTransaction = defineOperation({
  id: 'runNoteTransaction',
  summary: 'Preview or apply a note transaction',
  description:
    `Up to ${MAX_TRANSACTION_ACTIONS} actions (write-note, delete-note, restore-note, move-note), previewed or applied ` +
    'atomically: either every action commits or none does. A move-note moves or renames a note; with rewriteLinks it ' +
    'also rewrites the links of other notes that point to it, each listed after the actions as a rewrite-links entry. ' +
    'One action per path (a move touches both of its paths).',
  tags: ['transactions'],
  effect: 'write',
  input: z.object({
    mappingId: MappingIdSchema,
    dryRun: DryRunSchema,
    actions: z.array(NoteActionSchema).min(1).max(MAX_TRANSACTION_ACTIONS),
  }),
  output: TransactionResultSchema,
  errors: WRITE_ERRORS,
  run: (ctx, input) => transaction(ctx, input.mappingId, input.dryRun, input.actions),
});

/** Content-free trash listing. */
export const listTrash = defineOperation({
  id: 'listTrash',
  summary: 'List trashed notes',
  description: 'Lists restorable trash entries of a hosted vault, newest first, without content.',
  tags: ['notes'],
  effect: 'read',
  input: z.object({
    mappingId: MappingIdSchema,
    cursor: CursorSchema,
    limit: z.number().int().min(1).max(MAX_TRASH_PAGE).optional(),
  }),
  output: z.object({ entries: z.array(TrashEntryOut), nextCursor: z.string().nullable(), truncated: z.boolean() }),
  errors: ['invalid_request', 'not_found'],
  async run(ctx, input) {
    const page = await ctx.services.notes.listTrash(ctx.principal.actor, input.mappingId, {
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    });
    return { entries: page.items.map(presentTrash), nextCursor: page.nextCursor, truncated: page.nextCursor !== null };
  },
});
