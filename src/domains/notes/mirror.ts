import type { Sql } from '../../db/port.ts';
import { contentHash } from '../../kernel/hashing.ts';
import { normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import { appendEvents, type NewProvenanceEvent } from '../provenance/index.ts';
import { writeNoteChanges, type NoteChanges } from './change-store.ts';
import { unifiedDiff } from './diff.ts';
import { deriveNoteIndex } from './note-index.ts';
import * as store from './store.ts';
import { noteTitle } from './title.ts';
import type { NoteTransition, NoteWriteDeps } from './write-deps.ts';

/**
 * The synchronized copy of a remote mapping's notes (docs/providers.md, "Synchronization"): the provider is the
 * source of truth, and this vault holds what it holds, so that search, the graph and the knowledge layer read remote
 * notes exactly as hosted ones. Only the sync engine of the providers domain writes here, inside its own transaction;
 * nothing on a network surface reaches it (a person's or an agent's change of a remote note goes to the provider).
 */

/** The credential kind of provenance events written by synchronization (who: the mapping's owner, through it). */
export const SYNC_CREDENTIAL_KIND = 'sync';
/** The client label of provenance events written by synchronization. */
export const SYNC_CLIENT = 'kgate-sync';

/** The mapping whose copy changes: its vault, its owner (events are theirs) and its provider connection. */
export interface MirrorMapping {
  id: string;
  vaultId: string;
  ownerAccountId: string;
  /** The provider connection the content came through; recorded as the events' credential id. */
  connectionId: string;
  /** Device-held encryption: the copy may only lose notes, never gain content. */
  deviceEncrypted: boolean;
}

/**
 * One change of the copy, by canonical path: the note now holds `content` (at the provider's `providerRevision`),
 * or, with `content` null, the note is gone from the provider. Paths compare by their case-folded key, as notes do.
 */
export type MirrorChange =
  | { path: string; content: string; providerRevision: string }
  | { path: string; content: null; providerRevision: string | null };

/** What applying changed: notes created, replaced (content or path case), removed, and left as they were. */
export interface MirrorOutcome {
  created: number;
  updated: number;
  removed: number;
  unchanged: number;
}

/**
 * Who made the changes, when it is not synchronization: kgate's own applied change of a remote note, recorded in the
 * copy after the provider took it (the caller's account and credential, its idempotency key, its event details).
 */
export interface MirrorAttribution {
  accountId: string;
  credentialKind: string;
  credentialId?: string | undefined;
  client?: string | undefined;
  idempotencyKey?: string | undefined;
  details?: Record<string, unknown> | undefined;
}

/** Writes changes of a mapping's synchronized copy in the caller's transaction (see applyMirrorChanges). */
export type NoteMirror = (sql: Sql, mapping: MirrorMapping, changes: readonly MirrorChange[], attribution?: MirrorAttribution) => Promise<MirrorOutcome>;

/** What the mirror tells of its changes: the same hooks as every other note write. */
export type MirrorDeps = Pick<NoteWriteDeps, 'onContentChanged' | 'observeChanges'>;

/** Locks the copy's vault for the rest of the transaction, as every note write does first (see store.lockVault). */
export async function lockMirrorVault(sql: Sql, vaultId: string): Promise<void> {
  await store.lockVault(sql, vaultId);
}

/**
 * Makes the copy of `mapping` hold `changes`, in the caller's transaction (which must be open: the sync engine
 * commits them with its own progress). Under the vault's lock, like every write: notes created, replaced or removed
 * by path key with their links and Markdown model, the vault's content version counted up, one provenance event per
 * change under the mapping owner's account with credential kind `sync` and `details: { via: 'sync',
 * providerRevision }`, and the change observer (knowledge) told in the same transaction. A removal leaves no trash
 * entry: the provider keeps its own trash. Identical content at the same path changes nothing and records nothing.
 * Content for a device-encrypted mapping is refused (an Error: it is a bug of the caller, never a user's input);
 * removals are always taken, and told to the observer, so that records derived before the flag was known go too.
 * With `attribution`, the events are of that caller instead (its key, and its details beside `providerRevision`).
 */
export async function applyMirrorChanges(
  sql: Sql,
  deps: MirrorDeps,
  mapping: MirrorMapping,
  changes: readonly MirrorChange[],
  attribution?: MirrorAttribution,
): Promise<MirrorOutcome> {
  const outcome: MirrorOutcome = { created: 0, updated: 0, removed: 0, unchanged: 0 };
  if (changes.length === 0) return outcome;
  const byKey = new Map<string, MirrorChange>();
  for (const change of changes) {
    if (change.content !== null && mapping.deviceEncrypted) throw new Error('a device-encrypted mapping keeps no content');
    const path = normalizeNotePath(change.path);
    const key = notePathKey(path);
    if (byKey.has(key)) throw new Error(`two mirror changes of one path: ${path}`);
    byKey.set(key, { ...change, path });
  }
  await lockMirrorVault(sql, mapping.vaultId);
  const existing = await store.findNotesByKeys(sql, mapping.vaultId, [...byKey.keys()]);
  const noteChanges: { deletes: string[]; updates: Array<store.NoteWrite & { id: string }>; creates: store.NoteWrite[] } = { deletes: [], updates: [], creates: [] };
  const events: NewProvenanceEvent[] = [];
  const transitions: NoteTransition[] = [];
  const by = {
    mappingId: mapping.id,
    vaultId: mapping.vaultId,
    ...(attribution
      ? { accountId: attribution.accountId, credentialKind: attribution.credentialKind, credentialId: attribution.credentialId, client: attribution.client, idempotencyKey: attribution.idempotencyKey }
      : { accountId: mapping.ownerAccountId, credentialKind: SYNC_CREDENTIAL_KIND, credentialId: mapping.connectionId, client: SYNC_CLIENT }),
  };
  const via = (providerRevision: string | null): Record<string, unknown> => ({ ...(attribution ? attribution.details : { via: 'sync' }), providerRevision });
  for (const [key, change] of byKey) {
    const before = existing.get(key);
    if (change.content === null) {
      if (!before) {
        outcome.unchanged += 1;
        continue;
      }
      outcome.removed += 1;
      noteChanges.deletes.push(before.id);
      transitions.push({ path: before.path, after: null });
      events.push({
        ...by,
        kind: 'note.deleted',
        path: before.path,
        beforeRevision: before.contentHash,
        afterRevision: null,
        details: via(change.providerRevision),
      });
      continue;
    }
    const hash = contentHash(change.content);
    if (before && before.contentHash === hash && before.path === change.path) {
      outcome.unchanged += 1;
      continue;
    }
    const write: store.NoteWrite = {
      path: change.path,
      pathKey: key,
      content: change.content,
      contentHash: hash,
      size: Buffer.byteLength(change.content, 'utf8'),
      title: noteTitle(change.path, change.content),
      derived: deriveNoteIndex(change.content),
    };
    const details = via(change.providerRevision);
    let diff: string | undefined;
    if (before) {
      outcome.updated += 1;
      noteChanges.updates.push({ ...write, id: before.id });
      // A case-only rename at the provider: the old path leaves, as a hosted write under another case does.
      if (before.path !== write.path) {
        details.previousPath = before.path;
        transitions.push({ path: before.path, after: null });
      }
      if (before.content !== write.content) {
        const made = unifiedDiff(before.path, before.content, write.content, write.path);
        diff = made.diff;
        if (made.diffTruncated) details.diffTruncated = true;
      }
    } else {
      outcome.created += 1;
      noteChanges.creates.push(write);
    }
    transitions.push({ path: write.path, after: { revision: hash, content: write.content } });
    events.push({
      ...by,
      kind: before ? 'note.updated' : 'note.created',
      path: write.path,
      beforeRevision: before?.contentHash ?? null,
      afterRevision: hash,
      details,
      ...(diff === undefined ? {} : { diff }),
    });
  }
  if (events.length === 0) return outcome;
  const planned: NoteChanges = { ...noteChanges, moves: [] };
  await writeNoteChanges(sql, mapping.vaultId, planned);
  await appendEvents(sql, events);
  // Knowledge reads the notes just written: after them, in the same transaction. A device-encrypted copy only loses
  // notes here, so what the observer is told never holds ciphertext.
  if (deps.observeChanges) await deps.observeChanges(sql, mapping.vaultId, transitions);
  sql.afterCommit(() => deps.onContentChanged(mapping.vaultId));
  return outcome;
}

/** A NoteMirror over the given hooks (the composition root builds one beside the notes service, with its observer). */
export function createNoteMirror(deps: MirrorDeps): NoteMirror {
  return (sql, mapping, changes, attribution) => applyMirrorChanges(sql, deps, mapping, changes, attribution);
}
