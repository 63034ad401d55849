-- note_links.vault_id is a copy of its note's vault, kept for the incoming-links index. Its foreign key checked,
-- for every link written, what the note's own key (note_id REFERENCES notes, cascading) already guarantees: a
-- link row lives exactly as long as its note, and a vault's deletion removes its notes and so their links. The
-- check was about a third of an import's link-writing time (docs/benchmarks.md, "Import"); writers set vault_id
-- from the note they write, in one place (domains/notes/store.ts, replaceLinks).
ALTER TABLE note_links DROP CONSTRAINT note_links_vault_id_fkey;
