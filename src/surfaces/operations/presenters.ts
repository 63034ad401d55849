import { z } from 'zod';
import type { Note, NoteSummary, TrashSummary } from '../../domains/notes/index.ts';
import type { ProvenanceEvent } from '../../domains/provenance/index.ts';

/** Wire form of a note in an inventory. */
export const NoteSummaryOut = z.object({
  path: z.string(),
  title: z.string(),
  revision: z.string().describe('Hosted notes: the content hash; also the ETag of a read'),
  size: z.number().int().describe('UTF-8 bytes'),
  updatedAt: z.iso.datetime(),
});

/** Wire form of a whole note. */
export const NoteOut = NoteSummaryOut.extend({
  content: z.string(),
  contentHash: z.string().describe('Use as expectedHash (or If-Match) to change or delete this note'),
  createdAt: z.iso.datetime(),
});

/** Wire form of a trash entry: never the content. */
export const TrashEntryOut = z.object({
  trashId: z.uuid(),
  originalPath: z.string(),
  deletedAt: z.iso.datetime(),
  deletedBy: z.uuid().describe('Account id of who deleted the note'),
  size: z.number().int(),
  contentHash: z.string(),
});

/** Wire form of a provenance event. */
export const EventOut = z.object({
  seq: z.number().int().describe('Position in the feed; pass the last one seen as `since`'),
  id: z.uuid(),
  kind: z.string().describe('note.created, note.updated, note.deleted, note.restored, note.moved; file.created, file.updated, file.deleted, file.restored; proposal steps'),
  path: z.string().nullable(),
  beforeRevision: z.string().nullable(),
  afterRevision: z.string().nullable(),
  trashId: z.uuid().nullable(),
  idempotencyKey: z.string().nullable(),
  credentialKind: z.string(),
  client: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.iso.datetime(),
});

/** Presents an inventory row. */
export function presentSummary(note: NoteSummary): z.input<typeof NoteSummaryOut> {
  return { path: note.path, title: note.title, revision: note.revision, size: note.size, updatedAt: note.updatedAt.toISOString() };
}

/**
 * Presents `input` with `make`, once per frozen input: a frozen input (a note from the body cache, the same object
 * for every read of it at one content version) gives the same frozen output every time, which the pipeline then
 * checks against the operation's schema and serializes once (invocation/present.ts). Any other input is presented
 * anew. Mutable inputs are never cached: a frozen one cannot change under its cached presentation.
 */
export function presentOnce<I extends object, O extends object>(cache: WeakMap<I, O>, input: I, make: (input: I) => O): O {
  if (!Object.isFrozen(input)) return make(input);
  let output = cache.get(input);
  if (output === undefined) {
    output = Object.freeze(make(input));
    cache.set(input, output);
  }
  return output;
}

const presentedNotes = new WeakMap<Note, z.input<typeof NoteOut>>();

/** Presents a whole note (once per cached note, see presentOnce). */
export function presentNote(note: Note): z.input<typeof NoteOut> {
  return presentOnce(presentedNotes, note, (n) => ({ ...presentSummary(n), content: n.content, contentHash: n.contentHash, createdAt: n.createdAt.toISOString() }));
}

/** Presents a trash entry. */
export function presentTrash(entry: TrashSummary): z.input<typeof TrashEntryOut> {
  return {
    trashId: entry.id,
    originalPath: entry.originalPath,
    deletedAt: entry.deletedAt.toISOString(),
    deletedBy: entry.deletedBy,
    size: entry.size,
    contentHash: entry.contentHash,
  };
}

/** Presents a provenance event. */
export function presentEvent(event: ProvenanceEvent): z.input<typeof EventOut> {
  return {
    seq: event.seq,
    id: event.id,
    kind: event.kind,
    path: event.path,
    beforeRevision: event.beforeRevision,
    afterRevision: event.afterRevision,
    trashId: event.trashId,
    idempotencyKey: event.idempotencyKey,
    credentialKind: event.credentialKind,
    client: event.client,
    details: event.details,
    createdAt: event.createdAt.toISOString(),
  };
}
