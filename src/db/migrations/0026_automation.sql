-- The automation gateway (docs/automation.md; spec 3.3, 4.8, 6.4): events in, triggers, runs, proposals from
-- automation, and signed webhooks out, with every delivery attempt recorded as an execution.

-- An event as stored: normalized into the automation contract (version 1), once per workspace and idempotency key,
-- whoever retries it. The key is the delivery's identity: a second delivery with the same key is the same event.
CREATE TABLE automation_events (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  received_by uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  -- sha256 of the normalized event: the same key with another event is refused.
  fingerprint text NOT NULL,
  contract_version integer NOT NULL CHECK (contract_version = 1),
  type text NOT NULL,
  source text NOT NULL,
  subject text,
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  data jsonb NOT NULL,
  size_bytes integer NOT NULL CHECK (size_bytes >= 0),
  -- How many triggers it matched, and the runs it started (their ids), decided once at ingestion.
  matched_triggers integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX automation_events_key_idx ON automation_events (workspace_id, idempotency_key);
CREATE INDEX automation_events_recent_idx ON automation_events (workspace_id, seq DESC);

-- Registered webhook receivers of a workspace: https only, checked against private addresses at creation and at every
-- delivery. The signing secret is sealed (AES-256-GCM, the provider token keys): signing needs the secret itself, so
-- it cannot be a hash; it is shown once, at creation and at each rotation. A rotated-out secret keeps signing beside
-- the new one until previous_secret_expires_at, so receivers can roll over without dropping deliveries.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  -- Event types delivered to it (exact types or a `prefix.*`); empty: every type.
  event_types text[] NOT NULL DEFAULT '{}',
  secret_sealed text NOT NULL,
  -- The first characters of the secret, shown so people can tell secrets apart.
  secret_hint text NOT NULL,
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  secret_rotated_at timestamptz,
  created_by uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz,
  CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL))
);
CREATE INDEX webhook_endpoints_workspace_idx ON webhook_endpoints (workspace_id) WHERE deleted_at IS NULL;

-- A trigger: which events (or which schedule) start a run, and what the run does. Evaluated by the service under
-- the workspace's roles and the mapping's policy at run time, as its creator, never as the event's sender.
CREATE TABLE automation_triggers (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  -- `event`: matched against ingested events; `schedule`: due every interval_minutes.
  kind text NOT NULL CHECK (kind IN ('event', 'schedule')),
  event_type text,
  -- [{ field, equals }]: every condition must hold on the normalized event.
  conditions jsonb NOT NULL DEFAULT '[]',
  interval_minutes integer CHECK (interval_minutes IS NULL OR interval_minutes BETWEEN 1 AND 10080),
  next_due_at timestamptz,
  -- What a run does: { kind: 'webhook', endpointIds? } or { kind: 'propose', mappingId, path, content, title }.
  action jsonb NOT NULL,
  created_by uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  version integer NOT NULL DEFAULT 1,
  CHECK ((kind = 'event') = (event_type IS NOT NULL)),
  CHECK ((kind = 'schedule') = (interval_minutes IS NOT NULL))
);
CREATE INDEX automation_triggers_workspace_idx ON automation_triggers (workspace_id, created_at);
CREATE INDEX automation_triggers_due_idx ON automation_triggers (next_due_at) WHERE kind = 'schedule' AND enabled;

-- A run: one firing of a trigger, and every step it took. `queued` runs are due for `process` (and maintenance);
-- `waiting` runs wait for something outside (a person's verdict on their proposal, a webhook's deliveries).
CREATE TABLE automation_runs (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  trigger_id uuid REFERENCES automation_triggers (id) ON DELETE SET NULL,
  -- The trigger as it was when it fired (its action and version), so a later edit never changes a run.
  trigger_snapshot jsonb NOT NULL,
  event_id uuid REFERENCES automation_events (id) ON DELETE SET NULL,
  -- The account the run acts as: the trigger's creator, whose role is checked again at each step.
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'waiting', 'succeeded', 'failed')),
  due_at timestamptz NOT NULL,
  lease_until timestamptz,
  proposal_id uuid REFERENCES action_proposals (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  finished_at timestamptz,
  failure jsonb
);
-- One run per trigger and event: a trigger fires once for an event, however often the event is retried.
CREATE UNIQUE INDEX automation_runs_event_idx ON automation_runs (trigger_id, event_id) WHERE event_id IS NOT NULL;
CREATE INDEX automation_runs_due_idx ON automation_runs (due_at) WHERE state = 'queued';
CREATE INDEX automation_runs_workspace_idx ON automation_runs (workspace_id, seq DESC);
CREATE INDEX automation_runs_proposal_idx ON automation_runs (proposal_id) WHERE proposal_id IS NOT NULL;

-- Every step of a run, in order: matched, proposal created, waiting for review, executed, webhook queued, delivered.
CREATE TABLE automation_run_steps (
  run_id uuid NOT NULL REFERENCES automation_runs (id) ON DELETE CASCADE,
  n integer NOT NULL,
  step text NOT NULL,
  at timestamptz NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (run_id, n)
);

-- One message to one endpoint (its id is the Standard Webhooks `webhook-id`, the same on every attempt), and where
-- its delivery stands: retried with exponential backoff and jitter until delivered or given up.
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  run_id uuid REFERENCES automation_runs (id) ON DELETE SET NULL,
  event_type text NOT NULL,
  -- The exact JSON body sent (the same bytes on every attempt, so a receiver's signature check is stable).
  payload text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz,
  lease_until timestamptz,
  created_at timestamptz NOT NULL,
  finished_at timestamptz,
  CHECK ((state = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_run_idx ON webhook_deliveries (run_id) WHERE run_id IS NOT NULL;

-- Executions: every attempt of an outbound action, one row each: a webhook delivery attempt (its HTTP status or
-- why it failed, and when the next attempt is due) or the execution of an approved automation proposal.
CREATE TABLE automation_executions (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('webhook', 'proposal')),
  run_id uuid REFERENCES automation_runs (id) ON DELETE SET NULL,
  delivery_id text REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  endpoint_id uuid REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  proposal_id uuid REFERENCES action_proposals (id) ON DELETE SET NULL,
  attempt integer NOT NULL CHECK (attempt >= 1),
  -- succeeded; failed (this attempt; another is due at next_attempt_at); gave_up (the last attempt failed).
  outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'gave_up')),
  http_status integer,
  error_code text,
  detail text NOT NULL DEFAULT '',
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  next_attempt_at timestamptz
);
CREATE INDEX automation_executions_workspace_idx ON automation_executions (workspace_id, seq DESC);
CREATE INDEX automation_executions_delivery_idx ON automation_executions (delivery_id);

-- Proposals made through the automation gateway: which bridge proposed it and which run (if any) it belongs to. An
-- approved automation proposal may be executed by `process` (the bounded executor) as the person who approved it.
ALTER TABLE action_proposals ADD COLUMN origin text NOT NULL DEFAULT 'agent' CHECK (origin IN ('agent', 'automation'));
ALTER TABLE action_proposals ADD COLUMN automation_source text;
