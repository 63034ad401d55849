-- The knowledge layer's read side (docs/knowledge.md): every version of every record with the time this replica
-- came to know it, people's reviews of decisions, and context scopes.

-- Every version of a record: a new one when a change altered the record (evidence alone is no change), retired
-- when a later change altered or removed it. `known_from` is the time this replica stored the change that made
-- the version; it is null for a version compiled from content stored before receipts existed (its availability
-- before then is unknown, and known-at reads report it unavailable rather than guess).
CREATE TABLE knowledge_record_versions (
  seq bigserial PRIMARY KEY,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  record_id text NOT NULL,
  kind text NOT NULL,
  path text NOT NULL,
  record jsonb NOT NULL,
  revision text NOT NULL,
  known_from timestamptz,
  retired_at timestamptz,
  retired_revision text
);
CREATE INDEX knowledge_record_versions_record_idx ON knowledge_record_versions (vault_id, record_id, seq);
CREATE UNIQUE INDEX knowledge_record_versions_current_idx ON knowledge_record_versions (vault_id, record_id) WHERE retired_at IS NULL;
CREATE INDEX knowledge_record_versions_entity_idx
  ON knowledge_record_versions (vault_id, (record ->> 'entityType'), (record ->> 'entityId'))
  WHERE kind = 'assertion';

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
