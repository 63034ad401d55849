import { textArrayParam, type Sql } from '../../db/port.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { isUuid } from '../../kernel/ids.ts';
import { chunks, lineCount } from './bulk.ts';
import type { StoredPack, StoredSource } from './contract.ts';
import type { PackAssertion, PackEvidence, PackInsight, ParsedPack } from './format/index.ts';
import { findPackVersionById } from './store.ts';

// SQL of one pack version's content (migration 0021): stored whole in one transaction with bulk statements, read
// back whole, never updated. Dates are `date` columns: written from 'YYYY-MM-DD' text and read back with to_char, so
// that no driver turns them into a Date at some time zone's midnight.

/** The version row of a publication, besides the pack's content. */
export interface NewPackVersion {
  id: string;
  packId: string;
  /** The next number after the pack's latest version (1 for the first). */
  version: number;
  /** packContentHash of the pack. */
  contentHash: string;
  /** `operator` or `account:<id>`. */
  publishedBy: string;
  publishedAt: Date;
}

/** Characters of a text column, for chunking (an approximation of its bytes that is cheap to take). */
const length = (text: string | undefined) => text?.length ?? 0;

/**
 * Inserts a whole parsed pack as a new pack version: its version row, the source texts not stored yet (by SHA-256 of
 * their UTF-8 bytes, so a text carried over from an earlier version is stored once), sources, source versions,
 * assertions, evidence and insights, each table in chunked multi-row statements. Run inside the publishing
 * transaction.
 */
