import type { Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { z } from 'zod';

/** Longest title and body of a shared memory candidate, and most evidence paths. */
export const MAX_MEMORY_TITLE = 200;
export const MAX_MEMORY_BODY = 20_000;
export const MAX_MEMORY_EVIDENCE = 20;
/** Most memory entries one page answers. */
export const MAX_MEMORY_PAGE = 100;

/** What a product proposes as shared memory of a context scope. */
export const MemoryCandidateInputSchema = z.strictObject({
  title: z.string().trim().min(1).max(MAX_MEMORY_TITLE),
  body: z.string().min(1).max(MAX_MEMORY_BODY),
  evidence: z
    .array(z.strictObject({ path: z.string().min(1).max(1024), note: z.string().max(500).optional() }))
    .max(MAX_MEMORY_EVIDENCE)
    .default([]),
});
/** See MemoryCandidateInputSchema. */
export type MemoryCandidateInput = z.output<typeof MemoryCandidateInputSchema>;

/** A shared memory entry or candidate as answered. */
export interface MemoryEntry {
  id: string;
  scopeId: string;
  title: string;
  body: string;
  evidence: Array<{ path: string; note?: string }>;
  status: 'candidate' | 'accepted' | 'rejected';
  createdAt: Date;
  decidedAt: Date | null;
}

interface MemoryRow {
  id: string;
  scope_id: string;
  title: string;
  body: string;
  evidence: Array<{ path: string; note?: string }>;
  status: MemoryEntry['status'];
  created_at: Date;
  decided_at: Date | null;
  [key: string]: unknown;
}

const entryOf = (r: MemoryRow): MemoryEntry => ({
  id: r.id,
  scopeId: r.scope_id,
  title: r.title,
  body: r.body,
  evidence: r.evidence,
  status: r.status,
  createdAt: r.created_at,
  decidedAt: r.decided_at,
});

/** Stores a candidate: never trusted memory until a person accepts it (runtime admin, memory decisions). */
export async function insertCandidate(
  sql: Sql,
  at: { installationId: string; principalId: string; scopeId: string; vaultId: string },
  input: MemoryCandidateInput,
): Promise<MemoryEntry> {
  const rows = await sql.query<MemoryRow>(
    `INSERT INTO runtime_memory_candidates (id, installation_id, principal_id, scope_id, vault_id, title, body, evidence)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
     RETURNING id, scope_id, title, body, evidence, status, created_at, decided_at`,
    [newId(), at.installationId, at.principalId, at.scopeId, at.vaultId, input.title, input.body, JSON.stringify(input.evidence)],
  );
  return entryOf(rows[0]!);
}

/** The accepted memory of a scope, newest decision first, paged by a numeric offset cursor. */
export async function acceptedMemory(sql: Sql, scopeId: string, offset: number, limit: number): Promise<{ entries: MemoryEntry[]; nextOffset: number | null }> {
  if (!Number.isInteger(offset) || offset < 0) throw new KgateError('invalid_request', 'The cursor is not one this listing gave.', { field: 'cursor' });
  const rows = await sql.query<MemoryRow>(
    `SELECT id, scope_id, title, body, evidence, status, created_at, decided_at
       FROM runtime_memory_candidates WHERE scope_id = $1 AND status = 'accepted'
      ORDER BY decided_at DESC, id DESC OFFSET $2 LIMIT $3`,
    [scopeId, offset, limit + 1],
  );
  const more = rows.length > limit;
  return { entries: rows.slice(0, limit).map(entryOf), nextOffset: more ? offset + limit : null };
}
