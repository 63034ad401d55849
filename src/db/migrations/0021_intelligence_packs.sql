-- Published intelligence packs (docs/packs.md): curated, citable domain intelligence that belongs to one product.
-- Each publication is a new pack version, immutable once stored: its rows are never updated (a trigger refuses it),
-- and a newer version supersedes it as a whole without rewriting it. Rows go away only with their product.

-- A pack: a product's slug-named collection of pack versions.
CREATE TABLE intelligence_packs (
  id uuid PRIMARY KEY,
  product_id uuid NOT NULL REFERENCES runtime_products (id) ON DELETE CASCADE,
  slug text NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (product_id, slug)
);

-- One publication of a pack. content_hash is the SHA-256 of the validated pack's canonical JSON: publishing the same
-- content again answers the version that holds it instead of making a new one.
CREATE TABLE intelligence_pack_versions (
  id uuid PRIMARY KEY,
  pack_id uuid NOT NULL REFERENCES intelligence_packs (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version > 0),
  title text NOT NULL,
  content_hash text NOT NULL,
  -- Who published it: `operator` (the command line on the server) or `account:<id>` (an organization admin).
  published_by text NOT NULL,
  published_at timestamptz NOT NULL,
  source_count integer NOT NULL,
  assertion_count integer NOT NULL,
  insight_count integer NOT NULL,
  UNIQUE (pack_id, version)
);

-- Source texts, by the SHA-256 of their UTF-8 bytes: a source version carried over unchanged into the next pack
-- version is stored once.
CREATE TABLE intelligence_pack_texts (
  hash text PRIMARY KEY,
  text text NOT NULL
);

CREATE TABLE intelligence_pack_sources (
  pack_version_id uuid NOT NULL REFERENCES intelligence_pack_versions (id) ON DELETE CASCADE,
  source_id text NOT NULL,
  ordinal integer NOT NULL,
  title text NOT NULL,
  citation text NOT NULL,
  PRIMARY KEY (pack_version_id, source_id)
);

CREATE TABLE intelligence_pack_source_versions (
  pack_version_id uuid NOT NULL,
  source_id text NOT NULL,
  version text NOT NULL,
  ordinal integer NOT NULL,
  published_on date NOT NULL,
  reported_on date NOT NULL,
  extraction integer NOT NULL,
  text_hash text NOT NULL REFERENCES intelligence_pack_texts (hash),
  line_count integer NOT NULL,
  PRIMARY KEY (pack_version_id, source_id, version),
  FOREIGN KEY (pack_version_id, source_id) REFERENCES intelligence_pack_sources (pack_version_id, source_id) ON DELETE CASCADE
);

CREATE TABLE intelligence_pack_assertions (
  pack_version_id uuid NOT NULL REFERENCES intelligence_pack_versions (id) ON DELETE CASCADE,
  assertion_id text NOT NULL,
  ordinal integer NOT NULL,
  statement text NOT NULL,
  accepted_on date NOT NULL,
  retracted_on date,
  supersedes text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (pack_version_id, assertion_id)
);

CREATE TABLE intelligence_pack_evidence (
  pack_version_id uuid NOT NULL,
  assertion_id text NOT NULL,
  ordinal integer NOT NULL,
  source_id text NOT NULL,
  version text NOT NULL,
  first_line integer NOT NULL,
  last_line integer NOT NULL,
  quote text NOT NULL,
  PRIMARY KEY (pack_version_id, assertion_id, ordinal),
  FOREIGN KEY (pack_version_id, assertion_id) REFERENCES intelligence_pack_assertions (pack_version_id, assertion_id) ON DELETE CASCADE
);

CREATE TABLE intelligence_pack_insights (
  pack_version_id uuid NOT NULL REFERENCES intelligence_pack_versions (id) ON DELETE CASCADE,
  insight_id text NOT NULL,
  ordinal integer NOT NULL,
  statement text NOT NULL,
  available_from date NOT NULL,
  derived_from text[] NOT NULL,
  PRIMARY KEY (pack_version_id, insight_id)
);

-- Immutability: a published version's rows are never changed in place.
CREATE FUNCTION intelligence_packs_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'published intelligence pack versions are immutable (%)', TG_TABLE_NAME USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER intelligence_pack_versions_immutable BEFORE UPDATE ON intelligence_pack_versions
  FOR EACH ROW EXECUTE FUNCTION intelligence_packs_refuse_update();
CREATE TRIGGER intelligence_pack_texts_immutable BEFORE UPDATE ON intelligence_pack_texts
  FOR EACH ROW EXECUTE FUNCTION intelligence_packs_refuse_update();
CREATE TRIGGER intelligence_pack_sources_immutable BEFORE UPDATE ON intelligence_pack_sources
  FOR EACH ROW EXECUTE FUNCTION intelligence_packs_refuse_update();
CREATE TRIGGER intelligence_pack_source_versions_immutable BEFORE UPDATE ON intelligence_pack_source_versions
  FOR EACH ROW EXECUTE FUNCTION intelligence_packs_refuse_update();
CREATE TRIGGER intelligence_pack_assertions_immutable BEFORE UPDATE ON intelligence_pack_assertions
  FOR EACH ROW EXECUTE FUNCTION intelligence_packs_refuse_update();
CREATE TRIGGER intelligence_pack_evidence_immutable BEFORE UPDATE ON intelligence_pack_evidence
  FOR EACH ROW EXECUTE FUNCTION intelligence_packs_refuse_update();
CREATE TRIGGER intelligence_pack_insights_immutable BEFORE UPDATE ON intelligence_pack_insights
  FOR EACH ROW EXECUTE FUNCTION intelligence_packs_refuse_update();
