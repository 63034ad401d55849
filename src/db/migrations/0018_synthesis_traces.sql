-- Living synthesis (docs/synthesis.md) and execution traces (docs/traces.md).

-- The last build of each section of a scope's living brief: its text and items (each with the evidence it cites),
-- the fingerprint of the knowledge records it was built from (a read compares it with the records as they are now:
-- a difference makes the section stale until someone rebuilds it), and whether a person accepted this very build.
-- A rebuild that yields another fingerprint is a new draft: the acceptance of the build before it does not carry.
CREATE TABLE synthesis_sections (
  context_scope_id uuid NOT NULL REFERENCES context_scopes (id) ON DELETE CASCADE,
  section text NOT NULL CHECK (section IN ('confirmed-decisions', 'candidate-decisions', 'open-questions', 'open-commitments', 'tensions', 'current-facts')),
  build integer NOT NULL CHECK (build > 0),
  fingerprint text NOT NULL,
  body jsonb NOT NULL,
  method text NOT NULL CHECK (method = 'deterministic'),
  built_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  built_at timestamptz NOT NULL,
  accepted_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  accepted_at timestamptz,
  PRIMARY KEY (context_scope_id, section)
);

-- Every build and acceptance of a section, append-only: who did what to which build, and when.
CREATE TABLE synthesis_section_events (
  id uuid PRIMARY KEY,
  context_scope_id uuid NOT NULL REFERENCES context_scopes (id) ON DELETE CASCADE,
  section text NOT NULL,
  build integer NOT NULL,
  fingerprint text NOT NULL,
  action text NOT NULL CHECK (action IN ('built', 'accepted')),
  account_id uuid REFERENCES accounts (id) ON DELETE SET NULL,
  at timestamptz NOT NULL
);
CREATE INDEX synthesis_section_events_idx ON synthesis_section_events (context_scope_id, section, at);

-- A work session an owner published into a context scope: its ordered steps, each referencing notes (path and
-- revision), knowledge records and proposals as the owner saw them. Immutable once published; a read resolves every
-- reference again under the reader's authorization now. `session_id` is the owner's own name for the session.
CREATE TABLE trace_sessions (
  id uuid PRIMARY KEY,
  context_scope_id uuid NOT NULL REFERENCES context_scopes (id) ON DELETE CASCADE,
  session_id text NOT NULL,
  title text NOT NULL,
  agent text,
  started_at timestamptz,
  ended_at timestamptz,
  steps jsonb NOT NULL,
  step_count integer NOT NULL CHECK (step_count > 0),
  reference_count integer NOT NULL,
  published_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  published_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX trace_sessions_session_idx ON trace_sessions (context_scope_id, session_id);
CREATE INDEX trace_sessions_published_idx ON trace_sessions (context_scope_id, published_at DESC, id DESC);
