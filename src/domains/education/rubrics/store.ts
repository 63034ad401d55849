import { uuidArrayParam, type Row, type Sql } from '../../../db/port.ts';
import { RubricContentSchema, type RubricContent, type RubricReviewMark, type RubricSummary, type RubricVersion } from './contract.ts';

// SQL of rubric drafts (migration 0025). A version is shown only once the metered call that drafted it settled: its
// ledger_id is recorded after the ledger settled (service.ts), so a version whose settlement failed never shows.

/** A version to store: what one settled draft call produced. */
export interface NewVersionRow {
  rubricId: string;
  organizationId: string;
  installationId: string;
  basedOnVersion: number | null;
  content: RubricContent;
  principalId: string;
  principalName: string;
  idempotencyKey: string;
  requestId: string;
  at: Date;
}

interface RubricRow extends Row {
  id: string;
  title: string;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
}

interface VersionRow extends Row {
  version: number;
  based_on_version: number | null;
  content: unknown;
  review: RubricReviewMark | null;
  reviewed_at: Date | null;
  created_at: Date;
  created_by_principal_id: string;
  created_by_principal_name: string;
  request_id: string;
  ledger_id: string;
}

/** The visible latest version number and title of each rubric (a subquery of its settled versions). */
const SUMMARY = `SELECT r.id, r.title, r.created_at, r.updated_at,
    (SELECT max(v.version) FROM education_rubric_versions v WHERE v.rubric_id = r.id AND v.ledger_id IS NOT NULL) AS latest_version
  FROM education_rubrics r`;

function summaryOf(row: RubricRow): RubricSummary {
  return { rubricId: row.id, title: row.title, latestVersion: row.latest_version, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() };
}

function versionOf(row: VersionRow): RubricVersion {
  return {
    version: row.version,
    basedOnVersion: row.based_on_version,
    status: 'proposed',
    review: row.review,
    reviewedAt: row.reviewed_at ? row.reviewed_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    createdBy: { principalId: row.created_by_principal_id, name: row.created_by_principal_name },
    requestId: row.request_id,
    ledgerId: row.ledger_id,
    content: RubricContentSchema.parse(row.content),
  };
}

/**
 * Stores a version under the rubric's row lock: a new rubric is created with version 1; an existing one takes its
 * latest_version + 1, so racing drafts of one rubric become n and n+1. Returns the version's number.
 */
