-- Delegated provider connections of the Product Runtime (spec 4.7; docs/education.md, "Delegated provider
-- connections"). A product's installation connects Google (Drive and Classroom) on behalf of its customer: one
-- connection per installation and provider. Tokens are AES-256-GCM envelopes (KGATE_PROVIDER_TOKEN_KEYS) whose
-- associated data names the row, the installation and the customer, so a ciphertext copied elsewhere does not open;
-- they are dropped when the connection is revoked, and never leave the server.
CREATE TABLE education_connections (
  id uuid PRIMARY KEY,
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  customer_account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('google')),
  status text NOT NULL CHECK (status IN ('pending', 'active', 'revoked')),
  -- The provider scopes actually granted (never those asked for): they decide which services work.
  scopes text[] NOT NULL DEFAULT '{}',
  access_token_enc text,
  refresh_token_enc text,
  access_expires_at timestamptz,
  -- One refresh per connection at a time across processes.
  refresh_lease_until timestamptz,
  last_error text,
  connected_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (installation_id, provider),
  CHECK (status = 'active' OR (access_token_enc IS NULL AND refresh_token_enc IS NULL))
);

-- A started authorization: the state as its SHA-256 only, the PKCE verifier sealed; taken (deleted) by the one
-- callback that reads it, so a state answers once. `return_to` was checked against the product's registered return
-- origins when it was started, and is checked again at the callback.
CREATE TABLE education_connection_authorizations (
  state_hash text PRIMARY KEY,
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  customer_account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('google')),
  services text[] NOT NULL,
  return_to text NOT NULL,
  client_state text,
  code_verifier_enc text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX education_connection_authorizations_expiry_idx ON education_connection_authorizations (expires_at);

-- Retry safety of provider writes that have no idempotency key of their own (a Drive create or update, a Classroom
-- assignment): what a request under an idempotency key is about to write is recorded before the provider call, so a
-- retry after a lost answer finds what the first attempt did instead of doing it twice.
CREATE TABLE education_provider_intents (
  connection_id uuid NOT NULL REFERENCES education_connections (id) ON DELETE CASCADE,
  -- Whose key it is (the service principal's idempotency scope) and the key.
  claim_scope text NOT NULL,
  idempotency_key text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('drive.create', 'drive.update', 'classroom.assignment')),
  -- SHA-256 of the request the key was first used for: the same key for another request is refused.
  fingerprint text NOT NULL,
  -- drive.create: the file id generated before the create; drive.update: the file; classroom: the course.
  target text NOT NULL,
  -- drive.update: the SHA-256 of the bytes written; classroom: the assignment's title.
  detail text,
  -- classroom: the courseWork id once the provider answered.
  result_id text,
  started_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, claim_scope, idempotency_key)
);
CREATE INDEX education_provider_intents_started_idx ON education_provider_intents (started_at);
