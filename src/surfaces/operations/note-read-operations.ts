import { z } from 'zod';
import { MAX_INVENTORY_PAGE, MAX_TRASH_PAGE, type Note } from '../../domains/notes/index.ts';
import { CursorSchema, MappingIdSchema, NotePathSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, RUNTIME_CREDENTIALS, defineOperation } from './operation.ts';
import { NoteOut, NoteSummaryOut, TrashEntryOut, presentNote, presentOnce, presentSummary, presentTrash } from './presenters.ts';

/** Most characters of content get_note_content returns unless asked for fewer. */
export const MAX_NOTE_CONTENT_CHARS = 200_000;

const READ = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:read', allowance: 'operation', idempotency: 'none' } as const;
/** Reads that the Product Runtime also serves on its hosted vault routes, for a product's service principal. */
const PRODUCT_READ = { ...READ, credentials: [...ACCOUNT_CREDENTIALS, ...RUNTIME_CREDENTIALS] } as const;
/** Where the Product Runtime's hosted vault routes live (spec 4.7). */
const VAULT_ROUTES = '/workspaces/{workspaceId}/vaults/{vaultId}';

/** Bounded inventory of a hosted vault. */
export const listNotes = defineOperation({
  ...PRODUCT_READ,
  id: 'listNotes',
  summary: 'List notes',
  description:
    `Lists the notes of a vault in byte order of path, at most ${MAX_INVENTORY_PAGE} per page, with a cursor when there ` +
    'are more; with prefix, only the notes whose path starts with it (a folder: "lessons/").',
  tags: ['notes'],
  input: z.strictObject({
    mappingId: MappingIdSchema,
    prefix: z.string().max(1024).optional().describe('Only notes whose path starts with this, e.g. a folder "lessons/"'),
    cursor: CursorSchema,
    limit: z.number().int().min(1).max(MAX_INVENTORY_PAGE).optional().describe(`Page size, at most ${MAX_INVENTORY_PAGE}`),
  }),
  output: z.object({
    notes: z.array(NoteSummaryOut),
    nextCursor: z.string().nullable(),
    truncated: z.boolean().describe('True when more notes follow; fetch them with nextCursor'),
  }),
  errors: ['invalid_request', 'not_found'],
  rest: [{ method: 'GET', path: '/notes' }],
  product: [{ method: 'GET', path: `${VAULT_ROUTES}/notes`, operationId: 'listNotes', kind: 'service.note-list', capability: 'notes.list', vault: true }],
  async run(ctx, input) {
    const page = await ctx.services.notes.listNotes(ctx.principal.actor, input.mappingId, {
      ...(input.prefix !== undefined ? { prefix: input.prefix } : {}),
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    });
    return { notes: page.items.map(presentSummary), nextCursor: page.nextCursor, truncated: page.nextCursor !== null };
  },
});

/**
 * One note with its content and revision. Spec 4.6 fixes the two-segment route; the same note at any depth is read
 * with the path in the query.
 */
export const readNote = defineOperation({
  ...PRODUCT_READ,
  id: 'readNote',
  summary: 'Read a note',
  description:
    'Returns the content, content hash and revision of one note. The revision is also the ETag; If-None-Match with ' +
    'it answers 304, and Accept: text/markdown returns the Markdown itself.',
  tags: ['notes'],
  input: z.strictObject({ mappingId: MappingIdSchema, path: NotePathSchema }),
  output: NoteOut,
  errors: ['invalid_request', 'invalid_path', 'not_found', 'device_encrypted'],
  rest: [
    { method: 'GET', path: '/notes/{category}/{filename}', notePathFromSegments: true, representation: 'note' },
    { method: 'GET', path: '/notes/by-path', operationId: 'readNoteByPath', representation: 'note' },
  ],
  product: [{ method: 'GET', path: `${VAULT_ROUTES}/notes/content`, operationId: 'readNote', kind: 'service.note', capability: 'notes.read', vault: true }],
  async run(ctx, input) {
    return presentNote(await ctx.services.notes.readNote(ctx.principal.actor, input.mappingId, input.path));
  },
});

/** get_note_content's answer. */
interface NoteContent {
  path: string;
  title: string;
  content: string;
  contentHash: string;
  revision: string;
  size: number;
  truncated: boolean;
}

const wholeNoteContents = new WeakMap<Note, NoteContent>();

/** One note for a model: bounded content, and the hash to change it with. */
export const getNoteContent = defineOperation({
  ...READ,
  id: 'getNoteContent',
  summary: 'Read a note (bounded)',
  description:
    'Reads one note: its Markdown content, contentHash (the value to send as expectedHash when changing it) and ' +
    'revision. Long content is cut at maxChars and flagged truncated.',
  tags: ['notes'],
  input: z.strictObject({
    mappingId: MappingIdSchema,
    path: NotePathSchema,
    maxChars: z.number().int().min(1).max(MAX_NOTE_CONTENT_CHARS).optional().describe(`At most ${MAX_NOTE_CONTENT_CHARS} (the default)`),
  }),
  output: z.object({
    path: z.string(),
    title: z.string(),
    content: z.string(),
    contentHash: z.string(),
    revision: z.string(),
    size: z.number().int(),
    truncated: z.boolean(),
  }),
  errors: ['invalid_request', 'invalid_path', 'not_found', 'device_encrypted'],
  mcp: { name: 'get_note_content', title: 'Read a note', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const note = await ctx.services.notes.readNote(ctx.principal.actor, input.mappingId, input.path);
    const limit = input.maxChars ?? MAX_NOTE_CONTENT_CHARS;
    const content = (n: Note, truncated: boolean): NoteContent => ({
      path: n.path,
      title: n.title,
      content: truncated ? n.content.slice(0, limit) : n.content,
      contentHash: n.contentHash,
      revision: n.revision,
      size: n.size,
      truncated,
    });
    // Whole, the answer is the same for every limit: presented once per cached note.
    if (note.content.length > limit) return content(note, true);
    return presentOnce(wholeNoteContents, note, (n) => content(n, false));
  },
});

/** Content-free trash listing. */
export const listTrash = defineOperation({
  ...PRODUCT_READ,
  id: 'listTrash',
  summary: 'List trashed notes',
  description: 'Lists restorable trash entries of a hosted vault, newest first, without content.',
  tags: ['notes'],
  input: z.strictObject({
    mappingId: MappingIdSchema,
    cursor: CursorSchema,
    limit: z.number().int().min(1).max(MAX_TRASH_PAGE).optional(),
  }),
  output: z.object({ entries: z.array(TrashEntryOut), nextCursor: z.string().nullable(), truncated: z.boolean() }),
  errors: ['invalid_request', 'not_found'],
  rest: [{ method: 'GET', path: '/notes/trash' }],
  product: [{ method: 'GET', path: `${VAULT_ROUTES}/notes/trash`, operationId: 'listTrash', kind: 'service.trash-list', capability: 'notes.trash', vault: true }],
  async run(ctx, input) {
    const page = await ctx.services.notes.listTrash(ctx.principal.actor, input.mappingId, {
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    });
    return { entries: page.items.map(presentTrash), nextCursor: page.nextCursor, truncated: page.nextCursor !== null };
  },
});
