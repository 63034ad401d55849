import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import { assertPortableNotePath, normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import { runGroupOfOne, type IdempotentCommit } from '../idempotency/index.ts';
import type { NoteChangeCapability } from '../vaults/index.ts';
import type { NoteWriteDeps } from './write-deps.ts';
import { applyTransactions, type PreparedTransaction } from './apply-group.ts';
import { MAX_NOTE_BYTES } from './contract.ts';
import { deriveNoteIndex } from './note-index.ts';
import { writeOf } from './plan-model.ts';
import { keysOf, loadState, rewritesLinks } from './plan-state.ts';
import { planTransaction, type CanonicalAction } from './plan-transaction.ts';
import { assertMayChangeNotes } from './policy.ts';
import { MAX_TRANSACTION_ACTIONS, type NoteAction, type TransactionResult } from './transaction-contract.ts';
import { notesHashOf, recordReceipt } from './receipts.ts';
import { isStagedRemoteChange, recordRemoteChange, stageRemoteChange, type RemoteChangeInput, type StagedRemoteChange } from './remote-writes.ts';


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

/** Step one of an applied change to a remote mapping (remote-writes.ts); undefined for a hosted mapping. */
export function stageTransaction(deps: NoteWriteDeps, input: RemoteChangeInput): Promise<StagedRemoteChange | undefined> {
  return stageRemoteChange(deps, input, canonicalize);
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
 * Makes an applied transaction ready outside any database transaction (see PreparedTransaction): canonical actions,
 * and each written note's row with its Markdown model. Throws what canonicalizing refuses.
 */
export function prepareTransaction(input: Omit<TransactionInput, 'dryRun' | 'commit'>): PreparedTransaction {
  const actions = canonicalize(input.actions).map((action) => {
    // A targeted write's whole note depends on the note under the lock: planning makes its row there.
    if (action.type !== 'write-note' || action.target) return action;
    const write = writeOf(action.path, action.pathKey, action.content);
    return { ...action, prepared: { ...write, derived: deriveNoteIndex(action.content) } };
  });
  return { actor: input.actor, mappingId: input.mappingId, capability: input.capability, actions, notesHash: notesHashOf(actions) };
}

/**
 * The lane a prepared transaction may share a commit in (its mapping), and the keys it touches; undefined when it
 * must run alone (a move that rewrites links reads other notes' links, which another member could change).
 */
export function sharingOf(prepared: PreparedTransaction): { lane: string; keys: string[] } | undefined {
  if (rewritesLinks(prepared.actions)) return undefined;
  return { lane: `notes:${prepared.mappingId}`, keys: keysOf(prepared.actions) };
}

/**
 * Previews or applies a note transaction. A preview reads without locking and reports, per action, what would
 * happen (with a unified diff) and what would fail, then one entry per other note a move's link rewrite changes.
 * Applying runs in the caller's idempotent commit, as a group of one (apply-group.ts): it locks the vault, re-plans
 * against the current state (so the rewritten notes are those of the current vault), refuses the whole transaction
 * if any action has a problem (stale hash, missing precondition, missing note, a rewrite it may not make), writes
 * trash copies with the removals and records one provenance event per change, all in that one database transaction.
 */
export async function runTransaction(deps: NoteWriteDeps, input: TransactionInput): Promise<TransactionResult> {
  if (input.dryRun) {
    const actions = canonicalize(input.actions);
    const mapping = await deps.vaults.resolveHostedMapping(input.actor.accountId, input.mappingId, 'write');
    assertMayChangeNotes(mapping, actions, input.capability);
    const state = await loadState(deps.db, mapping.vaultId, actions, 'preview');
    const planned = planTransaction(actions, state, 'preview', { withDiff: !mapping.deviceEncrypted });
    const results = planned.map((p) => p.result);
    // The receipt that an apply of exactly these actions, against these revisions, will match (receipts.ts).
    const receipt = await recordReceipt(deps.db, { mappingId: mapping.id, actor: input.actor, actions, results });
    return { mappingId: mapping.id, dryRun: true, applied: false, actions: results, receipt };
  }
  if (!input.commit) throw new KgateError('idempotency_key_required', 'Applying a change needs an idempotency key.');
  // A remote change was made at the provider by the request's stage (remote-writes.ts); here it is recorded.
  if (isStagedRemoteChange(input.commit.staged)) return recordRemoteChange(deps, input.commit.sql, input.commit.staged);
  const prepared = prepareTransaction(input);
  const settled = await runGroupOfOne(applyTransactions.bind(null, deps), input.commit.sql, { payload: prepared, key: input.commit.key });
  if (!settled) throw new Error('an applied transaction ended without an outcome');
  if (!settled.ok) throw settled.error;
  return settled.value;
}
