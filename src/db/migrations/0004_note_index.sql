-- The Markdown model of each hosted note, computed by domains/markdown when a change is applied
-- (domains/notes/note-index.ts) and stored beside the note, so that search, the link graph and later the
-- knowledge layer read one parse instead of re-parsing bodies.

-- Bumped by every statement that changes a vault's notes, under the vault row lock: in-memory indexes compare it
-- to know whether they are current, and notes.content_version tells them which notes changed since.
ALTER TABLE vaults ADD COLUMN content_version bigint NOT NULL DEFAULT 0;

ALTER TABLE notes ADD COLUMN content_version bigint NOT NULL DEFAULT 0;
-- The body as plain text for full-text search (markup reduced, frontmatter and comments left out).
ALTER TABLE notes ADD COLUMN search_text text NOT NULL DEFAULT '';
-- Lower-cased tags of the body and the frontmatter, without '#'.
ALTER TABLE notes ADD COLUMN tag_keys text[] NOT NULL DEFAULT '{}';
-- Which parser produced the columns above; a parser change bumps it and re-indexes older notes.
ALTER TABLE notes ADD COLUMN model_version integer NOT NULL DEFAULT 0;
CREATE INDEX notes_vault_version_idx ON notes (vault_id, content_version);

-- Every link a note makes: WikiLinks and embeds, and internal Markdown links. Targets are stored as written and
-- resolved when read, against the vault's current paths, so a note created later resolves links made earlier.
CREATE TABLE note_links (
  note_id uuid NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('wikilink', 'markdown')),
  embed boolean NOT NULL,
  -- The path part as written ('' for a link into the same note), and the lower-cased file name it names
  -- (last segment, without '.md'): a note's incoming links are found by its file name, then resolved.
  target text NOT NULL,
  target_name_key text NOT NULL,
  heading text,
  block_id text,
  alias text,
  line integer NOT NULL,
  PRIMARY KEY (note_id, ordinal)
);
CREATE INDEX note_links_vault_name_idx ON note_links (vault_id, target_name_key);
