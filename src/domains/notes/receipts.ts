import { textArrayParam, type Sql } from '../../db/port.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import { PREVIEW_WINDOW_MS } from '../vaults/index.ts';
import type { CanonicalAction } from './plan-transaction.ts';
import type { ActionResult, MatchedPreview, NoteTarget, PreviewReceipt } from './transaction-contract.ts';

/**
 * Preview receipts (docs/proposals.md): every preview records what was previewed, by whom, against which revisions,
 * and every apply looks for the receipt it matches, so that the events show a preview, then its apply. A receipt
 * names the change by two hashes: of the exact actions (paths, contents, targets; not the expected hashes, which a
 * preview may omit) and of the revisions the preview answered for them (its `beforeRevision`s, which an apply sends
 * back as expected hashes). An apply matches a receipt when its actions are the same and the notes are still at the
 * revisions previewed.
 */

/** How long receipts are kept: long past any window, for the record (maintenance purges older ones). */
export const PREVIEW_RECEIPT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** A target as a tuple, so that its hash does not depend on the order of its fields. */
function targetTuple(target: NoteTarget): string[] {
  switch (target.type) {
    case 'heading':
      return ['heading', target.heading, target.mode];
    case 'block':
      return ['block', target.blockId];
    case 'frontmatter':
      return ['frontmatter', target.key];
  }
}

/** sha256 of the exact actions of a transaction, as canonicalized (NFC paths), without their expected hashes. */
export function notesHashOf(actions: readonly CanonicalAction[]): string {
  const exact = actions.map((a) => {
    switch (a.type) {
      case 'write-note':
        // A target is part of what was previewed; untargeted writes hash as they always did.
        return a.target ? ['write-note', a.path, a.content, targetTuple(a.target)] : ['write-note', a.path, a.content];
      case 'delete-note':
        return ['delete-note', a.path];
      case 'restore-note':
        return ['restore-note', a.path, a.trashId];
      case 'move-note':
        return ['move-note', a.path, a.newPath, a.rewriteLinks];
    }
  });
  return `sha256:${sha256Hex(JSON.stringify(exact))}`;
}

/** The revision each action was planned against: its result's `beforeRevision` (the entries after them are link rewrites). */
export function previewedAgainst(actions: readonly CanonicalAction[], results: readonly ActionResult[]): Array<{ path: string; revision: string | null }> {
  return actions.map((a, index) => ({ path: a.path, revision: results[index]?.beforeRevision ?? null }));
}

/** sha256 of the revisions the actions were planned against, in order. */
export function againstHashOf(against: ReadonlyArray<{ revision: string | null }>): string {
  return `sha256:${sha256Hex(JSON.stringify(against.map((a) => a.revision)))}`;
}

/** Records the receipt of a preview by `actor` and answers it. */
export async function recordReceipt(
  sql: Sql,
  input: { mappingId: string; actor: Actor; actions: readonly CanonicalAction[]; results: readonly ActionResult[] },
): Promise<PreviewReceipt> {
  const against = previewedAgainst(input.actions, input.results);
  const receipt: PreviewReceipt = { id: newId(), notesHash: notesHashOf(input.actions), againstHash: againstHashOf(against), previewedAgainst: against };
  await sql.query(
    `INSERT INTO preview_receipts (id, mapping_id, account_id, credential_kind, credential_id, notes_hash, against_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [receipt.id, input.mappingId, input.actor.accountId, input.actor.credentialKind, input.actor.credentialId ?? null, receipt.notesHash, receipt.againstHash],
  );
  return receipt;
}

/** A stored receipt an apply may match. */
export interface StoredReceipt {
  id: string;
  accountId: string;
  credentialKind: string;
  credentialId: string | null;
  notesHash: string;
  againstHash: string;
  createdAt: Date;
}

/** Receipts of a mapping for any of these action hashes, made within the preview window, newest first. */
export async function findReceipts(sql: Sql, mappingId: string, notesHashes: readonly string[]): Promise<StoredReceipt[]> {
  const rows = await sql.query<{
    id: string;
    account_id: string;
    credential_kind: string;
    credential_id: string | null;
    notes_hash: string;
    against_hash: string;
    created_at: Date;
  }>(
    `SELECT id, account_id, credential_kind, credential_id, notes_hash, against_hash, created_at FROM preview_receipts
      WHERE mapping_id = $1 AND notes_hash = ANY($2::text[]) AND created_at > now() - $3 * interval '1 millisecond'
      ORDER BY created_at DESC LIMIT 200`,
    [mappingId, textArrayParam([...new Set(notesHashes)]), PREVIEW_WINDOW_MS],
  );
  return rows.map((r) => ({
    id: r.id,
    accountId: r.account_id,
    credentialKind: r.credential_kind,
    credentialId: r.credential_id,
    notesHash: r.notes_hash,
    againstHash: r.against_hash,
    createdAt: r.created_at,
  }));
}

/** The newest receipt of the same credential for the same actions against the same revisions; null when none. */
export function matchReceipt(receipts: readonly StoredReceipt[], actor: Actor, notesHash: string, againstHash: string): MatchedPreview {
  const found = receipts.find(
    (r) =>
      r.notesHash === notesHash &&
      r.againstHash === againstHash &&
      r.accountId === actor.accountId &&
      r.credentialKind === actor.credentialKind &&
      r.credentialId === (actor.credentialId ?? null),
  );
  return found ? { id: found.id, previewedAt: found.createdAt.toISOString() } : null;
}

/** Deletes receipts older than the retention; returns how many. */
export async function purgeReceipts(sql: Sql): Promise<number> {
  const rows = await sql.query(`DELETE FROM preview_receipts WHERE created_at < now() - $1 * interval '1 millisecond' RETURNING 1`, [PREVIEW_RECEIPT_RETENTION_MS]);
  return rows.length;
}
