import { z } from 'zod';
import { ContentHashSchema, MAX_TRANSACTION_ACTIONS, NoteActionSchema, NoteTargetSchema, TransactionResultSchema } from '../../domains/notes/index.ts';
import { DryRunSchema, MappingIdSchema, NotePathSchema } from './fields.ts';
import { NOTE_CHANGE_ERRORS, asNoteTransaction } from './note-transaction.ts';
import { ACCOUNT_CREDENTIALS, RUNTIME_CREDENTIALS, defineOperation } from './operation.ts';

// Changes over REST preview by default and apply with dryRun false; the key then comes from Idempotency-Key.
// Every change validates, plans and (previewed) diffs its notes on the request thread: heavy.
const CHANGE = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:write', allowance: 'operation', idempotency: 'when-applying', cost: 'heavy' } as const;
/** Changes that the Product Runtime also serves on its hosted vault routes: previews need a read grant, applies notes.publish. */
const PRODUCT_CHANGE = { ...CHANGE, credentials: [...ACCOUNT_CREDENTIALS, ...RUNTIME_CREDENTIALS] } as const;
const VAULT_ROUTES = '/workspaces/{workspaceId}/vaults/{vaultId}';

const WriteNoteInput = z.strictObject({
  mappingId: MappingIdSchema,
  path: NotePathSchema,
  content: z.string().describe('The whole new Markdown content; with target, the new content of that part of the note'),
  dryRun: DryRunSchema,
  expectedHash: ContentHashSchema.optional(),
  target: NoteTargetSchema.optional().describe('Write only this part of the existing note (docs/api.md#section-level-writes)'),
});

/** Create or replace one note: a preview with a diff by default. */
export const writeNote = defineOperation({
  ...PRODUCT_CHANGE,
  id: 'writeNote',
  summary: 'Write a note (preview or apply)',
  description:
    'Creates or replaces one note. By default only previews: the result shows the unified diff and beforeRevision. ' +
    'Applying needs dryRun false, an Idempotency-Key header and, for an existing note, its current hash as ' +
    'expectedHash or If-Match. A stale hash is rejected with 412 and never overwrites.',
  tags: ['notes'],
  input: WriteNoteInput,
  output: TransactionResultSchema,
  errors: NOTE_CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/notes' }],
  product: [
    {
      method: 'POST',
      path: `${VAULT_ROUTES}/notes/publish`,
      operationId: 'publishNote',
      kind: 'service.note-transaction',
      capability: 'notes.publish',
      vault: true,
      applyNeeds: 'notes.publish',
    },
  ],
  ...asNoteTransaction((input: z.output<typeof WriteNoteInput>) => ({
    mappingId: input.mappingId,
    dryRun: input.dryRun,
    actions: [
      {
        type: 'write-note',
        path: input.path,
        content: input.content,
        ...(input.expectedHash ? { expectedHash: input.expectedHash } : {}),
        ...(input.target ? { target: input.target } : {}),
      },
    ],
  })),
});

const DeleteNoteInput = z.strictObject({ mappingId: MappingIdSchema, path: NotePathSchema, dryRun: DryRunSchema, expectedHash: ContentHashSchema.optional() });

/** Move one note to the trash: a preview by default. */
export const deleteNote = defineOperation({
  ...CHANGE,
  id: 'deleteNote',
  summary: 'Delete a note (preview or apply)',
  description:
    'Moves one note to the recoverable trash. By default only previews. Applying needs dryRun false, an ' +
    'Idempotency-Key header and the current revision as If-Match; the trash entry is written before the live note is removed.',
  tags: ['notes'],
  input: DeleteNoteInput,
  output: TransactionResultSchema,
  errors: NOTE_CHANGE_ERRORS,
  rest: [{ method: 'DELETE', path: '/notes/{category}/{filename}', notePathFromSegments: true }],
  ...asNoteTransaction((input: z.output<typeof DeleteNoteInput>) => ({
    mappingId: input.mappingId,
    dryRun: input.dryRun,
    actions: [{ type: 'delete-note', path: input.path, ...(input.expectedHash ? { expectedHash: input.expectedHash } : {}) }],
  })),
});

const NoteTransactionInput = z.strictObject({
  mappingId: MappingIdSchema,
  dryRun: DryRunSchema,
  actions: z.array(NoteActionSchema).min(1).max(MAX_TRANSACTION_ACTIONS),
});

/** Atomic multi-note transaction. */
export const runNoteTransaction = defineOperation({
  ...PRODUCT_CHANGE,
  id: 'runNoteTransaction',
  summary: 'Preview or apply a note transaction',
  description:
    `Up to ${MAX_TRANSACTION_ACTIONS} actions (write-note, delete-note, restore-note, move-note), previewed or applied ` +
    'atomically: either every action commits or none does. A move-note moves or renames a note; with rewriteLinks it ' +
    'also rewrites the links of other notes that point to it, each listed after the actions as a rewrite-links entry. ' +
    'One action per path (a move touches both of its paths).',
  tags: ['transactions'],
  input: NoteTransactionInput,
  output: TransactionResultSchema,
  errors: NOTE_CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/transactions' }],
  product: [
    {
      method: 'POST',
      path: `${VAULT_ROUTES}/notes/transactions`,
      operationId: 'applyTransaction',
      kind: 'service.note-transaction',
      capability: 'notes.transactions',
      vault: true,
      applyNeeds: 'notes.publish',
    },
  ],
  ...asNoteTransaction((input: z.output<typeof NoteTransactionInput>) => input),
});
