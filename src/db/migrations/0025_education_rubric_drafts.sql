-- Rubric drafts of the Product Runtime (docs/education.md, "Rubric drafts"; spec 4.7 rubric-draft): rubrics a product
-- drafts for its installation through the metered rubric-draft call, kept as immutable versions. Every version is a
-- proposal (`status` is always `proposed`): nothing applies a rubric to a learner. A person of the installing account
-- may mark a version reviewed or dismissed on the workspace page, which records who and when and applies nothing.

CREATE TABLE education_rubrics (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES runtime_organizations (id) ON DELETE CASCADE,
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  -- The title of its latest version, for listings.
  title text NOT NULL,
  -- The highest version number given out; a new version takes the next one under this row's lock, so racing drafts
  -- of one rubric become n and n+1 and none is lost.
  latest_version integer NOT NULL CHECK (latest_version >= 1),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX education_rubrics_installation_idx ON education_rubrics (installation_id, updated_at DESC, id DESC);

CREATE TABLE education_rubric_versions (
  rubric_id uuid NOT NULL REFERENCES education_rubrics (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  -- The version this draft started from (rubricId of the request: its latest version then), or null for a first draft.
  based_on_version integer,
  -- The validated draft: title, level labels, weighted criteria with their descriptors and alignment.
  content jsonb NOT NULL,
  status text NOT NULL DEFAULT 'proposed' CHECK (status = 'proposed'),
  -- The service principal whose metered call drafted it (kept after the principal is gone: history, not authority).
  created_by_principal_id uuid NOT NULL,
  created_by_principal_name text NOT NULL,
  -- The metered call: its Idempotency-Key, its HTTP request id (the ledger row's request_id and the usage receipt's
  -- requestId), and the ledger row's id once the call settled (the usage receipt's ledgerId).
  idempotency_key text NOT NULL,
  request_id text NOT NULL,
  ledger_id uuid,
  created_at timestamptz NOT NULL,
  -- A person's mark: reviewed or dismissed, by which account and when. It changes nothing else.
  review text CHECK (review IN ('reviewed', 'dismissed')),
  reviewed_by_account_id uuid REFERENCES accounts (id) ON DELETE SET NULL,
  reviewed_at timestamptz,
  PRIMARY KEY (rubric_id, version),
  CHECK ((review IS NULL) = (reviewed_at IS NULL))
);
-- One version per metered request: the ledger already runs a key's work once; this is the second guard.
CREATE UNIQUE INDEX education_rubric_versions_key_idx ON education_rubric_versions (created_by_principal_id, idempotency_key);

-- Versions are immutable: only the review mark and the ledger link (once, from null) may change.
CREATE FUNCTION education_rubric_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.rubric_id <> OLD.rubric_id OR NEW.version <> OLD.version OR NEW.content <> OLD.content
     OR NEW.based_on_version IS DISTINCT FROM OLD.based_on_version OR NEW.status <> OLD.status
     OR NEW.created_by_principal_id <> OLD.created_by_principal_id OR NEW.request_id <> OLD.request_id
     OR NEW.idempotency_key <> OLD.idempotency_key OR NEW.created_at <> OLD.created_at
     OR (OLD.ledger_id IS NOT NULL AND NEW.ledger_id IS DISTINCT FROM OLD.ledger_id) THEN
    RAISE EXCEPTION 'rubric versions are immutable';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER education_rubric_versions_immutable BEFORE UPDATE ON education_rubric_versions
  FOR EACH ROW EXECUTE FUNCTION education_rubric_versions_immutable();
