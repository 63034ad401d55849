-- Saved knowledge views, watches and their findings (docs/views.md).

-- A named, versioned query over the knowledge records of one context scope. The row holds what is current (the
-- latest version's name, for the name's uniqueness in the scope); every version, the first included, is a row of
-- knowledge_view_versions and is never changed.
CREATE TABLE knowledge_views (
  id uuid PRIMARY KEY,
  mapping_id uuid NOT NULL REFERENCES mappings (id) ON DELETE CASCADE,
  scope_id uuid NOT NULL REFERENCES context_scopes (id) ON DELETE CASCADE,
  name text NOT NULL,
  latest_version integer NOT NULL CHECK (latest_version >= 1),
  created_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX knowledge_views_name_idx ON knowledge_views (scope_id, lower(name));

CREATE TABLE knowledge_view_versions (
  view_id uuid NOT NULL REFERENCES knowledge_views (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  name text NOT NULL,
  definition jsonb NOT NULL,
  created_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (view_id, version)
);

-- A watch runs a view (a pinned version, or the latest when pinned_version is null) each time a change touches its
-- scope's folders, and compares the answer with the one before. `vault_id` finds a vault's watches when its notes
-- change. `over_limit`: the last run matched more records than a watch compares, so it recorded nothing;
-- `dropped_findings`: findings not recorded because the watch held as many unreviewed findings as it may.
CREATE TABLE knowledge_watches (
  id uuid PRIMARY KEY,
  view_id uuid NOT NULL REFERENCES knowledge_views (id) ON DELETE CASCADE,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  pinned_version integer,
  created_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  evaluated_at timestamptz NOT NULL,
  over_limit boolean NOT NULL DEFAULT false,
  dropped_findings integer NOT NULL DEFAULT 0
);
CREATE INDEX knowledge_watches_vault_idx ON knowledge_watches (vault_id);
CREATE INDEX knowledge_watches_view_idx ON knowledge_watches (view_id);

-- What a watch's last run matched: each record with a hash of how the view answered it, and the answer itself (so
-- that a record that stops matching, even one whose note is gone, is shown as it was last seen).
CREATE TABLE knowledge_watch_matches (
  watch_id uuid NOT NULL REFERENCES knowledge_watches (id) ON DELETE CASCADE,
  record_id text NOT NULL,
  item_hash text NOT NULL,
  item jsonb NOT NULL,
  PRIMARY KEY (watch_id, record_id)
);

-- A difference between two runs of a watch: a record that began to match, changed while matching, or stopped
-- matching, with the record as the run saw it. People move its review state on the workspace page only.
CREATE TABLE knowledge_watch_findings (
  seq bigserial PRIMARY KEY,
  id uuid NOT NULL UNIQUE,
  watch_id uuid NOT NULL REFERENCES knowledge_watches (id) ON DELETE CASCADE,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  path text NOT NULL,
  record_id text NOT NULL,
  change text NOT NULL CHECK (change IN ('matched', 'changed', 'unmatched')),
  item jsonb NOT NULL,
  view_version integer NOT NULL,
  found_at timestamptz NOT NULL,
  state text NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'acknowledged', 'dismissed', 'resolved')),
  state_changed_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  state_changed_at timestamptz
);
CREATE INDEX knowledge_watch_findings_watch_idx ON knowledge_watch_findings (watch_id, seq);
