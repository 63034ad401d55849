-- OAuth 2.1 authorization server for the hosted MCP resource (domains/oauth, docs/oauth.md).
-- Secrets (codes, access and refresh tokens) are stored as SHA-256 only, like personal access tokens.

-- Clients: registered dynamically (RFC 7591) or described by a client ID metadata document (an https URL as
-- client_id, fetched and validated; the row is the last accepted copy, shown on account pages).
CREATE TABLE oauth_clients (
  client_id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
  client_name text,
  client_uri text,
  logo_uri text,
  redirect_uris jsonb NOT NULL,
  -- The whole accepted metadata, as returned by registration.
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One grant per approved authorization: the consent an account gave one client, and the family of every code
-- and token issued from it. Revoking the grant revokes the family.
CREATE TABLE oauth_grants (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  -- The resource (audience) every token of the grant is bound to: {base}/api/mcp.
  resource text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Set when the code was exchanged; a grant whose code was never used is not a connection.
  activated_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  -- Why: 'owner', 'client', 'code_replay', 'refresh_replay'.
  revoked_reason text
);
CREATE INDEX oauth_grants_account_idx ON oauth_grants (account_id, client_id);

CREATE TABLE oauth_codes (
  code_hash text PRIMARY KEY,
  grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  redirect_uri text NOT NULL,
  -- PKCE S256 challenge (base64url SHA-256 of the verifier).
  code_challenge text NOT NULL,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz
);
CREATE INDEX oauth_codes_grant_idx ON oauth_codes (grant_id);

CREATE TABLE oauth_tokens (
  id uuid PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  scopes text[] NOT NULL,
  audience text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  -- Refresh tokens only: when it was exchanged for its successor. Presenting it again is a replay.
  rotated_at timestamptz
);
CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (grant_id);

-- Gateways cache resolved OAuth access tokens like personal access tokens (migration 0003): every change that
-- withdraws access notifies them with the account id.
CREATE TRIGGER oauth_grants_notify_credentials
  AFTER UPDATE OF revoked_at, scopes OR DELETE ON oauth_grants
  FOR EACH ROW EXECUTE FUNCTION kgate_notify_credentials();

CREATE TRIGGER oauth_tokens_notify_credentials
  AFTER UPDATE OF revoked_at, expires_at OR DELETE ON oauth_tokens
  FOR EACH ROW EXECUTE FUNCTION kgate_notify_credentials();

-- Signed-in browser sessions (domains/sessions). The cookie holds the secret; only its hash is stored.
CREATE TABLE web_sessions (
  id uuid PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX web_sessions_account_idx ON web_sessions (account_id);

-- Failed sign-ins per e-mail address, to slow password guessing (domains/sessions).
CREATE TABLE sign_in_failures (
  email_key text PRIMARY KEY,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL,
  locked_until timestamptz
);
