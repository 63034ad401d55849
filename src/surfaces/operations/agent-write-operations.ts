import { z } from 'zod';
import { ContentHashSchema, MAX_TRANSACTION_ACTIONS, NoteTargetSchema, TransactionResultSchema } from '../../domains/notes/index.ts';
import { MappingIdSchema, NotePathSchema } from './fields.ts';
import { AGENT_NOTE_CHANGE_ERRORS, asNoteTransaction, noteTransaction } from './note-transaction.ts';
import { ACCOUNT_CREDENTIALS, defineOperation, type ToolAnnotations } from './operation.ts';

// The governed write tools of spec 4.3: previews that never write, and applies of exactly what a human approved.

const TargetField = NoteTargetSchema.optional().describe(
  'Write only this part of the existing note: a heading\'s section, a ^block, or a frontmatter key; content is then its new content (docs/api.md#section-level-writes)',
);
const WriteEntry = z.strictObject({ path: NotePathSchema, content: z.string(), expectedHash: ContentHashSchema.optional(), target: TargetField });
const DeletePreviewEntry = z.strictObject({ path: NotePathSchema, expectedHash: ContentHashSchema.optional() });
const DeleteEntry = z.strictObject({ path: NotePathSchema, expectedHash: ContentHashSchema });
const notesOf = <T extends z.ZodType>(entry: T) => z.array(entry).min(1).max(MAX_TRANSACTION_ACTIONS);

/** Spec 4.3 rule 1: a preview tool refuses a dryRun override, and says why instead of "unrecognized key". */
const previewInput = <S extends z.ZodRawShape>(shape: S) =>
  z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' && issue.keys.includes('dryRun') ? 'Preview tools always preview; they reject a dryRun override.' : undefined,
  });

/** What an apply answers: the transaction result, marked when it replays an earlier identical call. */
const AppliedResult = TransactionResultSchema.extend({
  replayed: z.boolean().optional().describe('True when an earlier identical call is replayed'),
});

const PREVIEW_TOOL: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const APPLY_TOOL: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const AGENT = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:write', allowance: 'operation', errors: AGENT_NOTE_CHANGE_ERRORS, cost: 'heavy' } as const;

/** Dry-runs creating or replacing notes (`preview_note_writes`). */
export const previewNoteWrites = defineOperation({
  ...AGENT,
  id: 'previewNoteWrites',
  summary: 'Preview note writes',
  description:
    'Dry-runs creating or replacing notes: per note the status, beforeRevision (the current hash to send when applying) and a ' +
    'unified diff. With a target, only that part of the note changes, and resultContent shows the whole note. Show the diff to the human and wait for approval. Always a preview: a dryRun argument is rejected.',
  tags: ['agents'],
  idempotency: 'none',
  input: previewInput({ mappingId: MappingIdSchema, notes: notesOf(WriteEntry) }),
  output: TransactionResultSchema,
  mcp: { name: 'preview_note_writes', title: 'Preview note writes', annotations: PREVIEW_TOOL },
  run: (ctx, input) => noteTransaction(ctx, input.mappingId, true, input.notes.map((n) => ({ type: 'write-note' as const, ...n }))),
});

const ApplyWritesInput = z.strictObject({ mappingId: MappingIdSchema, notes: notesOf(WriteEntry) });

/** Applies an approved batch of creations or replacements (`apply_note_writes`). */
export const applyNoteWrites = defineOperation({
  ...AGENT,
  id: 'applyNoteWrites',
  summary: 'Apply approved note writes',
  description:
    "Applies the exact notes array a human approved after preview_note_writes, atomically. Needs an idempotencyKey and, for every existing note, its current hash as expectedHash (the preview's beforeRevision). A stale hash is rejected and nothing is written.",
  tags: ['agents'],
  idempotency: 'always',
  input: ApplyWritesInput,
  output: AppliedResult,
  mcp: { name: 'apply_note_writes', title: 'Apply approved note writes', annotations: APPLY_TOOL, idempotencyKey: 'required', marksReplays: true },
  ...asNoteTransaction((input: z.output<typeof ApplyWritesInput>) => ({
    mappingId: input.mappingId,
    dryRun: false,
    actions: input.notes.map((n) => ({ type: 'write-note' as const, ...n })),
  })),
});

