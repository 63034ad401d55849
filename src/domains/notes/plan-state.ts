import type { Sql } from '../../db/port.ts';
import * as linkStore from './link-store.ts';
import { notesToRewrite, type CanonicalAction, type PlanMode, type PlanState } from './plan-transaction.ts';
import * as store from './store.ts';
import * as trash from './trash-store.ts';
import { MAX_LINK_REWRITE_CANDIDATES, MAX_LINK_REWRITE_NOTES } from './transaction-contract.ts';

/**
 * Reads what planning needs. With a move that rewrites links, also every note path and the stored links naming the
 * moved files' names; a first planning pass finds the notes whose links change, whose content is then read.
 */
export async function loadState(sql: Sql, vaultId: string, actions: readonly CanonicalAction[], mode: PlanMode): Promise<PlanState> {
  return withLinks(sql, vaultId, actions, mode, await readTouched(sql, vaultId, actions));
}

/**
 * Locks the vault a mapping maps and reads what planning an apply needs, the reads sent right behind the lock
 * without waiting for it (they run after it, in order, on the transaction's connection). Undefined when the mapping
 * maps no hosted vault.
 */
export async function lockAndLoadState(sql: Sql, mappingId: string, actions: readonly CanonicalAction[]): Promise<{ vaultId: string; state: PlanState } | undefined> {
  const [vaultId, touched] = await Promise.all([store.lockVaultOfMapping(sql, mappingId), readTouched(sql, { mappingId }, actions)]);
  return vaultId === undefined ? undefined : { vaultId, state: await withLinks(sql, vaultId, actions, 'apply', touched) };
}

/** The notes and trash entries the actions name. */
async function readTouched(sql: Sql, vault: store.VaultRef, actions: readonly CanonicalAction[]): Promise<PlanState> {
  const trashIds = actions.flatMap((a) => (a.type === 'restore-note' ? [a.trashId] : []));
  const keys = actions.flatMap((a) => (a.type === 'move-note' ? [a.pathKey, a.newPathKey] : [a.pathKey]));
  const [notes, entries] = await Promise.all([store.findNotesByKeys(sql, vault, keys), trash.findTrash(sql, vault, trashIds)]);
  return { notes, trash: entries };
}

/** `state` with what a move that rewrites links needs (see loadState); `state` itself when no action asks for it. */
async function withLinks(sql: Sql, vaultId: string, actions: readonly CanonicalAction[], mode: PlanMode, state: PlanState): Promise<PlanState> {
  const notes = state.notes;
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

/**
 * The keys an action touches: the path keys it reads or writes, and the trash entry it restores. Two transactions
 * whose keys are disjoint and that rewrite no links plan the same against one state as one after the other.
 */
export function keysOf(actions: readonly CanonicalAction[]): string[] {
  return actions.flatMap((a) =>
    a.type === 'move-note' ? [`path:${a.pathKey}`, `path:${a.newPathKey}`] : a.type === 'restore-note' ? [`path:${a.pathKey}`, `trash:${a.trashId}`] : [`path:${a.pathKey}`],
  );
}

/** True when the actions read links of other notes (a move that rewrites them): such a transaction plans alone. */
export function rewritesLinks(actions: readonly CanonicalAction[]): boolean {
  return actions.some((a) => a.type === 'move-note' && a.rewriteLinks === true);
}
