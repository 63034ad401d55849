-- Governed writes over the Developer REST API: idempotency records, usage counters, per-account allowance
-- overrides, and the indexes that trash listing and the event feed read by.

-- One row per (principal, Idempotency-Key). The apply transaction itself turns an in-flight row into a completed
-- one with the stored outcome, so a change and its replayable answer commit together.
CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  key text NOT NULL,
  operation text NOT NULL,
  -- SHA-256 of the canonical request: the same key with another request is rejected, not replayed.
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_flight', 'completed')),
  -- JSON text, not jsonb: a replay returns the stored body with its original key order, byte for byte.
  outcome text,
  -- An in-flight row whose lease ran out belongs to a process that died; a retry may take it over.
  locked_until timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

-- Operations reserved per account, surface and period; a reservation is one conditional upsert, so concurrent
-- requests never push a counter past its allowance.
CREATE TABLE usage_counters (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  surface text NOT NULL CHECK (surface IN ('rest', 'mcp')),
  period text NOT NULL CHECK (period IN ('minute', 'month')),
  period_start timestamptz NOT NULL,
  used integer NOT NULL CHECK (used >= 0),
  PRIMARY KEY (account_id, surface, period, period_start)
);

-- Operator-set allowances that replace the plan's numbers for one account (e.g. a negotiated contract).
ALTER TABLE accounts ADD COLUMN allowance_overrides jsonb NOT NULL DEFAULT '{}'::jsonb;

CREATE INDEX trash_entries_live_idx ON trash_entries (vault_id, deleted_at DESC, id) WHERE restored_at IS NULL;
CREATE INDEX provenance_events_account_mapping_idx ON provenance_events (mapping_id, account_id, seq);
