-- The link graph (domains/graph) reads a note's incoming links by the file name they name, in pages. This index
-- gives those candidates in a fixed order (source note, then link), so a page is a short index range read with
-- no sort, however many notes link to a popular name. It starts with the columns of note_links_vault_name_idx,
-- which it replaces: keeping both would only make every applied change write one more index.
CREATE INDEX note_links_incoming_idx ON note_links (vault_id, target_name_key, note_id, ordinal);
DROP INDEX note_links_vault_name_idx;
