-- Remote mappings: provider connections, the synchronized copy of remote notes, and sync state (docs/providers.md).

-- Every mapping now has a vault: a hosted mapping's vault holds its notes; a remote mapping's vault holds the copy
-- synchronized from the provider (the provider stays the source of truth), so that search, the graph and the
-- knowledge layer read remote notes exactly as hosted ones.
ALTER TABLE mappings DROP CONSTRAINT mappings_check;
ALTER TABLE mappings ALTER COLUMN vault_id SET NOT NULL;

-- An account's OAuth grant at one provider. Tokens are stored only as AES-256-GCM envelopes under a key from the
-- environment (domains/providers/token-crypto.ts); capabilities are decided from the scopes actually granted.
CREATE TABLE provider_connections (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('drive', 'dropbox', 'github')),
  provider_account_id text NOT NULL,
  provider_account_name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  scopes text[] NOT NULL,
  can_read boolean NOT NULL,
  can_write boolean NOT NULL,
  -- Null once revoked: a disconnected grant keeps no secret.
  access_token_enc text,
  refresh_token_enc text,
  access_expires_at timestamptz,
  -- One refresh at a time across processes: a provider that rotates refresh tokens (GitHub) would take a second
  -- refresh with the old token for a replay and revoke the grant.
  refresh_lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX provider_connections_active_idx ON provider_connections (account_id, provider, provider_account_id)
  WHERE status = 'active';
CREATE INDEX provider_connections_account_idx ON provider_connections (account_id);

-- A started authorization: the state is stored as its SHA-256 only, the PKCE verifier encrypted; single use,
-- ten minutes.
CREATE TABLE provider_authorizations (
  state_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('drive', 'dropbox', 'github')),
  code_verifier_enc text NOT NULL,
  want_write boolean NOT NULL,
  expires_at timestamptz NOT NULL
);

ALTER TABLE mappings ADD CONSTRAINT mappings_provider_connection_fk
  FOREIGN KEY (provider_connection_id) REFERENCES provider_connections (id);
-- The remote root as the adapter resolved it (domains/providers/port.ts, RemoteRoot).
ALTER TABLE mappings ADD COLUMN remote_config jsonb;
ALTER TABLE mappings ADD CONSTRAINT mappings_remote_check
  CHECK ((provider = 'hosted') = (provider_connection_id IS NULL AND remote_config IS NULL));

-- What the last sync saw of each remote file under a mapping's root, notes and other files alike.
-- content_hash: of the synchronized copy (null when no copy is kept: not a note, too large, device-encrypted).
CREATE TABLE remote_files (
  mapping_id uuid NOT NULL REFERENCES mappings (id) ON DELETE CASCADE,
  path_key text NOT NULL,
  path text NOT NULL,
  file_id text NOT NULL,
  revision text NOT NULL,
  size bigint NOT NULL,
  modified_at timestamptz,
  content_hash text,
  state text NOT NULL CHECK (state IN ('synced', 'not_a_note', 'too_large', 'encrypted', 'invalid_path', 'duplicate')),
  seen_generation bigint NOT NULL,
  PRIMARY KEY (mapping_id, path_key)
);

-- One row per remote mapping: where its sync stands, so that a crash resumes instead of starting over, and a lease
-- so that one process syncs a mapping at a time.
CREATE TABLE remote_sync (
  mapping_id uuid PRIMARY KEY REFERENCES mappings (id) ON DELETE CASCADE,
  phase text NOT NULL DEFAULT 'listing' CHECK (phase IN ('listing', 'incremental')),
  -- The change cursor to continue from: taken before a listing started, advanced after each applied page.
  change_cursor text,
  -- The listing page to continue from (null: from the start).
  list_page text,
  generation bigint NOT NULL DEFAULT 1,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'idle', 'error', 'rate_limited')),
  lease_owner text,
  lease_until timestamptz,
  next_run_at timestamptz NOT NULL DEFAULT now(),
  last_success_at timestamptz,
  last_error_code text,
  last_error text,
  failures integer NOT NULL DEFAULT 0,
  notes_synced integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX remote_sync_due_idx ON remote_sync (next_run_at);

-- An applied remote write in progress: recorded before the provider is asked, so that a retry with the same
-- idempotency key after a crash finds what the provider already holds instead of writing twice.
CREATE TABLE remote_write_intents (
  scope text NOT NULL,
  idempotency_key text NOT NULL,
  mapping_id uuid NOT NULL REFERENCES mappings (id) ON DELETE CASCADE,
  path text NOT NULL,
  action text NOT NULL CHECK (action IN ('write', 'delete')),
  before_hash text,
  after_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, idempotency_key)
);
