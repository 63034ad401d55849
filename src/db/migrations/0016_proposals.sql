-- Governed proposals and approval the server can show (docs/proposals.md).

-- The owner's approval policy of a mapping: 'open' (as before: previews are advised, applies are checked by hash
-- only), 'preview-first' (an apply must match a preview receipt of the same credential within a bounded time),
-- 'people-approve' (agents only propose; a person approves on the workspace page).
ALTER TABLE mappings ADD COLUMN approval_policy text NOT NULL DEFAULT 'open'
  CHECK (approval_policy IN ('open', 'preview-first', 'people-approve'));

-- One row per preview of a note change: the hash of the exact actions previewed and of the revisions they were
-- previewed against, and who previewed. An apply looks for the receipt it matches and names it in its events.
-- Kept for a day (maintenance purges older ones); preview-first accepts receipts younger than its window.
CREATE TABLE preview_receipts (
  id uuid PRIMARY KEY,
  mapping_id uuid NOT NULL REFERENCES mappings (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  credential_kind text NOT NULL,
  credential_id uuid,
  notes_hash text NOT NULL,
  against_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX preview_receipts_match_idx ON preview_receipts (mapping_id, account_id, notes_hash, created_at);
CREATE INDEX preview_receipts_age_idx ON preview_receipts (created_at);

-- An agent's proposal of a note change, and its whole life: proposed, then a person's approval or rejection on the
-- workspace page, then execution of exactly the approved actions (or its failure), and perhaps an undo.
CREATE TABLE action_proposals (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  mapping_id uuid NOT NULL REFERENCES mappings (id) ON DELETE CASCADE,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  scope_id uuid REFERENCES context_scopes (id) ON DELETE SET NULL,
  kind text NOT NULL CHECK (kind IN ('knowledge-change', 'action')),
  state text NOT NULL CHECK (state IN ('proposed', 'approved', 'rejected', 'expired', 'executed', 'failed', 'undone')),
  title text NOT NULL,
  rationale text NOT NULL DEFAULT '',
  -- The exact canonical actions (path, content, expected hashes) and what the preview answered for them (with diffs).
  actions jsonb NOT NULL,
  preview jsonb NOT NULL,
  notes_hash text NOT NULL,
  against_hash text NOT NULL,
  proposed_by uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  proposed_credential_kind text NOT NULL,
  proposed_credential_id uuid,
  proposed_client text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  decided_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  decided_at timestamptz,
  decision_comment text,
  executed_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  executed_at timestamptz,
  -- The applied transaction's result, the contents the changed notes had before (what an undo writes back), and why
  -- an execution or an undo failed.
  result jsonb,
  before_contents jsonb,
  failure jsonb,
  undone_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  undone_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX action_proposals_mapping_idx ON action_proposals (mapping_id, state, seq);

-- Every step of every proposal, append-only: the receipt of who moved it from which state to which, when, and what
-- it applied (hashes before and after).
CREATE TABLE action_proposal_steps (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  proposal_id uuid NOT NULL REFERENCES action_proposals (id) ON DELETE CASCADE,
  step text NOT NULL,
  from_state text,
  to_state text NOT NULL,
  account_id uuid REFERENCES accounts (id) ON DELETE SET NULL,
  credential_kind text NOT NULL,
  client text,
  receipt jsonb NOT NULL DEFAULT '{}'::jsonb,
  at timestamptz NOT NULL
);
CREATE INDEX action_proposal_steps_proposal_idx ON action_proposal_steps (proposal_id, seq);
