import { z } from 'zod';
import { CONTENT_HASH_PATTERN } from '../../kernel/hashing.ts';

/** At most this many actions in one transaction (spec 8). */
export const MAX_TRANSACTION_ACTIONS = 100;
/** A preview's unified diff per action is cut at this many characters and flagged `diffTruncated`. */
export const MAX_DIFF_CHARS = 64 * 1024;
/** At most this many other notes get their links rewritten by the moves of one transaction; more refuses it. */
export const MAX_LINK_REWRITE_NOTES = 1000;
/** At most this many stored links naming the moved notes' file names are read to find them; more refuses it. */
export const MAX_LINK_REWRITE_CANDIDATES = 20_000;

/** A content hash as clients send it in `expectedHash`. */
export const ContentHashSchema = z
  .string()
  .regex(CONTENT_HASH_PATTERN, 'must be "sha256:" followed by 64 lowercase hex digits')
  .describe('The current content hash of the note: `contentHash` of a read or `beforeRevision` of a preview.');

/** At most this many characters name a target's heading path, block id or frontmatter key. */
export const MAX_TARGET_CHARS = 1024;

const singleLine = (what: string) =>
  z
    .string()
    .min(1)
    .max(MAX_TARGET_CHARS)
    .refine((value) => !/[\r\n]/.test(value), `${what} is one line`);

/**
 * The part of an existing note a write replaces (docs/api.md#section-level-writes); the write's `content` is then the
 * new content of that part, not the whole note.
 */
export const NoteTargetSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('heading'),
    heading: singleLine('A heading path').describe('The heading\'s text, after its parents if needed: "Parent > Child"'),
    mode: z
      .enum(['replace', 'append'])
      .describe('replace: the body under the heading and its subheadings (the heading line stays); append: after the last non-blank line of its section'),
  }),
  z.strictObject({
    type: z.literal('block'),
    blockId: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,256}$/, 'letters, digits and dashes')
      .describe('The id of the paragraph or list item that ends in ^id, without the ^; the marker stays'),
  }),
  z.strictObject({
    type: z.literal('frontmatter'),
    key: singleLine('A frontmatter key').describe("A top-level frontmatter key; content is its new YAML value (added when missing)"),
  }),
]);
/** See NoteTargetSchema. */
export type NoteTarget = z.infer<typeof NoteTargetSchema>;

