import { z } from 'zod';

/** Kinds of provenance events; docs/api.md ("Events") says which operation emits which. */
export const EventKindSchema = z.enum([
  'note.created',
  'note.updated',
  'note.deleted',
  'note.restored',
  'note.moved',
  // Canvases and attachments of hosted vaults (src/domains/files).
  'file.created',
  'file.updated',
  'file.deleted',
  'file.restored',
  'proposal.created',
  'proposal.approved',
  'proposal.rejected',
  'proposal.expired',
  'proposal.executed',
  'proposal.failed',
  'proposal.undone',
  'proposal.undo-failed',
]);
/** See EventKindSchema. */
export type EventKind = z.infer<typeof EventKindSchema>;

/** An event as recorded: who, what, when, under which idempotency key. */
export interface NewProvenanceEvent {
  mappingId: string;
  vaultId: string | null;
  accountId: string;
  credentialKind: string;
  credentialId?: string | undefined;
  client?: string | undefined;
  kind: EventKind;
  path?: string | undefined;
  beforeRevision?: string | null | undefined;
  afterRevision?: string | null | undefined;
  idempotencyKey?: string | undefined;
  trashId?: string | undefined;
  details?: Record<string, unknown> | undefined;
  /** The unified diff of a change that replaced content, bounded as previews' are (`details.diffTruncated` when cut). */
  diff?: string | undefined;
}
