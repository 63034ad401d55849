-- A note's links leave with it through a trigger on the notes table instead of the foreign key
-- note_links.note_id -> notes (ON DELETE CASCADE). The key was checked for every link written: a lookup of the
-- note, and a lock on its row that rewrites the row's header, 130,000 times for a 20,000-note vault. A 20,000-note
-- first import on the embedded database took 8.1 s with it and 7.4 s without (2026-11-25, docs/benchmarks.md,
-- "Import throughput"); every applied change that writes links paid the same per link.
--
-- What the key guaranteed still holds:
-- - a link row names an existing note: writers insert a note's links in the transaction that wrote the note,
--   with the ids that write returned, under the vault's row lock (domains/notes/store.ts, replaceLinks);
-- - a link row lives no longer than its note: this trigger deletes the links of every deleted note, whatever the
--   DELETE (a note's deletion, or a vault's, which cascades to its notes), once per statement, in bulk.
CREATE FUNCTION note_links_follow_deleted_notes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM note_links l USING deleted_notes d WHERE l.note_id = d.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER notes_delete_links AFTER DELETE ON notes
  REFERENCING OLD TABLE AS deleted_notes
  FOR EACH STATEMENT EXECUTE FUNCTION note_links_follow_deleted_notes();

ALTER TABLE note_links DROP CONSTRAINT note_links_note_id_fkey;
