import { z } from 'zod';
import { CONTENT_HASH_PATTERN } from '../../kernel/hashing.ts';

/** At most this many actions in one transaction (spec 8). */
export const MAX_TRANSACTION_ACTIONS = 100;
/** A preview's unified diff per action is cut at this many characters and flagged `diffTruncated`. */
export const MAX_DIFF_CHARS = 64 * 1024;

/** A content hash as clients send it in `expectedHash`. */
export const ContentHashSchema = z
  .string()
  .regex(CONTENT_HASH_PATTERN, 'must be "sha256:" followed by 64 lowercase hex digits')
  .describe('The current content hash of the note: `contentHash` of a read or `beforeRevision` of a preview.');

/** Creates or replaces a note. */
export const WriteNoteActionSchema = z
  .object({
    type: z.literal('write-note'),
    path: z.string().describe('Vault-relative path ending in .md'),
    content: z.string().describe('The whole new Markdown content'),
    expectedHash: ContentHashSchema.optional(),
  })
  .strict();

/** Moves a note to the trash. */
export const DeleteNoteActionSchema = z
  .object({
    type: z.literal('delete-note'),
    path: z.string(),
    expectedHash: ContentHashSchema.optional(),
  })
  .strict();

/** Brings a trashed note back to its original path. */
export const RestoreNoteActionSchema = z
  .object({
    type: z.literal('restore-note'),
    trashId: z.uuid().describe('The id from GET /api/dev/notes/trash'),
    path: z.string().describe("The trash entry's original path"),
  })
  .strict();

/** One action of a note transaction (spec 2.4). */
export const NoteActionSchema = z.discriminatedUnion('type', [
  WriteNoteActionSchema,
  DeleteNoteActionSchema,
  RestoreNoteActionSchema,
]);
/** See NoteActionSchema. */
export type NoteAction = z.infer<typeof NoteActionSchema>;

/** What an action does, or would do: `conflict` only appears in previews, where it explains what would fail. */
export const ActionStatusSchema = z.enum(['create', 'update', 'delete', 'restore', 'no-op', 'conflict']);
/** See ActionStatusSchema. */
export type ActionStatus = z.infer<typeof ActionStatusSchema>;

/** The result of one action. */
export const ActionResultSchema = z.object({
  index: z.number().int().nonnegative(),
  type: z.enum(['write-note', 'delete-note', 'restore-note']),
  path: z.string().describe('Canonical (NFC) path'),
  status: ActionStatusSchema,
  beforeRevision: z.string().nullable().describe('Current content hash; use it as expectedHash when applying'),
  afterRevision: z.string().nullable().describe('Content hash after the action; null once deleted'),
  trashId: z.uuid().optional().describe('Delete: the trash entry written; restore: the entry restored'),
  diff: z.string().optional().describe('Unified diff of the change (previews only)'),
  diffTruncated: z.boolean().optional(),
  problem: z
    .object({ code: z.string(), detail: z.string() })
    .optional()
    .describe('Why this action would fail if applied now (previews only)'),
});
/** See ActionResultSchema. */
export type ActionResult = z.infer<typeof ActionResultSchema>;

/** The result of a previewed or applied transaction (also of single-note writes and deletes). */
export const TransactionResultSchema = z.object({
  mappingId: z.uuid(),
  dryRun: z.boolean(),
  applied: z.boolean().describe('True only when the changes were committed'),
  actions: z.array(ActionResultSchema),
});
/** See TransactionResultSchema. */
export type TransactionResult = z.infer<typeof TransactionResultSchema>;