/** Dry-runs moving notes to the trash (`preview_note_deletions`). */
export const previewNoteDeletions = defineOperation({
  ...AGENT,
  id: 'previewNoteDeletions',
  summary: 'Preview note deletions',
  description:
    'Dry-runs moving notes to the recoverable trash: per note the status, beforeRevision and the diff. Always a preview: a dryRun argument is rejected.',
  tags: ['agents'],
  idempotency: 'none',
  input: previewInput({ mappingId: MappingIdSchema, notes: notesOf(DeletePreviewEntry) }),
  output: TransactionResultSchema,
  mcp: { name: 'preview_note_deletions', title: 'Preview note deletions', annotations: PREVIEW_TOOL },
  run: (ctx, input) => noteTransaction(ctx, input.mappingId, true, input.notes.map((n) => ({ type: 'delete-note' as const, ...n }))),
});

const ApplyDeletionsInput = z.strictObject({ mappingId: MappingIdSchema, notes: notesOf(DeleteEntry) });

/** Moves an approved batch of notes to the trash (`apply_note_deletions`). */
export const applyNoteDeletions = defineOperation({
  ...AGENT,
  id: 'applyNoteDeletions',
  summary: 'Apply approved note deletions',
  description:
    'Moves the exact approved notes to the recoverable trash, atomically. Each entry needs path and its current expectedHash; needs an idempotencyKey.',
  tags: ['agents'],
  idempotency: 'always',
  input: ApplyDeletionsInput,
  output: AppliedResult,
  mcp: { name: 'apply_note_deletions', title: 'Apply approved note deletions', annotations: APPLY_TOOL, idempotencyKey: 'required', marksReplays: true },
  ...asNoteTransaction((input: z.output<typeof ApplyDeletionsInput>) => ({
    mappingId: input.mappingId,
    dryRun: false,
    actions: input.notes.map((n) => ({ type: 'delete-note' as const, ...n })),
  })),
});

/** Creates a note, or appends to it on a new line (`create_or_append_note`). */
export const createOrAppendNote = defineOperation({
  ...AGENT,
  id: 'createOrAppendNote',
  summary: 'Create or append to a note',
  description:
    'Creates the note, or appends the content to it on a new line when it exists; with a target, writes the content to that part of the existing note (e.g. a heading with mode append). A preview by default (dryRun true); applying needs dryRun false, an idempotencyKey and, for an existing note, its current hash as expectedHash.',
  tags: ['agents'],
  idempotency: 'when-applying',
  input: z.strictObject({
    mappingId: MappingIdSchema,
    path: NotePathSchema,
    content: z.string().describe('The new note, or the text to append'),
    dryRun: z.boolean().default(true).describe('true (default): preview only. false: apply, which needs idempotencyKey'),
    expectedHash: ContentHashSchema.optional(),
    target: TargetField,
  }),
  output: AppliedResult,
  mcp: {
    name: 'create_or_append_note',
    title: 'Create or append to a note',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    idempotencyKey: 'optional',
    marksReplays: true,
  },
  stage: (ctx, input, claim) =>
    input.dryRun
      ? Promise.resolve(undefined)
      : ctx.services.notes.stageCreateOrAppend({
          actor: ctx.principal.actor,
          mappingId: input.mappingId,
          path: input.path,
          addition: input.content,
          capability: ctx.noteChanges,
          ...(input.expectedHash ? { expectedHash: input.expectedHash } : {}),
          ...(input.target ? { target: input.target } : {}),
          ...claim,
        }),
  run: (ctx, input) =>
    ctx.services.notes.createOrAppend({
      actor: ctx.principal.actor,
      mappingId: input.mappingId,
      dryRun: input.dryRun,
      path: input.path,
      addition: input.content,
      capability: ctx.noteChanges,
      ...(input.expectedHash ? { expectedHash: input.expectedHash } : {}),
      ...(input.target ? { target: input.target } : {}),
      ...(ctx.commit ? { commit: ctx.commit } : {}),
    }),
});
