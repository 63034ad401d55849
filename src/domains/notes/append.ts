import { KgateError } from '../../kernel/errors.ts';
import { assertPortableNotePath, normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import * as store from './store.ts';
import type { TransactionResult } from './transaction-contract.ts';
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
  const live = await deps.remote.read(mapping, canonical, 'write');
  const content = live ? appendedContent(live.content, input.addition) : input.addition;
  return stageTransaction(deps, {
    actor: input.actor,
    mappingId: input.mappingId,
    capability: input.capability,
    scope: input.scope,
    key: input.key,
    actions: [{ type: 'write-note', path: canonical, content, ...(input.expectedHash ? { expectedHash: input.expectedHash } : {}) }],
  });
}

/** Input of `createOrAppend`: one note and the text to add. */
export type CreateOrAppendInput = Omit<TransactionInput, 'actions'> & {
  path: string;
  /** The new note's content, or the text appended to an existing note. */
  addition: string;
  expectedHash?: string;
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
  const { path, addition, expectedHash: given, ...transaction } = input;
  if (input.commit && isStagedRemoteChange(input.commit.staged)) return runTransaction(deps, { ...transaction, actions: [] });
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
