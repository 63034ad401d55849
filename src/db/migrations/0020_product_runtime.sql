-- Product Runtime (docs/runtime.md): the authorization chain of first-party and partner products, each link a
-- server-held record checked on every call: organization -> product -> installation -> service principal ->
-- credential scopes -> workspace assignment -> vault grant -> context scope.

-- A product organization: the company that makes products. Its settings.productRuntime holds the shared ceilings of
-- spec 2.6 (apiOperationsPerMonth, intelligenceBudgetMicrodollarsMonthly, maxConcurrentIntelligence,
-- mediaStorageBytes); a suspended organization's every credential stops at once.
CREATE TABLE runtime_organizations (
  id uuid PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  settings jsonb NOT NULL DEFAULT '{}',
  -- The organization's brand profile: bounded presentation overrides, applied only after authorization.
  brand jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The accounts that administer an organization: its products, principals and credentials.
CREATE TABLE runtime_organization_admins (
  organization_id uuid NOT NULL REFERENCES runtime_organizations (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, account_id)
);
CREATE INDEX runtime_organization_admins_account_idx ON runtime_organization_admins (account_id);

-- A product definition: its domain intelligence pack (for example education) and product experience pack are data
-- for presentation and domain semantics, never authority. A retired product's installations stop.
CREATE TABLE runtime_products (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES runtime_organizations (id) ON DELETE CASCADE,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
  domain_pack text,
  experience_pack jsonb,
  -- HTTPS return origins or exact redirect URIs of delegated provider connections (spec 4.7).
  return_origins text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runtime_products_organization_idx ON runtime_products (organization_id);

-- A customer's installation of a product: the customer account that installed it decides which of its workspaces
-- and vaults the product reaches; configuration.productRuntime.intelligenceBudgetMicrodollarsMonthly is the
-- installation's optional lower budget sublimit.
CREATE TABLE runtime_installations (
  id uuid PRIMARY KEY,
  product_id uuid NOT NULL REFERENCES runtime_products (id) ON DELETE CASCADE,
  customer_account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'uninstalled')),
  configuration jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  uninstalled_at timestamptz
);
CREATE UNIQUE INDEX runtime_installations_active_idx ON runtime_installations (product_id, customer_account_id)
  WHERE status = 'active';
CREATE INDEX runtime_installations_customer_idx ON runtime_installations (customer_account_id);

-- The customer's workspaces the installation may work in (organization workspace assignment).
CREATE TABLE runtime_workspace_assignments (
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  assigned_by uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (installation_id, workspace_id)
);

-- The logical vaults of an assigned workspace the installation may read, or read and publish to.
CREATE TABLE runtime_vault_grants (
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  access text NOT NULL CHECK (access IN ('read', 'publish')),
  granted_by uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- When the product last bound this vault as its hosted vault (bindHostedVault); a binding grants nothing.
  bound_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (installation_id, vault_id),
  FOREIGN KEY (installation_id, workspace_id) REFERENCES runtime_workspace_assignments (installation_id, workspace_id) ON DELETE CASCADE
);

-- An installation's service principal and the scopes its credentials may carry.
CREATE TABLE runtime_service_principals (
  id uuid PRIMARY KEY,
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  name text NOT NULL,
  scopes text[] NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX runtime_service_principals_installation_idx ON runtime_service_principals (installation_id);

-- A principal's client credentials: a client secret (stored as its SHA-256 only) or a public key for
-- private_key_jwt (RFC 7523). Several may be active at once, which is how rotation works without downtime.
CREATE TABLE runtime_principal_credentials (
  id uuid PRIMARY KEY,
  principal_id uuid NOT NULL REFERENCES runtime_service_principals (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('client_secret', 'public_key')),
  secret_hash text UNIQUE,
  secret_last_four text,
  public_jwk jsonb,
  key_id text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  CHECK ((kind = 'client_secret') = (secret_hash IS NOT NULL)),
  CHECK ((kind = 'public_key') = (public_jwk IS NOT NULL))
);
CREATE INDEX runtime_principal_credentials_principal_idx ON runtime_principal_credentials (principal_id);

-- Short-lived access tokens bound to the Product Runtime audience, stored as their SHA-256 only.
CREATE TABLE runtime_access_tokens (
  token_hash text PRIMARY KEY,
  principal_id uuid NOT NULL REFERENCES runtime_service_principals (id) ON DELETE CASCADE,
  credential_id uuid NOT NULL REFERENCES runtime_principal_credentials (id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runtime_access_tokens_principal_idx ON runtime_access_tokens (principal_id);
CREATE INDEX runtime_access_tokens_expiry_idx ON runtime_access_tokens (expires_at);

-- Client assertions seen (RFC 7523 section 3: a jti is used once), kept until the assertion would expire anyway.
CREATE TABLE runtime_assertion_ids (
  principal_id uuid NOT NULL REFERENCES runtime_service_principals (id) ON DELETE CASCADE,
  jti text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (principal_id, jti)
);

-- Product Runtime operations counted per organization and month (apiOperationsPerMonth), reserved before execution.
CREATE TABLE runtime_usage (
  organization_id uuid NOT NULL REFERENCES runtime_organizations (id) ON DELETE CASCADE,
  month_start date NOT NULL,
  used integer NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (organization_id, month_start)
);

-- Shared memory a product proposes for a context scope: a candidate is never trusted memory until a person accepts it.
CREATE TABLE runtime_memory_candidates (
  id uuid PRIMARY KEY,
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  principal_id uuid NOT NULL REFERENCES runtime_service_principals (id) ON DELETE CASCADE,
  scope_id uuid NOT NULL REFERENCES context_scopes (id) ON DELETE CASCADE,
  vault_id uuid NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
  title text NOT NULL,
  body text NOT NULL,
  evidence jsonb NOT NULL DEFAULT '[]',
  status text NOT NULL DEFAULT 'candidate' CHECK (status IN ('candidate', 'accepted', 'rejected')),
  decided_by uuid REFERENCES accounts (id) ON DELETE SET NULL,
  decided_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runtime_memory_candidates_scope_idx ON runtime_memory_candidates (scope_id, status, created_at DESC);
CREATE INDEX runtime_memory_candidates_vault_idx ON runtime_memory_candidates (vault_id, status, decided_at DESC);
