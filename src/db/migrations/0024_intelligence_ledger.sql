-- The intelligence cost ledger (docs/budgets.md; spec 2.6, 7.9, 8 rules 3 and 4): every metered model request is
-- one row, reserved at its maximum bounded cost before anything is sent to the model, then settled at its actual
-- cost, released (the model certainly never accepted it), or recorded as a billable failure. The row is also the
-- request's idempotency record: a retried settled request replays its stored result without a second model call.

CREATE TABLE intelligence_ledger (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES runtime_organizations (id) ON DELETE CASCADE,
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  principal_id uuid NOT NULL REFERENCES runtime_service_principals (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  -- sha256 of the operation and its validated input: the same key with another request is refused.
  fingerprint text NOT NULL,
  metered_kind text NOT NULL,
  -- The UTC calendar month the request was reserved in, which is the month its cost counts in.
  month_start date NOT NULL,
  state text NOT NULL CHECK (state IN ('reserved', 'dispatched', 'settled', 'billable_failure', 'released')),
  reserved_microdollars bigint NOT NULL CHECK (reserved_microdollars >= 0),
  charged_microdollars bigint NOT NULL DEFAULT 0 CHECK (charged_microdollars >= 0 AND charged_microdollars <= reserved_microdollars),
  -- What the provider reported beyond the reservation: recorded, never charged.
  excess_microdollars bigint NOT NULL DEFAULT 0 CHECK (excess_microdollars >= 0),
  input_tokens integer NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
  output_tokens integer NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
  images integer NOT NULL DEFAULT 0 CHECK (images >= 0),
  -- True when a call was accepted but its usage never came back: the charge is then the whole reservation.
  usage_unknown boolean NOT NULL DEFAULT false,
  -- The model identity the request ran against ({ provider, chatModel, imageModel }).
  model jsonb NOT NULL,
  -- The settled answer, or the billable failure's error ({ code, message, details }), kept for replay.
  result jsonb,
  error jsonb,
  -- The usage receipt (service.product-intelligence-usage) of a settled or billable request.
  receipt jsonb,
  request_id text NOT NULL,
  created_at timestamptz NOT NULL,
  dispatched_at timestamptz,
  finished_at timestamptz,
  -- Set when expiry, not the request itself, finished the row (a process that stopped mid-request).
  expired_at timestamptz,
  -- A reserved row not dispatched by then is released; a dispatched row not settled by then is a billable failure.
  dispatch_deadline timestamptz NOT NULL,
  settle_deadline timestamptz,
  CHECK ((state = 'settled') = (result IS NOT NULL)),
  CHECK (state NOT IN ('released', 'reserved', 'dispatched') OR charged_microdollars = 0),
  CHECK (state <> 'dispatched' OR settle_deadline IS NOT NULL)
);
-- One live row per principal and key; a released row (never accepted by the model) frees its key for a new row.
CREATE UNIQUE INDEX intelligence_ledger_key_idx ON intelligence_ledger (principal_id, idempotency_key) WHERE state <> 'released';
-- Running rows, for expiry (per organization at the start of each request, and all of them from maintenance).
CREATE INDEX intelligence_ledger_running_idx ON intelligence_ledger (organization_id, dispatch_deadline, settle_deadline)
  WHERE state IN ('reserved', 'dispatched');
CREATE INDEX intelligence_ledger_recent_idx ON intelligence_ledger (organization_id, created_at DESC);
CREATE INDEX intelligence_ledger_installation_idx ON intelligence_ledger (installation_id);

-- What an organization holds of a month: reservations of running requests plus charges of finished ones. A
-- reservation adds to it only while the sum stays within the budget, in one conditional statement per counter, so
-- concurrent reservations can never pass it. `ceiling_microdollars` is the budget the last successful reservation
-- was checked against; the CHECK is a second guard that no statement ever takes the counter past it.
CREATE TABLE intelligence_organization_months (
  organization_id uuid NOT NULL REFERENCES runtime_organizations (id) ON DELETE CASCADE,
  month_start date NOT NULL,
  held_microdollars bigint NOT NULL CHECK (held_microdollars >= 0),
  ceiling_microdollars bigint,
  PRIMARY KEY (organization_id, month_start),
  CHECK (ceiling_microdollars IS NULL OR held_microdollars <= ceiling_microdollars)
);

-- The same per installation and month, against its optional sublimit (null ceiling: no sublimit).
CREATE TABLE intelligence_installation_months (
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  month_start date NOT NULL,
  held_microdollars bigint NOT NULL CHECK (held_microdollars >= 0),
  ceiling_microdollars bigint,
  PRIMARY KEY (installation_id, month_start),
  CHECK (ceiling_microdollars IS NULL OR held_microdollars <= ceiling_microdollars)
);

-- The organization's running metered requests (reserved or dispatched rows), against maxConcurrentIntelligence.
CREATE TABLE intelligence_running (
  organization_id uuid PRIMARY KEY REFERENCES runtime_organizations (id) ON DELETE CASCADE,
  running integer NOT NULL CHECK (running >= 0),
  ceiling integer,
  CHECK (ceiling IS NULL OR running <= ceiling)
);
