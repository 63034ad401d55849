-- The knowledge layer's read side (docs/knowledge.md): every version of every record with the time this replica
-- came to know it, people's reviews of decisions, and context scopes.

-- Every version of a record. The current version of each record is its row of knowledge_records (with `seq`, the
-- order versions were made in, and `known_from`); a version a later change altered or removed moves to
-- knowledge_record_history with the time and revision of that change. So a change writes a record once, not twice,
-- and only a change that ends a version writes history. `known_from` is the time this replica stored the change that
-- made the version; it is null for a version compiled from content stored before receipts existed (its
-- availability before then is unknown, and known-at reads report it unavailable rather than guess).
CREATE SEQUENCE knowledge_version_seq;
ALTER TABLE knowledge_records
  ADD COLUMN seq bigint NOT NULL DEFAULT nextval('knowledge_version_seq'),
  ADD COLUMN known_from timestamptz;
CREATE TABLE knowledge_record_history (
  seq bigint PRIMARY KEY,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  record_id text NOT NULL,
  kind text NOT NULL,
  path text NOT NULL,
  record jsonb NOT NULL,
  revision text NOT NULL,
  known_from timestamptz,
  retired_at timestamptz NOT NULL,
  retired_revision text
);
CREATE INDEX knowledge_record_history_record_idx ON knowledge_record_history (vault_id, record_id, seq);
CREATE INDEX knowledge_record_history_entity_idx
  ON knowledge_record_history (vault_id, (record ->> 'entityType'), (record ->> 'entityId'))
  WHERE kind = 'assertion';
CREATE INDEX knowledge_records_entity_idx
  ON knowledge_records (vault_id, (record ->> 'entityType'), (record ->> 'entityId'))
  WHERE kind = 'assertion';

-- Every version, current and past, as temporal reads see them.
CREATE VIEW knowledge_record_versions AS
  SELECT seq, vault_id, record_id, kind, path, record, revision, known_from, retired_at, retired_revision
    FROM knowledge_record_history
  UNION ALL
  SELECT seq, vault_id, record_id, kind, path, record, revision, known_from, NULL::timestamptz, NULL::text
    FROM knowledge_records;

-- A person's verdict on a decision found in a note (spec 4.3 rule 8: never an agent's). Append-only: the latest
-- review of a record is its state, the earlier ones its history. `record_hash` is the decision's content when it
-- was reviewed: a decision edited afterwards is a candidate again until someone reviews it anew.
CREATE TABLE decision_reviews (
  id uuid PRIMARY KEY,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  record_id text NOT NULL,
  record_hash text NOT NULL,
  verdict text NOT NULL CHECK (verdict IN ('confirmed', 'rejected', 'superseded')),
  superseded_by text,
  reviewed_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  reviewed_at timestamptz NOT NULL,
  comment text NOT NULL DEFAULT ''
);
CREATE INDEX decision_reviews_record_idx ON decision_reviews (vault_id, record_id, reviewed_at);

-- A named slice of one mapping (path prefixes and/or tags) with its audience policy (docs/knowledge.md, "Scopes").
CREATE TABLE context_scopes (
  id uuid PRIMARY KEY,
  mapping_id uuid NOT NULL REFERENCES mappings (id) ON DELETE CASCADE,
  name text NOT NULL,
  path_prefixes text[] NOT NULL DEFAULT '{}',
  tags text[] NOT NULL DEFAULT '{}',
  minimum_role text NOT NULL CHECK (minimum_role IN ('owner', 'admin', 'editor', 'viewer')),
  agents boolean NOT NULL,
  created_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX context_scopes_name_idx ON context_scopes (mapping_id, lower(name));

-- The compiler's rules a note was compiled by: the background compiler recompiles notes compiled by older rules.
ALTER TABLE knowledge_notes ADD COLUMN compiler_version integer NOT NULL DEFAULT 1;

-- A hash of a record's substance (its content without evidence): a review holds for the decision as it was reviewed.
ALTER TABLE knowledge_records ADD COLUMN substance_hash text NOT NULL DEFAULT '';

-- Reads page through current records in a fixed order (path then id; commitments by due date first) and stop at
-- the page's end: these indexes give that order without sorting every record of a kind on every call.
DROP INDEX knowledge_records_kind_idx;
CREATE INDEX knowledge_records_order_idx ON knowledge_records (vault_id, kind, path COLLATE "C", record_id COLLATE "C");
CREATE INDEX knowledge_records_due_idx
  ON knowledge_records (vault_id, (COALESCE(record ->> 'due', '9999-12-31') COLLATE "C"), path COLLATE "C", record_id COLLATE "C")
  WHERE kind = 'commitment';

-- find_related and get_contradictions look notes and relation records up by the file name a link or relation
-- target names, and tensions and their history by record: without these, each call reads every note of the vault.
CREATE INDEX notes_file_name_idx ON notes (vault_id, regexp_replace(path_key, '^.*/', ''));
CREATE INDEX knowledge_records_relation_target_idx
  ON knowledge_records (vault_id, regexp_replace(regexp_replace(lower(record ->> 'target'), '^.*/', ''), '\.md$', ''))
  WHERE kind = 'relation';
CREATE INDEX knowledge_record_history_tension_idx ON knowledge_record_history (vault_id, path, record_id)
  WHERE kind = 'relation' AND record ->> 'type' = 'contradicts';
CREATE INDEX knowledge_records_tension_idx ON knowledge_records (vault_id, path, record_id)
  WHERE kind = 'relation' AND record ->> 'type' = 'contradicts';
CREATE INDEX knowledge_changes_record_idx ON knowledge_changes (vault_id, record_id, seq);
