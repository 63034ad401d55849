-- Knowledge records compiled from notes (docs/knowledge.md), the knowledge change events between revisions, and
-- observation receipts: when this replica first saw a note's content at a revision (known-at reads use only these).

-- The revision each note was last compiled at, records or not, so that the next change knows its "before".
CREATE TABLE knowledge_notes (
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  path text NOT NULL,
  revision text NOT NULL,
  compiled_at timestamptz NOT NULL,
  PRIMARY KEY (vault_id, path)
);

CREATE TABLE knowledge_records (
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  record_id text NOT NULL,
  path text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('decision', 'commitment', 'question', 'assertion', 'relation')),
  record jsonb NOT NULL,
  revision text NOT NULL,
  PRIMARY KEY (vault_id, record_id)
);
CREATE INDEX knowledge_records_path_idx ON knowledge_records (vault_id, path);
CREATE INDEX knowledge_records_kind_idx ON knowledge_records (vault_id, kind);

CREATE TABLE knowledge_changes (
  seq bigserial PRIMARY KEY,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  path text NOT NULL,
  type text NOT NULL,
  record_id text NOT NULL,
  record_kind text NOT NULL,
  before_revision text,
  after_revision text,
  before_value text,
  after_value text,
  created_at timestamptz NOT NULL
);
CREATE INDEX knowledge_changes_vault_idx ON knowledge_changes (vault_id, seq);

-- Observation receipts: the first time this replica saw `revision` of `path`. Never updated: a later sighting of the
-- same content does not move it, and an author's date in the note never does.
CREATE TABLE knowledge_observations (
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  path text NOT NULL,
  revision text NOT NULL,
  first_seen_at timestamptz NOT NULL,
  PRIMARY KEY (vault_id, path, revision)
);
