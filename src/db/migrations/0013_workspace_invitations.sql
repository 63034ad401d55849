-- Invitations to a team workspace (docs/workspaces.md): single-use links that expire. Only the SHA-256 of the
-- link's secret is kept; the link is shown once to the person who made it.
CREATE TABLE workspace_invitations (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
  token_hash text NOT NULL UNIQUE,
  created_by uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  revoked_at timestamptz
);
CREATE INDEX workspace_invitations_workspace_idx ON workspace_invitations (workspace_id);
