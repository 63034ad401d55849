/** Notes: hosted Markdown notes, their trash, and the import and export of whole vaults. */
export { MAX_NOTE_BYTES, NoteSchema, NoteSummarySchema } from './contract.ts';
export type { ImportBatchResult, ImportOutcome, ImportedFile, Note, NoteSummary } from './contract.ts';
export { MAX_IMPORT_BATCH, createNotesService } from './service.ts';
export type { NotesService, NotesServiceOptions, PreparedImport, SharedTransaction } from './service.ts';
export type { NoteChangeObserver, NoteTransition, RemoteChangeAttribution, RemoteFileState, RemoteNotes } from './write-deps.ts';
export type { StagedRemoteChange } from './remote-writes.ts';
export { DEFAULT_NOTE_CACHE_BYTES, createNoteBodyCache } from './body-cache.ts';
export type { NoteBodyCache } from './body-cache.ts';
export { noteTitle } from './title.ts';
export { MAX_FRONTMATTER_ERRORS, MAX_FRONTMATTER_SCAN, MAX_REMOTE_FRONTMATTER_READS } from './frontmatter-scan.ts';
export type { FrontmatterScan } from './frontmatter-scan.ts';
export { MAX_INVENTORY_PAGE, MAX_TRASH_PAGE } from './reads.ts';
export { assertReadableBodies } from './policy.ts';
export type { NoteReads, Page } from './reads.ts';
export type { TrashSummary } from './trash-store.ts';
export { MAX_LINKS_PER_NOTE, targetNameKey } from './note-index.ts';
export {
  ActionResultSchema,
  ContentHashSchema,
  MAX_DIFF_CHARS,
  MAX_TRANSACTION_ACTIONS,
  NoteActionSchema,
  NoteTargetSchema,
  TransactionResultSchema,
} from './transaction-contract.ts';
export type { ActionResult, NoteAction, NoteTarget, TransactionResult } from './transaction-contract.ts';
export type { TransactionInput } from './transactions.ts';
export type { CreateOrAppendInput } from './append.ts';
export { SYNC_CLIENT, SYNC_CREDENTIAL_KIND, applyMirrorChanges, createNoteMirror, lockMirrorVault } from './mirror.ts';
export type { MirrorAttribution, MirrorChange, MirrorDeps, MirrorMapping, MirrorOutcome, NoteMirror } from './mirror.ts';
