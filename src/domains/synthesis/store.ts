import type { Sql } from '../../db/port.ts';
import { newId } from '../../kernel/ids.ts';
import type { SectionBody, SectionKind } from './contract.ts';

/** The stored build of a section. */
export interface SectionRow {
  section: SectionKind;
  build: number;
  fingerprint: string;
  body: SectionBody;
  builtBy: string | null;
  builtAt: Date;
  acceptedBy: string | null;
  acceptedAt: Date | null;
}

interface RawRow {
  [column: string]: unknown;
  section: SectionKind;
  build: number;
  fingerprint: string;
  body: SectionBody;
  built_by: string | null;
  built_at: Date;
  accepted_by: string | null;
  accepted_at: Date | null;
}

const rowOf = (r: RawRow): SectionRow => ({
  section: r.section,
  build: r.build,
  fingerprint: r.fingerprint,
  body: r.body,
  builtBy: r.built_by,
  builtAt: r.built_at,
  acceptedBy: r.accepted_by,
  acceptedAt: r.accepted_at,
});

/**
 * The stored sections of a scope, by kind. `forUpdate` first locks the scope's row: changes of one scope's brief take
 * turns, the first build of a section included (no section row to lock exists yet then).
 */
export async function loadSections(sql: Sql, scopeId: string, forUpdate = false): Promise<Map<SectionKind, SectionRow>> {
  if (forUpdate) await sql.query('SELECT id FROM context_scopes WHERE id = $1 FOR UPDATE', [scopeId]);
  const rows = await sql.query<RawRow>(
    `SELECT section, build, fingerprint, body, built_by, built_at, accepted_by, accepted_at
       FROM synthesis_sections WHERE context_scope_id = $1`,
    [scopeId],
  );
  return new Map(rows.map((r) => [r.section, rowOf(r)]));
}

/** Stores a new build of a section (a draft: no acceptance carries over) and records the build. */
export async function storeBuild(
  sql: Sql,
  input: { scopeId: string; section: SectionKind; build: number; fingerprint: string; body: SectionBody; by: string; at: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO synthesis_sections (context_scope_id, section, build, fingerprint, body, method, built_by, built_at, accepted_by, accepted_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, 'deterministic', $6, $7, NULL, NULL)
     ON CONFLICT (context_scope_id, section) DO UPDATE
       SET build = EXCLUDED.build, fingerprint = EXCLUDED.fingerprint, body = EXCLUDED.body, method = EXCLUDED.method,
           built_by = EXCLUDED.built_by, built_at = EXCLUDED.built_at, accepted_by = NULL, accepted_at = NULL`,
    [input.scopeId, input.section, input.build, input.fingerprint, JSON.stringify(input.body), input.by, input.at],
  );
  await recordEvent(sql, { ...input, action: 'built' });
}

/** Marks the stored build of a section accepted by a person, and records the acceptance. */
export async function storeAcceptance(sql: Sql, input: { scopeId: string; section: SectionKind; build: number; fingerprint: string; by: string; at: Date }): Promise<void> {
  await sql.query(`UPDATE synthesis_sections SET accepted_by = $3, accepted_at = $4 WHERE context_scope_id = $1 AND section = $2`, [
    input.scopeId,
    input.section,
    input.by,
    input.at,
  ]);
  await recordEvent(sql, { ...input, action: 'accepted' });
}

async function recordEvent(
  sql: Sql,
  input: { scopeId: string; section: SectionKind; build: number; fingerprint: string; by: string; at: Date; action: 'built' | 'accepted' },
): Promise<void> {
  await sql.query(
    `INSERT INTO synthesis_section_events (id, context_scope_id, section, build, fingerprint, action, account_id, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [newId(), input.scopeId, input.section, input.build, input.fingerprint, input.action, input.by, input.at],
  );
}
