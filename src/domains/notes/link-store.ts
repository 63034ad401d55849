import type { Sql } from '../../db/port.ts';
import { targetNameKey } from './note-index.ts';
import type { CandidateLink } from './plan-model.ts';

/** Every note path of a vault (for the link resolvers of a move that rewrites links). */
export async function listNotePaths(sql: Sql, vaultId: string): Promise<string[]> {
  const rows = await sql.query<{ path: string }>('SELECT path FROM notes WHERE vault_id = $1', [vaultId]);
  return rows.map((row) => row.path);
}

/**
 * The file name keys whose links a move may change: the moved file's name before and after (a link names it by its
 * file name), each also with and without a trailing `.md` (`[[x.md]]` may find `x.md.md`).
 */
export function nameKeysOfMoves(moves: ReadonlyArray<readonly [string, string]>): string[] {
  const keys = new Set<string>();
  for (const path of moves.flat()) {
    const name = targetNameKey(path);
    keys.add(name);
    keys.add(`${name}.md`);
    if (name.endsWith('.md')) keys.add(name.slice(0, -3));
  }
  return [...keys];
}

/**
 * Up to `limit` stored links (note_links, written at each applied change) that name one of these file names, with
 * their note's id and path: one index range of (vault_id, target_name_key) per name. A link written with a trailing `/`
 * (`[[Name/]]`) is stored under an empty name and is not found here.
 */
export async function findLinksNaming(sql: Sql, vaultId: string, nameKeys: readonly string[], limit: number): Promise<CandidateLink[]> {
  const rows = await sql.query<{ note_id: string; path: string; target: string; target_name_key: string }>(
    `SELECT l.note_id, n.path, l.target, l.target_name_key
       FROM note_links l JOIN notes n ON n.id = l.note_id
      WHERE l.vault_id = $1 AND l.target_name_key = ANY($2::text[])
      LIMIT $3`,
    [vaultId, nameKeys, limit],
  );
  return rows.map((row) => ({ noteId: row.note_id, path: row.path, target: row.target, nameKey: row.target_name_key }));
}
