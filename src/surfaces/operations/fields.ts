import { z } from 'zod';

/** The mapping a vault operation works on: an opaque UUID returned by discovery, never a credential by itself. */
export const MappingIdSchema = z.uuid().describe('The hosted mapping (UUID) to work on');

/** A vault-relative note path; the notes domain checks and canonicalizes it (docs/notes.md). */
export const NotePathSchema = z.string().min(1).describe('Vault-relative path ending in .md');

/** Whether a change is only previewed (the default) or applied. */
export const DryRunSchema = z
  .boolean()
  .default(true)
  .describe('true (default): preview only. false: apply, which needs an Idempotency-Key');

/** The opaque cursor of a paged listing. */
export const CursorSchema = z.string().max(2048).optional().describe('The nextCursor of the previous page');