/** Creates or replaces a note, or (with `target`) one part of an existing note. */
export const WriteNoteActionSchema = z
  .object({
    type: z.literal('write-note'),
    path: z.string().describe('Vault-relative path ending in .md'),
    content: z.string().describe('The whole new Markdown content; with target, the new content of the target'),
    expectedHash: ContentHashSchema.optional(),
    target: NoteTargetSchema.optional().describe('Write only this part of the existing note (needs expectedHash to apply)'),
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

/** Moves or renames a note, keeping its content; optionally rewrites the links that point to it (docs/api.md). */
export const MoveNoteActionSchema = z
  .object({
    type: z.literal('move-note'),
    path: z.string().describe("The note's current path"),
    newPath: z.string().describe('Its new vault-relative path ending in .md; a change of letter case only is a rename too'),
    expectedHash: ContentHashSchema.optional(),
    rewriteLinks: z
      .boolean()
      .default(false)
      .describe(
        'true: rewrite the links of other notes (and the relative links of the moved note) so that they resolve to the ' +
          'new path; each changed note is listed as a rewrite-links entry',
      ),
  })
  .strict();

/** One action of a note transaction (spec 2.4). */
export const NoteActionSchema = z.discriminatedUnion('type', [
  WriteNoteActionSchema,
  DeleteNoteActionSchema,
  RestoreNoteActionSchema,
  MoveNoteActionSchema,
]);
/** See NoteActionSchema. */
export type NoteAction = z.infer<typeof NoteActionSchema>;
/** See MoveNoteActionSchema. */
export type MoveNoteAction = z.infer<typeof MoveNoteActionSchema>;

/**
 * What an action does, or would do: `conflict` only appears in previews, where it explains what would fail.
 * `move` is a move-note that applies.
 */
export const ActionStatusSchema = z.enum(['create', 'update', 'delete', 'restore', 'move', 'no-op', 'conflict']);
/** See ActionStatusSchema. */
export type ActionStatus = z.infer<typeof ActionStatusSchema>;

/**
 * The result of one action, or of one note a move's link rewrite changes (`type: 'rewrite-links'`). The first
 * entries answer the actions in order; rewrite-links entries follow them.
 */
export const ActionResultSchema = z.object({
  index: z
    .number()
    .int()
    .nonnegative()
    .describe("The action's position in the request; for rewrite-links, the move-note action whose rewrite changes the note"),
  type: z
    .enum(['write-note', 'delete-note', 'restore-note', 'move-note', 'rewrite-links'])
    .describe('The action type, or rewrite-links for another note whose links a move-note rewrites'),
  path: z.string().describe('Canonical (NFC) path; for move-note, where the note is before the move'),
  newPath: z.string().optional().describe('move-note: the canonical path the note moves to'),
  status: ActionStatusSchema,
  beforeRevision: z.string().nullable().describe('Current content hash; use it as expectedHash when applying'),
  afterRevision: z.string().nullable().describe('Content hash after the action; null once deleted'),
  trashId: z.uuid().optional().describe('Delete: the trash entry written; restore: the entry restored'),
  diff: z.string().optional().describe('Unified diff of the change (previews only)'),
  diffTruncated: z.boolean().optional(),
  linksRewritten: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('rewrite-links, and move-note with rewriteLinks: how many link targets in this note are rewritten'),
  linksSkipped: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Links that should follow the move but whose syntax cannot hold the new target (e.g. '#' in a WikiLink); left as written"),
  resultContent: z
    .string()
    .optional()
    .describe('Previews of a targeted write-note: the whole note the write makes (its hash is afterRevision)'),
  problem: z
    .object({ code: z.string(), detail: z.string(), details: z.record(z.string(), z.unknown()).optional() })
    .optional()
    .describe('Why this action would fail if applied now (previews only)'),
});
/** See ActionResultSchema. */
export type ActionResult = z.infer<typeof ActionResultSchema>;

/** What a preview answers about its receipt. */
export const PreviewReceiptSchema = z.object({
  id: z.uuid().describe('The receipt of this preview; the apply that matches it names it in its events'),
  notesHash: z.string().describe('sha256 of the exact actions previewed (paths, contents, targets), in order'),
  againstHash: z.string().describe('sha256 of the revisions the actions were previewed against'),
  previewedAgainst: z
    .array(z.object({ path: z.string(), revision: z.string().nullable() }))
    .describe("Per action, the note's revision when previewed (null: no note there yet)"),
});
/** See PreviewReceiptSchema. */
export type PreviewReceipt = z.infer<typeof PreviewReceiptSchema>;

/** What an apply answers about the preview it matched. */
export const MatchedPreviewSchema = z
  .object({ id: z.uuid(), previewedAt: z.string().describe('When the matched preview was made (ISO 8601)') })
  .nullable()
  .describe('The preview receipt this apply matched (same credential, same actions, same revisions, within 30 minutes); null when none');
/** See MatchedPreviewSchema. */
export type MatchedPreview = z.infer<typeof MatchedPreviewSchema>;

/** The result of a previewed or applied transaction (also of single-note writes and deletes). */
export const TransactionResultSchema = z.object({
  mappingId: z.uuid(),
  dryRun: z.boolean(),
  applied: z.boolean().describe('True only when the changes were committed'),
  actions: z.array(ActionResultSchema),
  receipt: PreviewReceiptSchema.optional().describe('Previews: the receipt recorded for this preview (docs/proposals.md)'),
  previewReceipt: MatchedPreviewSchema.optional(),
});
/** See TransactionResultSchema. */
export type TransactionResult = z.infer<typeof TransactionResultSchema>;
