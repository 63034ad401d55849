import { uuidArrayParam, type Database } from '../../db/port.ts';
import { MAX_LINKS_PER_NOTE, targetNameKey } from '../notes/index.ts';
import type { NoteRef } from './link-targets.ts';
import type { DecisionRecord, RelationRecord } from './records.ts';

/**
 * One explicit edge a note holds: a link or embed of its body, a typed relation of its frontmatter, or the subject of
 * one of its decisions; with the target as written, not yet resolved.
 */
export interface Edge {
  /** The note that holds the edge. */
  source: string;
  /** The target as written (path part only). */
  target: string;
  kind: 'link' | 'embed' | 'relation' | 'subject';
  /** The frontmatter key of a relation (`depends_on`, ...); null for the other kinds. */
  relation: string | null;
  /** 1-based first and last line in the source note. */
  lines: [number, number];
  /** What is written: the link, `key: [[target]]`, or `subject: ...`. */
  text: string;
  /** The block a link cites (`#^id`), without `^`. */
  blockId: string | null;
  /** The relation or decision record that holds it. */
  recordId: string | null;
}

/** Most candidate rows one incoming-edge query reads; past it the answer says its limit was reached. */
export const MAX_EDGE_CANDIDATES = 1000;

interface LinkRow {
  [column: string]: unknown;
  path: string;
  kind: 'wikilink' | 'markdown';
  embed: boolean;
  target: string;
  heading: string | null;
  block_id: string | null;
  alias: string | null;
  line: number;
}

/** A link as it is written, rebuilt from its stored parts. */
function linkText(row: LinkRow): string {
  const anchor = `${row.heading ? `#${row.heading}` : ''}${row.block_id ? `#^${row.block_id}` : ''}`;
  const bang = row.embed ? '!' : '';
  if (row.kind === 'markdown') return `${bang}[${row.alias ?? ''}](${row.target}${anchor})`;
  return `${bang}[[${row.target}${anchor}${row.alias ? `|${row.alias}` : ''}]]`;
}

function linkEdge(row: LinkRow): Edge {
  const line = row.line + 1;
  return { source: row.path, target: row.target, kind: row.embed ? 'embed' : 'link', relation: null, lines: [line, line], text: linkText(row), blockId: row.block_id, recordId: null };
}

function relationEdge(path: string, record: RelationRecord): Edge {
  return { source: path, target: record.target, kind: 'relation', relation: record.type, lines: record.evidence.lines, text: `${record.type}: [[${record.target}]]`, blockId: null, recordId: record.id };
}

/** The note a decision's subject names: a WikiLink's target, else the text itself (a note's name or title). */
export function subjectTarget(subject: string): string {
  const link = /^\s*\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]\s*$/.exec(subject);
  return (link ? link[1]! : subject).trim();
}

function subjectEdge(path: string, record: DecisionRecord): Edge {
  return {
    source: path,
    target: subjectTarget(record.subject ?? ''),
    kind: 'subject',
    relation: 'subject',
    lines: record.evidence.lines,
    text: `subject: ${record.subject ?? ''}`,
    blockId: null,
    recordId: record.id,
  };
}

const LINK_COLUMNS = 'n.path, l.kind, l.embed, l.target, l.heading, l.block_id, l.alias, l.line';

/**
 * The outgoing edges of some notes: their links and embeds (links into the same note left out), their typed
 * relations, and the subjects of their decisions (when `subjects`). In note order: path, then position. At most
 * `limit` links are read (default: all a note index keeps); `capped` says when more exist.
 */
export async function outgoingEdges(
  db: Database,
  vaultId: string,
  notes: readonly NoteRef[],
  options: { subjects: boolean; limit?: number },
): Promise<{ edges: Edge[]; capped: boolean }> {
  if (notes.length === 0) return { edges: [], capped: false };
  const limit = options.limit ?? notes.length * MAX_LINKS_PER_NOTE;
  const links = await db.query<LinkRow>(
    `SELECT ${LINK_COLUMNS} FROM note_links l JOIN notes n ON n.id = l.note_id
      WHERE l.note_id = ANY($1::uuid[]) AND l.target <> '' ORDER BY n.path COLLATE "C", l.ordinal LIMIT $2`,
    [uuidArrayParam(notes.map((n) => n.id)), limit + 1],
  );
  const kinds = options.subjects ? ['relation', 'decision'] : ['relation'];
  const records = await db.query<{ path: string; record: RelationRecord | DecisionRecord }>(
    `SELECT r.path, r.record FROM knowledge_records r
      WHERE r.vault_id = $1 AND r.path = ANY($2::text[]) AND r.kind = ANY($3::text[])
      ORDER BY r.path COLLATE "C", r.record_id COLLATE "C" LIMIT $4`,
    [vaultId, notes.map((n) => n.path), kinds, limit + 1],
  );
  const edges = links.slice(0, limit).map(linkEdge);
  for (const { path, record } of records.slice(0, limit)) {
    if (record.kind === 'relation') edges.push(relationEdge(path, record));
    else if (record.subject !== null && subjectTarget(record.subject) !== '') edges.push(subjectEdge(path, record));
  }
  return { edges, capped: links.length > limit || records.length > limit };
}

