import { sha256Hex } from '../../kernel/hashing.ts';
import type { KnowledgeChange, KnowledgeRecord } from './records.ts';

/** JSON with every object's keys sorted: the same value always gives the same text, whatever its key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * A record's content without its evidence: what must differ for the record to have changed. Canonical, because a
 * record read back from the database (jsonb orders keys its own way) must compare equal to the same record compiled.
 */
function substance(record: KnowledgeRecord): string {
  const { evidence, ...rest } = record;
  void evidence; // Lines move when text is added above; that alone is no change of knowledge.
  return canonicalJson(rest);
}

/**
 * The knowledge change events between the records of one note at two revisions (null: the note did not exist), in
 * a deterministic order: by record id, then by event. Recompiling the same content yields none. A decision whose
 * status changed, a commitment checked or unchecked, and an assertion whose value changed get their own event; any
 * other change of a record is `record.updated`.
 */
export function knowledgeChanges(
  path: string,
  before: { revision: string; records: readonly KnowledgeRecord[] } | null,
  after: { revision: string; records: readonly KnowledgeRecord[] } | null,
): KnowledgeChange[] {
  const old = new Map((before?.records ?? []).map((r) => [r.id, r]));
  const now = new Map((after?.records ?? []).map((r) => [r.id, r]));
  const ids = [...new Set([...old.keys(), ...now.keys()])].sort();
  const base = { path, beforeRevision: before?.revision ?? null, afterRevision: after?.revision ?? null };
  const changes: KnowledgeChange[] = [];
  for (const id of ids) {
    const a = old.get(id);
    const b = now.get(id);
    if (!a && b) changes.push({ ...base, type: 'record.added', recordId: id, recordKind: b.kind });
    else if (a && !b) changes.push({ ...base, type: 'record.removed', recordId: id, recordKind: a.kind });
    else if (a && b && substance(a) !== substance(b)) {
      if (a.kind === 'decision' && b.kind === 'decision' && a.statusInNote !== b.statusInNote) {
        changes.push({ ...base, type: 'decision.status_changed', recordId: id, recordKind: 'decision', before: a.statusInNote, after: b.statusInNote });
      } else if (a.kind === 'commitment' && b.kind === 'commitment' && a.closed !== b.closed) {
        changes.push({ ...base, type: b.closed ? 'commitment.closed' : 'commitment.reopened', recordId: id, recordKind: 'commitment' });
      } else if (a.kind === 'assertion' && b.kind === 'assertion' && a.value !== b.value) {
        changes.push({ ...base, type: 'assertion.superseded', recordId: id, recordKind: 'assertion', before: a.value, after: b.value });
      } else {
        changes.push({ ...base, type: 'record.updated', recordId: id, recordKind: b.kind });
      }
    }
  }
  return changes;
}

/** A short hash of a record's substance: a person's review of a decision holds while it is unchanged. */
export function substanceHash(record: KnowledgeRecord): string {
  return sha256Hex(substance(record)).slice(0, 32);
}
