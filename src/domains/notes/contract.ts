import { z } from 'zod';

/** Largest note body we store, in UTF-8 bytes. Larger files are reported by importers, never truncated. */
export const MAX_NOTE_BYTES = 4 * 1024 * 1024;

/** A note in an inventory: no content. */
export const NoteSummarySchema = z.object({
  path: z.string(),
  title: z.string(),
  /** Hosted notes: equal to contentHash. */
  revision: z.string(),
  size: z.number().int().nonnegative().describe('UTF-8 bytes'),
  updatedAt: z.date(),
});
/** See NoteSummarySchema. */
export type NoteSummary = z.infer<typeof NoteSummarySchema>;

/** A whole note. */
export const NoteSchema = NoteSummarySchema.extend({
  content: z.string(),
  contentHash: z.string(),
  createdAt: z.date(),
});
/** See NoteSchema. */
export type Note = z.infer<typeof NoteSchema>;

/** One file handed to an import. */
export interface ImportedFile {
  path: string;
  content: string;
}

/** What happened to one imported file. */
export type ImportOutcome = 'created' | 'updated' | 'unchanged' | 'rejected';

/** Result of one import batch. */
export interface ImportBatchResult {
  created: number;
  updated: number;
  unchanged: number;
  /** Files that could not be imported, with the reason (invalid path, too large, duplicate path). */
  rejected: { path: string; code: string; reason: string }[];
}
