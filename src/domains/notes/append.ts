import { KgateError } from '../../kernel/errors.ts';
import { assertPortableNotePath, normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import * as store from './store.ts';
import type { NoteAction, NoteTarget, TransactionResult } from './transaction-contract.ts';
import { runTransaction, type TransactionInput } from './transactions.ts';
import type { NoteWriteDeps } from './write-deps.ts';
import { isStagedRemoteChange, type StagedRemoteChange } from './remote-writes.ts';
import { stageTransaction } from './transactions.ts';

/**
 * Step one of an applied create-or-append on a remote mapping: the addition is appended to the note as the provider
 * holds it now, then staged as one write (remote-writes.ts). Undefined for a hosted mapping.
 */
export async function stageCreateOrAppend(
  deps: NoteWriteDeps,
  input: Omit<CreateOrAppendInput, 'dryRun' | 'commit'> & { scope: string; key: string },
): Promise<StagedRemoteChange | undefined> {
  if (deps.vaults.providerOf(input.mappingId) === 'hosted') return undefined;
  const mapping = await deps.vaults.resolveMapping(input.actor.accountId, input.mappingId, 'write');
  if (mapping.provider === 'hosted') return undefined;
  if (!deps.remote) throw new KgateError('unavailable', 'Remote mappings are not available on this server.');
  const canonical = normalizeNotePath(input.path);
  assertPortableNotePath(canonical);
  const expected = input.expectedHash ? { expectedHash: input.expectedHash } : {};
  const stage = (action: NoteAction) =>
    stageTransaction(deps, { actor: input.actor, mappingId: input.mappingId, capability: input.capability, scope: input.scope, key: input.key, actions: [action] });
  // A targeted addition is resolved by planning, against the note the provider holds.
  if (input.target) return stage({ type: 'write-note', path: canonical, content: input.addition, target: input.target, ...expected });
  const live = await deps.remote.read(mapping, canonical, 'write');
  const content = live ? appendedContent(live.content, input.addition) : input.addition;
  return stage({ type: 'write-note', path: canonical, content, ...expected });
}

/** Input of `createOrAppend`: one note and the text to add. */
export type CreateOrAppendInput = Omit<TransactionInput, 'actions'> & {
  path: string;
  /** The new note's content, or the text appended to an existing note. */
  addition: string;
  expectedHash?: string;
  /** Write the addition to this part of the existing note instead (docs/api.md#section-level-writes). */
  target?: NoteTarget;
};

/** The content after appending `addition` to `current` on a new line. */
export function appendedContent(current: string, addition: string): string {
  return current === '' || current.endsWith('\n') ? `${current}${addition}` : `${current}\n${addition}`;
}

/**
 * Creates the note, or appends on a new line when it exists, as a one-action transaction. The current content is
 * read first; the transaction re-checks its hash under the vault lock, so a concurrent change is never lost. A
 * preview learns the current hash itself; applying to an existing note needs the caller's expectedHash.
 */
export async function createOrAppend(
  deps: NoteWriteDeps,
  input: CreateOrAppendInput,
): Promise<TransactionResult> {
  const { path, addition, expectedHash: given, target, ...transaction } = input;
  if (input.commit && isStagedRemoteChange(input.commit.staged)) return runTransaction(deps, { ...transaction, actions: [] });
  // A targeted addition is one targeted write: planning resolves it against the note (under the lock when applying).
  if (target) {
    return runTransaction(deps, { ...transaction, actions: [{ type: 'write-note', path, content: addition, target, ...(given ? { expectedHash: given } : {}) }] });
  }
  const canonical = normalizeNotePath(path);
  // Appending writes content, so the path must be portable, before anything is read (the transaction checks it too).
  assertPortableNotePath(canonical);
  // Applying reads in the commit's transaction (its connection); the hash is checked again under the vault lock.
  const sql = input.commit?.sql ?? deps.db;
  const mapping = await deps.vaults.resolveHostedMapping(input.actor.accountId, input.mappingId, 'write', sql);
  const current = await store.findNote(sql, mapping.vaultId, notePathKey(canonical));
  const content = current ? appendedContent(current.content, addition) : addition;
  const expectedHash = given ?? (input.dryRun ? current?.contentHash : undefined);
  return runTransaction(deps, {
    ...transaction,
    actions: [{ type: 'write-note', path: canonical, content, ...(expectedHash ? { expectedHash } : {}) }],
  });
}