/** The name keys a link to `path` can carry (its file name without `.md`; for `x.md.md` also `x.md`'s). */
export function nameKeysOf(path: string): string[] {
  const key = targetNameKey(path);
  return key.endsWith('.md') ? [key, targetNameKey(key)] : [key];
}

/** Candidate incoming edges of a note, with the notes that hold them, and whether a query stopped at its bound. */
export interface IncomingCandidates {
  edges: Edge[];
  /** The notes holding them, by path (their tags say whether they are in a slice). */
  holders: Map<string, NoteRef>;
  /** True when a candidate query read MAX_EDGE_CANDIDATES rows and stopped. */
  capped: boolean;
}

interface HolderRow extends LinkRow {
  id: string;
  title: string;
  revision: string;
  tag_keys: string[];
}

/**
 * Edges of other notes that may point at `note`: links that name its file name (note_links_incoming_idx), typed
 * relations whose target names it, and decisions whose subject names it or equals its title. Each still has to be
 * resolved from its own note: several notes may share a file name.
 */
export async function incomingCandidates(db: Database, vaultId: string, note: NoteRef, options: { subjects: boolean }): Promise<IncomingCandidates> {
  const keys = nameKeysOf(note.path);
  const holderColumns = 'n.id, n.title, n.content_hash AS revision, n.tag_keys';
  const links = await db.query<HolderRow>(
    `SELECT ${LINK_COLUMNS}, ${holderColumns} FROM note_links l JOIN notes n ON n.id = l.note_id
      WHERE l.vault_id = $1 AND l.target_name_key = ANY($2::text[]) AND l.note_id <> $3
      ORDER BY l.note_id, l.ordinal LIMIT $4`,
    [vaultId, keys, note.id, MAX_EDGE_CANDIDATES + 1],
  );
  // A record's target is as written: its name key is its last segment, lowercased, without `.md`.
  const recordKey = (expression: string) => `regexp_replace(regexp_replace(lower(${expression}), '^.*/', ''), '\\.md$', '')`;
  const subjectCondition = options.subjects
    ? `OR (r.kind = 'decision' AND r.record ->> 'subject' IS NOT NULL
           AND (strpos(lower(r.record ->> 'subject'), $4) > 0 OR lower(btrim(r.record ->> 'subject')) = lower($5)))`
    : '';
  const records = await db.query<{ path: string; record: RelationRecord | DecisionRecord; id: string; title: string; revision: string; tag_keys: string[] }>(
    `SELECT r.path, r.record, ${holderColumns} FROM knowledge_records r JOIN notes n ON n.vault_id = r.vault_id AND n.path COLLATE "C" = r.path
      WHERE r.vault_id = $1 AND r.path <> $3
        AND ((r.kind = 'relation' AND ${recordKey(`r.record ->> 'target'`)} = ANY($2::text[])) ${subjectCondition})
      ORDER BY r.path COLLATE "C", r.record_id COLLATE "C" LIMIT $${options.subjects ? 6 : 4}`,
    options.subjects ? [vaultId, keys, note.path, keys[0], note.title, MAX_EDGE_CANDIDATES + 1] : [vaultId, keys, note.path, MAX_EDGE_CANDIDATES + 1],
  );
  const holders = new Map<string, NoteRef>();
  const remember = (row: { id: string; path: string; title: string; revision: string; tag_keys: string[] }) =>
    holders.set(row.path, { id: row.id, path: row.path, title: row.title, revision: row.revision, tagKeys: row.tag_keys });
  const edges: Edge[] = [];
  for (const row of links.slice(0, MAX_EDGE_CANDIDATES)) {
    remember(row);
    edges.push(linkEdge(row));
  }
  for (const row of records.slice(0, MAX_EDGE_CANDIDATES)) {
    remember(row);
    if (row.record.kind === 'relation') edges.push(relationEdge(row.path, row.record));
    else if (row.record.subject !== null) edges.push(subjectEdge(row.path, row.record));
  }
  return { edges, holders, capped: links.length > MAX_EDGE_CANDIDATES || records.length > MAX_EDGE_CANDIDATES };
}
