import { textArrayParam, uuidArrayParam, type Sql } from '../../db/port.ts';
import { newId } from '../../kernel/ids.ts';
import { NOTE_MODEL_VERSION, deriveNoteIndex, type NoteIndexEntry } from './note-index.ts';
import type { NoteWrite } from './store.ts';

/** What an applied plan changes in a vault's notes; every row it names was read under the vault's lock. */
export interface NoteChanges {
  /** Ids of notes to remove (their links go with them). */
  deletes: readonly string[];
  /** Notes that keep their row, content and links, at a new path. */
  moves: ReadonlyArray<{ id: string; path: string; pathKey: string; title: string }>;
  /** Existing notes, by id, whose content (and maybe path) is replaced, with their links. */
  updates: ReadonlyArray<NoteWrite & { id: string }>;
  /** New notes. */
  creates: readonly NoteWrite[];
}

// The version the vault's counter has in this transaction, read after it was counted up: a scalar subquery, run once.
const CURRENT_VERSION = '(SELECT content_version FROM vaults WHERE id = $1)';

/**
 * Writes a planned change of a vault's notes: the vault's version counted up once, removals, moves, replaced and
 * new rows, and the replaced notes' links. The statements are sent together and run in order on the transaction's
 * connection (no statement waits for another's answer: ids come from the plan, the version from the counter row),
 * so the vault's lock is held for one round trip of them instead of one each. A new note whose path is taken fails
 * with a unique violation instead of overwriting what the plan did not see.
 */
export async function writeNoteChanges(sql: Sql, vaultId: string, changes: NoteChanges): Promise<void> {
  const { deletes, moves, updates } = changes;
  const creates = changes.creates.map((write) => ({ ...write, id: newId() }));
  if (deletes.length + moves.length + updates.length + creates.length === 0) return;
  const pending: Array<Promise<unknown>> = [sql.query('UPDATE vaults SET content_version = content_version + 1 WHERE id = $1', [vaultId])];
  if (deletes.length > 0) pending.push(sql.query('DELETE FROM notes WHERE vault_id = $1 AND id = ANY($2::uuid[])', [vaultId, deletes]));
  if (moves.length > 0) {
    pending.push(
      sql.query(
        `UPDATE notes n SET path = m.path, path_key = m.path_key, title = m.title, updated_at = now(), content_version = ${CURRENT_VERSION}
           FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS m(id, path, path_key, title)
          WHERE n.vault_id = $1 AND n.id = m.id`,
        [vaultId, moves.map((m) => m.id), moves.map((m) => m.path), moves.map((m) => m.pathKey), moves.map((m) => m.title)],
      ),
    );
  }
  const derivedOf = (write: NoteWrite): NoteIndexEntry => write.derived ?? deriveNoteIndex(write.content);
  const rows = (writes: ReadonlyArray<NoteWrite & { id: string }>) => {
    const derived = writes.map(derivedOf);
    return {
      derived,
      columns: [
        uuidArrayParam(writes.map((w) => w.id)),
        textArrayParam(writes.map((w) => w.path)),
        textArrayParam(writes.map((w) => w.pathKey)),
        textArrayParam(writes.map((w) => w.content)),
        textArrayParam(writes.map((w) => w.contentHash)),
        writes.map((w) => w.size),
        textArrayParam(writes.map((w) => w.title)),
        textArrayParam(derived.map((d) => d.searchText)),
        derived.map((d) => JSON.stringify(d.tagKeys)),
      ],
    };
  };
  const updated = rows(updates);
  const created = rows(creates);
  const UNNEST = `unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[], $10::jsonb[])
            AS w(id, path, path_key, content, content_hash, size, title, search_text, tags)`;
  if (updates.length > 0) {
    pending.push(
      sql.query(
        `UPDATE notes n SET path = w.path, path_key = w.path_key, content = w.content, content_hash = w.content_hash, size = w.size,
                title = w.title, updated_at = now(), content_version = ${CURRENT_VERSION}, search_text = w.search_text,
                tag_keys = ARRAY(SELECT jsonb_array_elements_text(w.tags)), model_version = $11
           FROM ${UNNEST}
          WHERE n.vault_id = $1 AND n.id = w.id`,
        [vaultId, ...updated.columns, NOTE_MODEL_VERSION],
      ),
    );
    pending.push(sql.query('DELETE FROM note_links WHERE note_id = ANY($1::uuid[])', [updates.map((u) => u.id)]));
  }
  if (creates.length > 0) {
    pending.push(
      sql.query(
        `INSERT INTO notes (id, vault_id, path, path_key, content, content_hash, size, title, content_version, search_text, tag_keys, model_version)
         SELECT id, $1, path, path_key, content, content_hash, size, title, ${CURRENT_VERSION}, search_text,
                ARRAY(SELECT jsonb_array_elements_text(tags)), $11
           FROM ${UNNEST}`,
        [vaultId, ...created.columns, NOTE_MODEL_VERSION],
      ),
    );
  }
  const links = [...updates.map((u, k) => ({ id: u.id, entry: updated.derived[k]! })), ...creates.map((c, k) => ({ id: c.id, entry: created.derived[k]! }))].flatMap(
    ({ id, entry }) => entry.links.map((link, ordinal) => ({ noteId: id, ordinal, ...link })),
  );
  if (links.length > 0) {
    pending.push(
      sql.query(
        `INSERT INTO note_links (note_id, ordinal, vault_id, kind, embed, target, target_name_key, heading, block_id, alias, line)
         SELECT note_id, ordinal, $1, kind, embed, target, target_name_key, heading, block_id, alias, line
           FROM unnest($2::uuid[], $3::int[], $4::text[], $5::boolean[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int[])
                AS l(note_id, ordinal, kind, embed, target, target_name_key, heading, block_id, alias, line)`,
        [
          vaultId,
          uuidArrayParam(links.map((r) => r.noteId)),
          links.map((r) => r.ordinal),
          textArrayParam(links.map((r) => r.kind)),
          links.map((r) => r.embed),
          textArrayParam(links.map((r) => r.target)),
          textArrayParam(links.map((r) => r.targetNameKey)),
          textArrayParam(links.map((r) => r.heading)),
          textArrayParam(links.map((r) => r.blockId)),
          textArrayParam(links.map((r) => r.alias)),
          links.map((r) => r.line),
        ],
      ),
    );
  }
  await Promise.all(pending);
}
