import type { Database } from '../../db/port.ts';
import { notePathKey } from '../../kernel/vault-path.ts';
import { createLinkResolver } from '../markdown/index.ts';
import { targetNameKey } from '../notes/index.ts';

/** A current note as relation reads show it: where it is, its title and revision, and its tags (for the slice). */
export interface NoteRef {
  id: string;
  path: string;
  title: string;
  /** The note's current revision (a hosted note's content hash). */
  revision: string;
  tagKeys: string[];
}

/** Most notes read to resolve one batch of link targets; past it, some targets may stay unresolved. */
export const MAX_RESOLUTION_CANDIDATES = 5000;

const NOTE_COLUMNS = 'n.id, n.path, n.title, n.content_hash AS revision, n.tag_keys';

interface NoteRow {
  [column: string]: unknown;
  id: string;
  path: string;
  title: string;
  revision: string;
  tag_keys: string[];
}

const refOf = (row: NoteRow): NoteRef => ({ id: row.id, path: row.path, title: row.title, revision: row.revision, tagKeys: row.tag_keys });

/** The note at a canonical path now (case-insensitively, as paths are unique), or undefined. */
export async function noteAt(db: Database, vaultId: string, canonicalPath: string): Promise<NoteRef | undefined> {
  const rows = await db.query<NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes n WHERE n.vault_id = $1 AND n.path_key = $2`, [vaultId, notePathKey(canonicalPath)]);
  return rows[0] ? refOf(rows[0]) : undefined;
}

/** Current notes by exact path (paths that are gone are absent from the answer). */
export async function notesAt(db: Database, vaultId: string, paths: readonly string[]): Promise<Map<string, NoteRef>> {
  if (paths.length === 0) return new Map();
  const keys = [...new Set(paths.map((p) => notePathKey(p)))];
  const rows = await db.query<NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes n WHERE n.vault_id = $1 AND n.path_key = ANY($2::text[])`, [vaultId, keys]);
  return new Map(rows.map((row) => [row.path, refOf(row)]));
}

/** Link targets of a batch, resolved against the vault as it is now. */
export interface TargetResolver {
  /** The note `target` (as written, without `#...` or `|...`) points to from the note at `sourcePath`. */
  resolve(target: string, sourcePath: string): NoteRef | undefined;
  /** True when more candidate notes existed than were read: an unresolved target may then exist. */
  incomplete: boolean;
}

/** The file names (lowercased) a target can resolve to: its last segment as a note, and `x.md.md` for `[[x.md]]`. */
function fileNamesOf(target: string): string[] {
  const key = targetNameKey(target);
  return key === '' ? [] : [`${key}.md`, `${key}.md.md`];
}

/**
 * A resolver for a batch of link targets, exactly as the graph resolves WikiLinks (Obsidian's rules, see
 * docs/markdown.md): a target can only resolve to a note of the file name it names, so a resolver built from the
 * notes of those file names answers as one built from the whole vault would. One query for the whole batch.
 */
export async function resolverFor(db: Database, vaultId: string, targets: Iterable<string>): Promise<TargetResolver> {
  const names = [...new Set([...targets].flatMap(fileNamesOf))];
  if (names.length === 0) return { resolve: () => undefined, incomplete: false };
  const rows = await db.query<NoteRow>(
    `SELECT ${NOTE_COLUMNS} FROM notes n
      WHERE n.vault_id = $1 AND regexp_replace(n.path_key, '^.*/', '') = ANY($2::text[])
      ORDER BY n.path_key COLLATE "C" LIMIT $3`,
    [vaultId, names, MAX_RESOLUTION_CANDIDATES + 1],
  );
  const incomplete = rows.length > MAX_RESOLUTION_CANDIDATES;
  const notes = new Map(rows.slice(0, MAX_RESOLUTION_CANDIDATES).map((row) => [row.path, refOf(row)]));
  const links = createLinkResolver(notes.keys());
  return {
    incomplete,
    resolve(target, sourcePath) {
      if (target.trim() === '') return undefined;
      const path = links.resolve(target, sourcePath);
      return path === undefined ? undefined : notes.get(path);
    },
  };
}

/** Most notes of one title a decision's subject can name. */
const MAX_TITLE_MATCHES = 20;

/** Current notes by title, case-insensitively (lowercased title to notes, by path; at most 20 each). */
export async function notesTitled(db: Database, vaultId: string, titles: readonly string[]): Promise<Map<string, NoteRef[]>> {
  const wanted = [...new Set(titles.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];
  const found = new Map<string, NoteRef[]>();
  if (wanted.length === 0) return found;
  const rows = await db.query<NoteRow>(
    `SELECT ${NOTE_COLUMNS} FROM notes n WHERE n.vault_id = $1 AND lower(n.title) = ANY($2::text[]) ORDER BY n.path COLLATE "C" LIMIT $3`,
    [vaultId, wanted, wanted.length * MAX_TITLE_MATCHES],
  );
  for (const row of rows) {
    const key = row.title.trim().toLowerCase();
    const list = found.get(key) ?? [];
    if (list.length < MAX_TITLE_MATCHES) list.push(refOf(row));
    found.set(key, list);
  }
  return found;
}