export async function insertPackVersion(sql: Sql, row: NewPackVersion, pack: ParsedPack): Promise<void> {
  await sql.query(
    `INSERT INTO intelligence_pack_versions
       (id, pack_id, version, title, content_hash, published_by, published_at, source_count, assertion_count, insight_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [row.id, row.packId, row.version, pack.title, row.contentHash, row.publishedBy, row.publishedAt, pack.sources.length, pack.assertions.length, pack.insights.length],
  );
  await insertTexts(sql, pack);
  await insertSources(sql, row.id, pack);
  await insertAssertions(sql, row.id, pack.assertions);
  await insertInsights(sql, row.id, pack.insights);
}

async function insertTexts(sql: Sql, pack: ParsedPack): Promise<void> {
  const byHash = new Map<string, string>();
  for (const source of pack.sources) for (const version of source.versions) byHash.set(sha256Hex(version.text), version.text);
  // In hash order: two publications that share texts insert them in the same order, so neither waits on the other
  // while holding what the other waits on (a deadlock).
  const texts = [...byHash].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const chunk of chunks(texts, ([, text]) => text.length, 1_000)) {
    await sql.query(
      `INSERT INTO intelligence_pack_texts (hash, text) SELECT hash, text FROM unnest($1::text[], $2::text[]) AS t(hash, text)
       ON CONFLICT (hash) DO NOTHING`,
      [textArrayParam(chunk.map(([hash]) => hash)), textArrayParam(chunk.map(([, text]) => text))],
    );
  }
}

async function insertSources(sql: Sql, versionId: string, pack: ParsedPack): Promise<void> {
  const sources = pack.sources.map((source, ordinal) => ({ source, ordinal }));
  for (const chunk of chunks(sources, ({ source }) => length(source.title) + length(source.citation))) {
    await sql.query(
      `INSERT INTO intelligence_pack_sources (pack_version_id, source_id, ordinal, title, citation)
       SELECT $1, source_id, ordinal, title, citation FROM unnest($2::text[], $3::int[], $4::text[], $5::text[]) AS s(source_id, ordinal, title, citation)`,
      [
        versionId,
        textArrayParam(chunk.map(({ source }) => source.id)),
        chunk.map(({ ordinal }) => ordinal),
        textArrayParam(chunk.map(({ source }) => source.title)),
        textArrayParam(chunk.map(({ source }) => source.citation)),
      ],
    );
  }
  const versions = pack.sources.flatMap((source) => source.versions.map((version, ordinal) => ({ sourceId: source.id, version, ordinal })));
  for (const chunk of chunks(versions, () => 100)) {
    await sql.query(
      `INSERT INTO intelligence_pack_source_versions
         (pack_version_id, source_id, version, ordinal, published_on, reported_on, extraction, text_hash, line_count)
       SELECT $1, source_id, version, ordinal, published::date, reported::date, extraction, text_hash, line_count
         FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::int[], $8::text[], $9::int[])
              AS v(source_id, version, ordinal, published, reported, extraction, text_hash, line_count)`,
      [
        versionId,
        textArrayParam(chunk.map((v) => v.sourceId)),
        textArrayParam(chunk.map((v) => v.version.version)),
        chunk.map((v) => v.ordinal),
        textArrayParam(chunk.map((v) => v.version.published)),
        textArrayParam(chunk.map((v) => v.version.reported)),
        chunk.map((v) => v.version.extraction),
        textArrayParam(chunk.map((v) => sha256Hex(v.version.text))),
        chunk.map((v) => lineCount(v.version.text)),
      ],
    );
  }
}

async function insertAssertions(sql: Sql, versionId: string, assertions: readonly PackAssertion[]): Promise<void> {
  const rows = assertions.map((assertion, ordinal) => ({ assertion, ordinal }));
  const charsOf = ({ assertion }: (typeof rows)[number]) => length(assertion.id) + length(assertion.statement) + (assertion.supersedes ?? []).reduce((sum, id) => sum + id.length, 0);
  for (const chunk of chunks(rows, charsOf)) {
    // supersedes is a list per row; unnest cannot take an array of arrays of different lengths, so each travels as JSON.
    await sql.query(
      `INSERT INTO intelligence_pack_assertions (pack_version_id, assertion_id, ordinal, statement, accepted_on, retracted_on, supersedes)
       SELECT $1, assertion_id, ordinal, statement, accepted::date, retracted::date, ARRAY(SELECT jsonb_array_elements_text(supersedes::jsonb))
         FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[]) AS a(assertion_id, ordinal, statement, accepted, retracted, supersedes)`,
      [
        versionId,
        textArrayParam(chunk.map(({ assertion }) => assertion.id)),
        chunk.map(({ ordinal }) => ordinal),
        textArrayParam(chunk.map(({ assertion }) => assertion.statement)),
        textArrayParam(chunk.map(({ assertion }) => assertion.accepted)),
        textArrayParam(chunk.map(({ assertion }) => assertion.retracted ?? null)),
        textArrayParam(chunk.map(({ assertion }) => JSON.stringify(assertion.supersedes ?? []))),
      ],
    );
  }
  const evidence = assertions.flatMap((assertion) => assertion.evidence.map((piece, ordinal) => ({ assertionId: assertion.id, piece, ordinal })));
  for (const chunk of chunks(evidence, ({ assertionId, piece }) => assertionId.length + piece.quote.length)) {
    await sql.query(
      `INSERT INTO intelligence_pack_evidence (pack_version_id, assertion_id, ordinal, source_id, version, first_line, last_line, quote)
       SELECT $1, assertion_id, ordinal, source_id, version, first_line, last_line, quote
         FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::int[], $8::text[])
              AS e(assertion_id, ordinal, source_id, version, first_line, last_line, quote)`,
      [
        versionId,
        textArrayParam(chunk.map((e) => e.assertionId)),
        chunk.map((e) => e.ordinal),
        textArrayParam(chunk.map((e) => e.piece.source)),
        textArrayParam(chunk.map((e) => e.piece.version)),
        chunk.map((e) => e.piece.lines[0]),
        chunk.map((e) => e.piece.lines[1]),
        textArrayParam(chunk.map((e) => e.piece.quote)),
      ],
    );
  }
}

async function insertInsights(sql: Sql, versionId: string, insights: readonly PackInsight[]): Promise<void> {
  const rows = insights.map((insight, ordinal) => ({ insight, ordinal }));
  const charsOf = ({ insight }: (typeof rows)[number]) => length(insight.id) + length(insight.statement) + insight.derivedFrom.reduce((sum, id) => sum + id.length, 0);
  for (const chunk of chunks(rows, charsOf)) {
    await sql.query(
      `INSERT INTO intelligence_pack_insights (pack_version_id, insight_id, ordinal, statement, available_from, derived_from)
       SELECT $1, insight_id, ordinal, statement, available::date, ARRAY(SELECT jsonb_array_elements_text(derived_from::jsonb))
         FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[]) AS i(insight_id, ordinal, statement, available, derived_from)`,
      [
        versionId,
        textArrayParam(chunk.map(({ insight }) => insight.id)),
        chunk.map(({ ordinal }) => ordinal),
        textArrayParam(chunk.map(({ insight }) => insight.statement)),
        textArrayParam(chunk.map(({ insight }) => insight.availableFrom)),
        textArrayParam(chunk.map(({ insight }) => JSON.stringify(insight.derivedFrom))),
      ],
    );
  }
}

/** `to_char` keeps a `date` a calendar date: no driver parses it into a Date at some time zone's midnight. */
const DAY = (column: string) => `to_char(${column}, 'YYYY-MM-DD')`;

interface SourceRow {
  source_id: string;
  title: string;
  citation: string;
  [key: string]: unknown;
}

interface SourceVersionRow {
  source_id: string;
  version: string;
  published: string;
  reported: string;
  extraction: number;
  line_count: number;
  [key: string]: unknown;
}

interface AssertionRow {
  assertion_id: string;
  statement: string;
  accepted: string;
  retracted: string | null;
  supersedes: string[];
  [key: string]: unknown;
}

interface EvidenceRow {
  assertion_id: string;
  source_id: string;
  version: string;
  first_line: number;
  last_line: number;
  quote: string;
  [key: string]: unknown;
}

interface InsightRow {
  insight_id: string;
  statement: string;
  available_from: string;
  derived_from: string[];
  [key: string]: unknown;
}

/**
 * One stored pack version, whole: sources (without their texts, with their line counts) and their versions in the
 * manifest's order, assertions with their evidence and insights in the files' order. Optional fields that were absent
 * stay absent (no `retracted`, no empty `supersedes`), so the loaded pack equals the parsed one without its texts.
 */
export async function loadPackVersion(sql: Sql, versionId: string): Promise<StoredPack | undefined> {
  const info = await findPackVersionById(sql, versionId);
  if (!info) return undefined;
  const [sourceRows, versionRows, assertionRows, evidenceRows, insightRows] = await Promise.all([
    sql.query<SourceRow>(`SELECT source_id, title, citation FROM intelligence_pack_sources WHERE pack_version_id = $1 ORDER BY ordinal`, [versionId]),
    sql.query<SourceVersionRow>(
      `SELECT source_id, version, ${DAY('published_on')} AS published, ${DAY('reported_on')} AS reported, extraction, line_count
         FROM intelligence_pack_source_versions WHERE pack_version_id = $1 ORDER BY source_id, ordinal`,
      [versionId],
    ),
    sql.query<AssertionRow>(
      `SELECT assertion_id, statement, ${DAY('accepted_on')} AS accepted, ${DAY('retracted_on')} AS retracted, supersedes
         FROM intelligence_pack_assertions WHERE pack_version_id = $1 ORDER BY ordinal`,
      [versionId],
    ),
    sql.query<EvidenceRow>(
      `SELECT assertion_id, source_id, version, first_line, last_line, quote
         FROM intelligence_pack_evidence WHERE pack_version_id = $1 ORDER BY assertion_id, ordinal`,
      [versionId],
    ),
    sql.query<InsightRow>(
      `SELECT insight_id, statement, ${DAY('available_from')} AS available_from, derived_from
         FROM intelligence_pack_insights WHERE pack_version_id = $1 ORDER BY ordinal`,
      [versionId],
    ),
  ]);
  const sources: StoredSource[] = sourceRows.map((row) => ({ id: row.source_id, title: row.title, citation: row.citation, versions: [] }));
  const sourcesById = new Map(sources.map((source) => [source.id, source]));
  for (const row of versionRows) {
    sourcesById.get(row.source_id)?.versions.push({
      version: row.version,
      published: row.published,
      reported: row.reported,
      extraction: row.extraction,
      lineCount: row.line_count,
    });
  }
  const evidenceOf = new Map<string, PackEvidence[]>();
  for (const row of evidenceRows) {
    const list = evidenceOf.get(row.assertion_id) ?? [];
    list.push({ source: row.source_id, version: row.version, lines: [row.first_line, row.last_line], quote: row.quote });
    evidenceOf.set(row.assertion_id, list);
  }
  const assertions: PackAssertion[] = assertionRows.map((row) => ({
    id: row.assertion_id,
    statement: row.statement,
    accepted: row.accepted,
    ...(row.retracted !== null ? { retracted: row.retracted } : {}),
    ...(row.supersedes.length > 0 ? { supersedes: row.supersedes } : {}),
    evidence: evidenceOf.get(row.assertion_id) ?? [],
  }));
  const insights: PackInsight[] = insightRows.map((row) => ({
    id: row.insight_id,
    statement: row.statement,
    availableFrom: row.available_from,
    derivedFrom: row.derived_from,
  }));
  return { info, sources, assertions, insights };
}

/** The text of one source version of a pack version; undefined when the pack version has no such source version. */
export async function readSourceText(sql: Sql, versionId: string, sourceId: string, version: string): Promise<string | undefined> {
  if (!isUuid(versionId)) return undefined;
  const rows = await sql.query<{ text: string }>(
    `SELECT t.text FROM intelligence_pack_source_versions v JOIN intelligence_pack_texts t ON t.hash = v.text_hash
      WHERE v.pack_version_id = $1 AND v.source_id = $2 AND v.version = $3`,
    [versionId, sourceId, version],
  );
  return rows[0]?.text;
}