export async function insertVersion(tx: Sql, row: NewVersionRow, isNew: boolean): Promise<number> {
  let version = 1;
  if (isNew) {
    await tx.query(
      `INSERT INTO education_rubrics (id, organization_id, installation_id, title, latest_version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 1, $5, $5)`,
      [row.rubricId, row.organizationId, row.installationId, row.content.title, row.at],
    );
  } else {
    const rows = await tx.query<{ latest_version: number }>(
      `UPDATE education_rubrics SET latest_version = latest_version + 1, title = $3, updated_at = $4
       WHERE id = $1 AND installation_id = $2 RETURNING latest_version`,
      [row.rubricId, row.installationId, row.content.title, row.at],
    );
    if (rows.length === 0) throw new Error('the rubric is gone');
    version = rows[0]!.latest_version;
  }
  await tx.query(
    `INSERT INTO education_rubric_versions (rubric_id, version, based_on_version, content, created_by_principal_id, created_by_principal_name,
       idempotency_key, request_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [row.rubricId, version, row.basedOnVersion, JSON.stringify(row.content), row.principalId, row.principalName, row.idempotencyKey, row.requestId, row.at],
  );
  return version;
}

/** Records the ledger row of the version a principal's key drafted; a version linked already keeps its link. */
export async function linkLedger(sql: Sql, principalId: string, idempotencyKey: string, ledgerId: string): Promise<void> {
  await sql.query(
    `UPDATE education_rubric_versions SET ledger_id = $3 WHERE created_by_principal_id = $1 AND idempotency_key = $2 AND ledger_id IS NULL`,
    [principalId, idempotencyKey, ledgerId],
  );
}

/** A rubric of the installation with its latest `limit` shown versions, newest first; undefined when none is shown. */
export async function selectRubric(
  sql: Sql,
  installationId: string,
  rubricId: string,
  limit: number,
): Promise<{ rubric: RubricSummary; versions: RubricVersion[]; truncated: boolean } | undefined> {
  const rubrics = await sql.query<RubricRow>(`${SUMMARY} WHERE r.id = $1 AND r.installation_id = $2`, [rubricId, installationId]);
  const rubric = rubrics[0];
  if (!rubric || rubric.latest_version === null) return undefined;
  const versions = await sql.query<VersionRow>(
    `SELECT * FROM education_rubric_versions WHERE rubric_id = $1 AND ledger_id IS NOT NULL ORDER BY version DESC LIMIT $2`,
    [rubricId, limit + 1],
  );
  return { rubric: summaryOf(rubric), versions: versions.slice(0, limit).map(versionOf), truncated: versions.length > limit };
}

/** The latest `limit` shown versions of each rubric (one statement for a page of rubrics), newest first. */
export async function selectLatestVersions(sql: Sql, rubricIds: readonly string[], limit: number): Promise<Map<string, { versions: RubricVersion[]; truncated: boolean }>> {
  const rows = await sql.query<VersionRow & { rubric_id: string }>(
    `SELECT * FROM (
       SELECT v.*, row_number() OVER (PARTITION BY v.rubric_id ORDER BY v.version DESC) AS rank
       FROM education_rubric_versions v WHERE v.rubric_id = ANY($1::uuid[]) AND v.ledger_id IS NOT NULL
     ) ranked WHERE rank <= $2 ORDER BY rubric_id, version DESC`,
    [uuidArrayParam(rubricIds), limit + 1],
  );
  const out = new Map<string, { versions: RubricVersion[]; truncated: boolean }>();
  for (const row of rows) {
    const entry = out.get(row.rubric_id) ?? { versions: [], truncated: false };
    if (entry.versions.length < limit) entry.versions.push(versionOf(row));
    else entry.truncated = true;
    out.set(row.rubric_id, entry);
  }
  return out;
}

/** Where a listing page starts: after this rubric (by updated_at, then id, both descending). */
export interface RubricCursor {
  updatedAt: string;
  id: string;
}

/** A page of the installation's rubrics that have a shown version, most recently changed first. */
export async function selectRubrics(sql: Sql, installationId: string, limit: number, after: RubricCursor | undefined): Promise<RubricSummary[]> {
  const rows = await sql.query<RubricRow>(
    `SELECT * FROM (${SUMMARY} WHERE r.installation_id = $1
       AND ($3::timestamptz IS NULL OR (r.updated_at, r.id) < ($3::timestamptz, $4::uuid))) s
     WHERE s.latest_version IS NOT NULL ORDER BY s.updated_at DESC, s.id DESC LIMIT $2`,
    [installationId, limit, after?.updatedAt ?? null, after?.id ?? null],
  );
  return rows.map(summaryOf);
}

/** An installation of the account, with its product's name, for the page. */
export interface AccountInstallationRow {
  installationId: string;
  productName: string;
  status: string;
}

/** The account's installations (as the installing customer), newest first, bounded. */
export async function selectAccountInstallations(sql: Sql, accountId: string, limit: number): Promise<AccountInstallationRow[]> {
  const rows = await sql.query<{ id: string; name: string; status: string }>(
    `SELECT i.id, p.name, i.status FROM runtime_installations i JOIN runtime_products p ON p.id = i.product_id
     WHERE i.customer_account_id = $1 ORDER BY i.created_at DESC, i.id DESC LIMIT $2`,
    [accountId, limit],
  );
  return rows.map((row) => ({ installationId: row.id, productName: row.name, status: row.status }));
}

/**
 * Marks a shown version reviewed or dismissed, for the installing account only, when its mark is still `expected`
 * (null: none). Answers what happened: `marked`, `not_found` (no such version the account may see) or `stale`.
 */
export async function markVersion(
  sql: Sql,
  accountId: string,
  target: { rubricId: string; version: number; mark: RubricReviewMark; expected: RubricReviewMark | null; at: Date },
): Promise<'marked' | 'not_found' | 'stale'> {
  const rows = await sql.query<{ review: RubricReviewMark | null; marked: boolean }>(
    `WITH target AS (
       SELECT v.rubric_id, v.version, v.review FROM education_rubric_versions v
       JOIN education_rubrics r ON r.id = v.rubric_id
       JOIN runtime_installations i ON i.id = r.installation_id
       WHERE v.rubric_id = $1 AND v.version = $2 AND v.ledger_id IS NOT NULL AND i.customer_account_id = $3
       FOR UPDATE OF v
     ), marked AS (
       UPDATE education_rubric_versions v SET review = $4, reviewed_by_account_id = $3, reviewed_at = $6
       FROM target t WHERE v.rubric_id = t.rubric_id AND v.version = t.version AND t.review IS NOT DISTINCT FROM $5::text
       RETURNING v.version
     )
     SELECT t.review, EXISTS (SELECT 1 FROM marked) AS marked FROM target t`,
    [target.rubricId, target.version, accountId, target.mark, target.expected, target.at],
  );
  const row = rows[0];
  if (!row) return 'not_found';
  return row.marked ? 'marked' : 'stale';
}
