import type { Sql } from '../../db/port.ts';
import { textArrayParam, uuidArrayParam } from '../../db/port.ts';
import { isUuid } from '../../kernel/ids.ts';
import { notePathKey } from '../../kernel/vault-path.ts';
import { inSlice, sliceCondition } from '../knowledge/index.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import type { ResolvedReference, TraceReferenceInput } from './contract.ts';

/**
 * Resolves references of published steps under the reader's authorization now (docs/traces.md, "Reconstruction").
 * Nothing is filled in: a reference that does not resolve to what the step saw, in the reader's scope now, is a gap
 * with its reason. Three queries for any number of references: the notes by path key (those referenced, and those
 * the referenced proposals touch), the records by id in the slice, the proposals by id in the vault.
 */
export async function resolveReferences(sql: Sql, slice: ScopeSlice, references: readonly TraceReferenceInput[]): Promise<ResolvedReference[]> {
  const notePaths = [...new Set(references.flatMap((r) => (r.kind === 'note' ? [notePathKey(r.path)] : [])))];
  const recordIds = [...new Set(references.flatMap((r) => (r.kind === 'record' ? [r.recordId] : [])))];
  const proposalIds = [...new Set(references.flatMap((r) => (r.kind === 'proposal' && isUuid(r.proposalId) ? [r.proposalId.toLowerCase()] : [])))];
  const proposals = await proposalsById(sql, slice.vaultId, proposalIds);
  const touched = [...proposals.values()].flatMap((p) => p.paths.map(notePathKey));
  const [notes, records] = await Promise.all([notesByKey(sql, slice.vaultId, [...new Set([...notePaths, ...touched])]), recordsById(sql, slice, recordIds)]);
  // A proposal is in the reader's scope when every note it touches is: by folder, and for a tag scope by the tags its
  // notes carry now (a note it would create, not there yet, carries none, so a tag scope does not admit it).
  const proposalInScope = (paths: readonly string[]) => paths.every((path) => inSlice(slice, path, notes.get(notePathKey(path))?.tag_keys ?? []));
  return references.map((reference) => {
    const base: ResolvedReference = {
      kind: reference.kind,
      status: 'gap',
      reason: null,
      path: null,
      revision: null,
      currentRevision: null,
      recordId: null,
      recordKind: null,
      proposalId: null,
      proposalState: null,
      label: null,
    };
    switch (reference.kind) {
      case 'note': {
        const answer = { ...base, path: reference.path, revision: reference.revision };
        // Told from the path alone: it says nothing of whether such a note exists outside the scope.
        if (slice.pathPrefixes.length > 0 && !slice.pathPrefixes.some((p) => reference.path.startsWith(p))) return { ...answer, reason: 'outside_scope' };
        const note = notes.get(notePathKey(reference.path));
        // A note that is gone, and for a tag scope one that does not carry its tags now, are alike: not in the scope now.
        if (!note || !inSlice(slice, note.path, note.tag_keys)) return { ...answer, reason: 'not_found' };
        if (note.content_hash !== reference.revision) return { ...answer, reason: 'stale', currentRevision: note.content_hash };
        return { ...answer, status: 'resolved', currentRevision: note.content_hash };
      }
      case 'record': {
        const answer = { ...base, recordId: reference.recordId, revision: reference.revision ?? null };
        const record = records.get(reference.recordId);
        // A record id names its note only by hash: one outside the slice is indistinguishable from one removed.
        if (!record) return { ...answer, reason: 'not_found' };
        const found = { ...answer, path: record.path, recordKind: record.kind, currentRevision: record.revision };
        if (reference.revision !== undefined && reference.revision !== record.revision) return { ...found, reason: 'stale' };
        return { ...found, status: 'resolved' };
      }
      case 'proposal': {
        const answer = { ...base, proposalId: reference.proposalId };
        const proposal = isUuid(reference.proposalId) ? proposals.get(reference.proposalId.toLowerCase()) : undefined;
        // Another vault's proposal, a guessed id and a removed one look alike; one touching notes outside the scope is
        // named as outside it, and nothing of it (title, state) is told.
        if (!proposal) return { ...answer, reason: 'not_found' };
        if (!proposalInScope(proposal.paths)) return { ...answer, reason: 'outside_scope' };
        return { ...answer, status: 'resolved', proposalState: proposal.state, label: proposal.title };
      }
      case 'local':
        return { ...base, reason: 'unpublished', label: reference.label };
    }
  });
}

interface NoteRow {
  [column: string]: unknown;
  path: string;
  path_key: string;
  content_hash: string;
  tag_keys: string[];
}

async function notesByKey(sql: Sql, vaultId: string, keys: readonly string[]): Promise<Map<string, NoteRow>> {
  if (keys.length === 0) return new Map();
  const rows = await sql.query<NoteRow>('SELECT path, path_key, content_hash, tag_keys FROM notes WHERE vault_id = $1 AND path_key = ANY($2::text[])', [vaultId, textArrayParam(keys)]);
  return new Map(rows.map((r) => [r.path_key, r]));
}

interface ProposalRow {
  [column: string]: unknown;
  id: string;
  state: string;
  title: string;
  paths: string[];
}

async function proposalsById(sql: Sql, vaultId: string, ids: readonly string[]): Promise<Map<string, ProposalRow>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.query<ProposalRow>(
    `SELECT p.id, p.state, p.title, ARRAY(SELECT a ->> 'path' FROM jsonb_array_elements(p.actions) AS a) AS paths
       FROM action_proposals p WHERE p.vault_id = $1 AND p.id = ANY($2::uuid[])`,
    [vaultId, uuidArrayParam(ids)],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

interface RecordRow {
  [column: string]: unknown;
  record_id: string;
  kind: string;
  path: string;
  revision: string;
}

async function recordsById(sql: Sql, slice: ScopeSlice, ids: readonly string[]): Promise<Map<string, RecordRow>> {
  if (ids.length === 0) return new Map();
  const params: unknown[] = [slice.vaultId, textArrayParam(ids)];
  const rows = await sql.query<RecordRow>(
    `SELECT r.record_id, r.kind, r.path, r.record -> 'evidence' ->> 'revision' AS revision
       FROM knowledge_records r WHERE r.vault_id = $1 AND r.record_id = ANY($2::text[]) AND ${sliceCondition('r', slice, params)}`,
    params,
  );
  return new Map(rows.map((r) => [r.record_id, r]));
}
