-- Private media of the Product Runtime (docs/education.md, "Private audio media"): audio a product stores for its
-- installation, readable by that installation only, within the organization's storage ceiling (spec 2.6
-- mediaStorageBytes) under any concurrency.

-- What each organization's private media takes, reserved before any byte is stored: one conditional statement per
-- upload adds its size only while the total stays within the ceiling, so concurrent uploads can never pass it.
CREATE TABLE media_storage_usage (
  organization_id uuid PRIMARY KEY REFERENCES runtime_organizations (id) ON DELETE CASCADE,
  used_bytes bigint NOT NULL CHECK (used_bytes >= 0)
);

-- One private media object. `pending` from its reservation until the upload's answer commits, in the same transaction
-- as the answer stored under its idempotency key; only `stored` rows are ever read. A pending row left behind by a
-- process that stopped half-way is swept: its bytes are deleted and its reservation released.
CREATE TABLE media_objects (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES runtime_organizations (id) ON DELETE CASCADE,
  installation_id uuid NOT NULL REFERENCES runtime_installations (id) ON DELETE CASCADE,
  principal_id uuid NOT NULL REFERENCES runtime_service_principals (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('audio')),
  -- The product's own opaque reference (its id for the recording); stored and answered, never interpreted.
  reference text NOT NULL,
  content_type text NOT NULL,
  byte_size bigint NOT NULL CHECK (byte_size > 0),
  -- Declared by the product, not decoded (spec 8 rule 5).
  duration_ms integer NOT NULL CHECK (duration_ms > 0),
  sha256 text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'stored')),
  created_at timestamptz NOT NULL
);
CREATE INDEX media_objects_pending_idx ON media_objects (created_at) WHERE state = 'pending';

-- The bytes of media kept in the database (the default store); a directory or an S3-compatible store keeps them
-- there instead, under the same key.
CREATE TABLE media_blobs (
  key text PRIMARY KEY,
  bytes bytea NOT NULL
);
-- Audio is compressed already: kept out of line and uncompressed, so that a range read fetches only the chunks it needs.
ALTER TABLE media_blobs ALTER COLUMN bytes SET STORAGE EXTERNAL;
