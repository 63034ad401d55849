/** Notes: hosted Markdown notes, their trash, and the import and export of whole vaults. */
export { MAX_NOTE_BYTES, NoteSchema, NoteSummarySchema } from './contract.ts';
export type { ImportBatchResult, ImportOutcome, ImportedFile, Note, NoteSummary } from './contract.ts';
export { MAX_IMPORT_BATCH, createNotesService } from './service.ts';
export type { NotesService } from './service.ts';
export { noteTitle } from './title.ts';
