-- Core model: accounts, workspaces and roles, hosted vaults, mappings, hosted notes, trash, provenance, tokens.
-- Written to what PostgreSQL 15 supports (CI's server); PGlite runs PostgreSQL 18.

CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  -- Lower-cased email: one account per address whatever its case.
  email_key text NOT NULL UNIQUE,
  display_name text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'developer', 'team')),
  -- scrypt hash (see domains/accounts/password.ts); null until a password is set.
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE workspaces (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  created_by uuid NOT NULL REFERENCES accounts (id),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE workspace_members (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, account_id)
);
CREATE INDEX workspace_members_account_idx ON workspace_members (account_id);

-- A hosted vault keeps its notes in this database.
CREATE TABLE vaults (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX vaults_workspace_idx ON vaults (workspace_id);

-- The synchronized workspace mapping a caller names with mappingId.
CREATE TABLE mappings (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  owner_account_id uuid NOT NULL REFERENCES accounts (id),
  provider text NOT NULL CHECK (provider IN ('hosted', 'drive', 'dropbox', 'github')),
  vault_id uuid REFERENCES vaults (id) ON DELETE CASCADE,
  name text NOT NULL,
  read_only boolean NOT NULL DEFAULT false,
  pull_only boolean NOT NULL DEFAULT false,
  -- "Allow hosted MCP note changes": the owner's switch for this exact mapping.
  allow_mcp_note_changes boolean NOT NULL DEFAULT false,
  device_encrypted boolean NOT NULL DEFAULT false,
  -- Remote kinds only; the provider-connection table arrives with the provider adapters.
  provider_connection_id uuid,
  remote_root text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((provider = 'hosted') = (vault_id IS NOT NULL))
);
CREATE INDEX mappings_owner_idx ON mappings (owner_account_id);
CREATE INDEX mappings_vault_idx ON mappings (vault_id);

CREATE TABLE notes (
  id uuid PRIMARY KEY,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  -- Canonical (NFC) vault-relative path, and its case-folded uniqueness key (kernel/vault-path.ts).
  path text NOT NULL,
  path_key text NOT NULL,
  content text NOT NULL,
  -- 'sha256:' + hex of the UTF-8 bytes; also the revision of a hosted note.
  content_hash text NOT NULL,
  size integer NOT NULL CHECK (size >= 0),
  title text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (vault_id, path_key)
);
-- Inventory pages in path order.
CREATE INDEX notes_vault_path_idx ON notes (vault_id, path COLLATE "C");

-- A deleted note's last content, written before the live note is removed, so that it can be restored.
CREATE TABLE trash_entries (
  id uuid PRIMARY KEY,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  original_path text NOT NULL,
  content text NOT NULL,
  content_hash text NOT NULL,
  size integer NOT NULL,
  title text NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  deleted_by uuid NOT NULL REFERENCES accounts (id),
  restored_at timestamptz
);
CREATE INDEX trash_entries_vault_idx ON trash_entries (vault_id, deleted_at DESC);

-- Append-only record of every applied change. seq is the `since` cursor; writers to one vault serialize on the
-- vault row, so seq order is commit order within a vault (domains/provenance).
CREATE TABLE provenance_events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id uuid NOT NULL UNIQUE,
  mapping_id uuid REFERENCES mappings (id) ON DELETE CASCADE,
  vault_id uuid REFERENCES vaults (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id),
  credential_kind text NOT NULL,
  credential_id uuid,
  client text,
  kind text NOT NULL,
  path text,
  before_revision text,
  after_revision text,
  idempotency_key text,
  trash_id uuid,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX provenance_events_mapping_idx ON provenance_events (mapping_id, seq);

-- Personal access tokens: only the SHA-256 of the token is stored.
CREATE TABLE personal_access_tokens (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  last_four text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  -- Set when the token was rotated: the token that replaced it.
  replaced_by uuid REFERENCES personal_access_tokens (id)
);
CREATE INDEX personal_access_tokens_account_idx ON personal_access_tokens (account_id);
