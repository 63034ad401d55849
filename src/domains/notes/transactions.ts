import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import { assertPortableNotePath, normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import type { IdempotentCommit } from '../idempotency/index.ts';
import { appendEvents, type EventKind, type NewProvenanceEvent } from '../provenance/index.ts';
import type { HostedMapping, NoteChangeCapability, VaultsService } from '../vaults/index.ts';
import { MAX_NOTE_BYTES } from './contract.ts';
import * as linkStore from './link-store.ts';
import { notesToRewrite, planTransaction, type CanonicalAction, type PlanMode, type PlannedAction, type PlanState } from './plan-transaction.ts';
import { assertMayChangeNotes } from './policy.ts';
import * as store from './store.ts';
import * as trash from './trash-store.ts';
import {
  MAX_LINK_REWRITE_CANDIDATES,
  MAX_LINK_REWRITE_NOTES,
  MAX_TRANSACTION_ACTIONS,
  type NoteAction,
  type TransactionResult,
} from './transaction-contract.ts';

/** What note writers need besides their input. */
export interface NoteWriteDeps {
  db: Database;
  vaults: VaultsService;
  /** Called once a change of the vault's notes committed, before it is answered: caches forget the vault. */
  onContentChanged: (vaultId: string) => void;
}

/** Input of a note transaction (single-note writes and deletes are transactions of one action). */
export interface TransactionInput {
  actor: Actor;
  mappingId: string;
  dryRun: boolean;
  actions: readonly NoteAction[];
  /** The capability the caller changes notes under; the policy decides what it allows (notes/policy.ts). */
  capability: NoteChangeCapability;
  /**
   * Required to apply: the transaction the idempotency service opened for the request's key. The change runs in it,
   * so it commits together with its stored outcome.
   */
  commit?: IdempotentCommit;
}

function canonicalize(actions: readonly NoteAction[]): CanonicalAction[] {
  if (actions.length === 0) throw new KgateError('invalid_request', 'A transaction needs at least one action.');
  if (actions.length > MAX_TRANSACTION_ACTIONS) {
    throw new KgateError('invalid_request', `A transaction holds at most ${MAX_TRANSACTION_ACTIONS} actions.`, {
      limit: MAX_TRANSACTION_ACTIONS,
      actions: actions.length,
    });
  }
  const seen = new Map<string, number>();
  // Addressing a note stays lenient, so notes stored before the portable-path rules can still be read, deleted,
  // restored where they were, and moved away; a path that content is written to must be portable (docs/notes.md).
  const canonicalPath = (value: string, index: number, field: string, use: 'address' | 'write'): string => {
    try {
      const path = normalizeNotePath(value);
      if (use === 'write') assertPortableNotePath(path);
      return path;
    } catch (error) {
      if (error instanceof KgateError) {
        throw new KgateError(error.code, `Action ${index}: ${field === 'path' ? '' : `${field}: `}${error.message}`, { ...error.details, index, field });
      }
      throw error;
    }
  };
  // One action per path: a move touches two (one when only the letter case changes).
  const claim = (pathKey: string, index: number) => {
    const earlier = seen.get(pathKey);
    if (earlier !== undefined && earlier !== index) {
      throw new KgateError('invalid_request', `Actions ${earlier} and ${index} touch the same path; one action per path.`, {
        index,
      });
    }
    seen.set(pathKey, index);
  };
  return actions.map((action, index): CanonicalAction => {
    const path = canonicalPath(action.path, index, 'path', action.type === 'write-note' ? 'write' : 'address');
    if (action.type === 'write-note' && Buffer.byteLength(action.content, 'utf8') > MAX_NOTE_BYTES) {
      throw new KgateError('payload_too_large', `Action ${index}: a note holds at most ${MAX_NOTE_BYTES} bytes.`, {
        index,
        limit: MAX_NOTE_BYTES,
      });
    }
    const pathKey = notePathKey(path);
    claim(pathKey, index);
    if (action.type !== 'move-note') return { ...action, path, pathKey };
    const newPath = canonicalPath(action.newPath, index, 'newPath', 'write');
    const newPathKey = notePathKey(newPath);
    claim(newPathKey, index);
    return { ...action, path, pathKey, newPath, newPathKey };
  });
}

/**
 * Reads what planning needs. With a move that rewrites links, also every note path and the stored links naming the
 * moved files' names; a first planning pass finds the notes whose links change, whose content is then read.
 */
async function loadState(sql: Sql, vaultId: string, actions: readonly CanonicalAction[], mode: PlanMode): Promise<PlanState> {
  const trashIds = actions.flatMap((a) => (a.type === 'restore-note' ? [a.trashId] : []));
  const keys = actions.flatMap((a) => (a.type === 'move-note' ? [a.pathKey, a.newPathKey] : [a.pathKey]));
  const [notes, entries] = await Promise.all([store.findNotesByKeys(sql, vaultId, keys), trash.findTrash(sql, vaultId, trashIds)]);
  const state: PlanState = { notes, trash: entries };
  const moves = actions.flatMap((a) => (a.type === 'move-note' && a.rewriteLinks ? [a] : []));
  if (moves.length === 0) return state;
  const nameKeys = linkStore.nameKeysOfMoves(moves.map((m) => [notes.get(m.pathKey)?.path ?? m.path, m.newPath]));
  const [paths, candidates] = await Promise.all([
    linkStore.listNotePaths(sql, vaultId),
    linkStore.findLinksNaming(sql, vaultId, nameKeys, MAX_LINK_REWRITE_CANDIDATES + 1),
  ]);
  const links = { paths, candidates: candidates.slice(0, MAX_LINK_REWRITE_CANDIDATES), candidatesTruncated: candidates.length > MAX_LINK_REWRITE_CANDIDATES };
  const needed = notesToRewrite(actions, { ...state, links }, mode);
  // The first pass stops adding notes past MAX_LINK_REWRITE_NOTES (the plan refuses then), so this read is bounded.
  const loaded = needed.size > 0 && needed.size <= MAX_LINK_REWRITE_NOTES ? await store.findNotesByIds(sql, vaultId, [...needed]) : new Map();
  return { ...state, links: { ...links, loaded } };
}

function eventKind(effect: NonNullable<PlannedAction['effect']>): EventKind {
  switch (effect.kind) {
    case 'delete':
      return 'note.deleted';
    case 'restore':
      return 'note.restored';
    case 'move':
      return 'note.moved';
    case 'rewrite':
      return 'note.updated';
    case 'write':
      return effect.before ? 'note.updated' : 'note.created';
  }
}

function eventDetails(effect: NonNullable<PlannedAction['effect']>): Record<string, unknown> {
  if (effect.kind === 'move') return { previousPath: effect.note.path };
  if (effect.kind === 'rewrite') return { via: 'link-rewrite' };
  return effect.kind === 'write' && effect.before && effect.before.path !== effect.write.path ? { previousPath: effect.before.path } : {};
}

function eventsOf(planned: readonly PlannedAction[], mapping: HostedMapping, input: TransactionInput): NewProvenanceEvent[] {
  return planned.flatMap(({ effect, result }) => {
    if (!effect) return [];
    return [
      {
        mappingId: mapping.id,
        vaultId: mapping.vaultId,
        accountId: input.actor.accountId,
        credentialKind: input.actor.credentialKind,
        credentialId: input.actor.credentialId,
        client: input.actor.client,
        kind: eventKind(effect),
        path: effect.kind === 'move' ? effect.write.path : result.path,
        beforeRevision: result.beforeRevision,
        afterRevision: result.afterRevision,
        idempotencyKey: input.commit?.key,
        trashId: result.trashId,
        details: eventDetails(effect),
      },
    ];
  });
}

async function execute(tx: Sql, mapping: HostedMapping, planned: readonly PlannedAction[], accountId: string): Promise<void> {
  const effects = planned.flatMap((p) => (p.effect ? [p.effect] : []));
  const deletes = effects.flatMap((e) => (e.kind === 'delete' ? [e] : []));
  const moves = effects.flatMap((e) => (e.kind === 'move' ? [e] : []));
  // The trash copy is written before the live note is removed (spec 3.1), in the same transaction.
  await trash.insertTrash(
    tx,
    mapping.vaultId,
    deletes.map((d) => ({ id: d.trashId, originalPath: d.note.path, content: d.note.content, contentHash: d.note.contentHash, size: d.note.size, title: d.note.title })),
    accountId,
  );
  await store.deleteNotes(tx, mapping.vaultId, deletes.map((d) => d.note.id));
  // A move keeps the note's row (id, creation time, links); a move whose links were rewritten is then written.
  await store.moveNotes(tx, mapping.vaultId, moves.map((m) => ({ id: m.note.id, ...m.write })));
  await store.upsertNotes(
    tx,
    mapping.vaultId,
    effects.flatMap((e) =>
      e.kind === 'write' || e.kind === 'restore' || e.kind === 'rewrite' || (e.kind === 'move' && e.write.contentHash !== e.note.contentHash) ? [e.write] : [],
    ),
  );
  await trash.markRestored(tx, effects.flatMap((e) => (e.kind === 'restore' ? [e.entry.id] : [])));
}

function failure(planned: readonly PlannedAction[]): KgateError | undefined {
  const problems = planned.flatMap((p) => (p.problem ? [{ index: p.result.index, path: p.result.path, ...p.problem }] : []));
  const first = problems[0];
  if (!first) return undefined;
  return new KgateError(first.code, `Action ${first.index} (${first.path}): ${first.detail}`, { problems });
}

/**
 * Previews or applies a note transaction. A preview reads without locking and reports, per action, what would
 * happen (with a unified diff) and what would fail, then one entry per other note a move's link rewrite changes.
 * Applying runs in the caller's idempotent commit: it locks the vault, re-plans against the current state (so the
 * rewritten notes are those of the current vault), refuses the whole transaction if any action has a problem (stale
 * hash, missing precondition, missing note, a rewrite it may not make), writes trash copies before removing notes
 * and records one provenance event per change, all in that one database transaction.
 */
export async function runTransaction(deps: NoteWriteDeps, input: TransactionInput): Promise<TransactionResult> {
  const actions = canonicalize(input.actions);
  if (input.dryRun) {
    const mapping = await deps.vaults.resolveHostedMapping(input.actor.accountId, input.mappingId, 'write');
    assertMayChangeNotes(mapping, actions, input.capability);
    const state = await loadState(deps.db, mapping.vaultId, actions, 'preview');
    const planned = planTransaction(actions, state, 'preview', { withDiff: !mapping.deviceEncrypted });
    return { mappingId: mapping.id, dryRun: true, applied: false, actions: planned.map((p) => p.result) };
  }
  if (!input.commit) throw new KgateError('idempotency_key_required', 'Applying a change needs an idempotency key.');
  const tx = input.commit.sql;
  const mapping = await deps.vaults.resolveHostedMapping(input.actor.accountId, input.mappingId, 'write', tx);
  assertMayChangeNotes(mapping, actions, input.capability);
  await store.lockVault(tx, mapping.vaultId);
  const planned = planTransaction(actions, await loadState(tx, mapping.vaultId, actions, 'apply'), 'apply', { withDiff: false });
  const refused = failure(planned);
  if (refused) throw refused;
  await execute(tx, mapping, planned, input.actor.accountId);
  tx.afterCommit(() => deps.onContentChanged(mapping.vaultId));
  await appendEvents(tx, eventsOf(planned, mapping, input));
  return { mappingId: mapping.id, dryRun: false, applied: true, actions: planned.map((p) => p.result) };
}
