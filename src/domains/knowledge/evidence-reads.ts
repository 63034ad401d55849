import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { notePathKey } from '../../kernel/vault-path.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import type { Decision } from './contract.ts';
import { readDecisions } from './record-reads.ts';
import { resolverFor } from './link-targets.ts';
import { inSlice } from './slice.ts';

/** Most links of a decision's block followed to their sources. */
export const MAX_EVIDENCE_CITATIONS = 20;
/** Longest source block returned (characters); a longer one is cut and says so. */
export const MAX_EVIDENCE_TEXT = 8000;

/** A source block: the lines of a note that hold a record, as the note is now. */
export interface SourceBlock {
  path: string;
  revision: string;
  lines: [number, number];
  text: string;
  truncated: boolean;
}

/** What a link in a decision's block points at, when the caller may read it now. */
export interface Citation {
  target: string;
  line: number;
  path: string;
  blockId: string | null;
  /** The cited block (a `#^id` link) or the note's first lines, as the note is now. */
  source: SourceBlock;
}

/** The evidence of a decision under current authorization. */
export interface DecisionEvidence {
  decision: Decision;
  source: SourceBlock;
  citations: Citation[];
  /** Links of the block to notes that are outside the scope or missing now: not followed. */
  withheld: number;
  truncated: boolean;
}

function block(path: string, revision: string, content: string, first: number, last: number): SourceBlock {
  const lines = content.split('\n');
  const end = Math.min(last, lines.length);
  const text = lines.slice(first - 1, end).join('\n');
  const truncated = text.length > MAX_EVIDENCE_TEXT;
  return { path, revision, lines: [first, end], text: truncated ? text.slice(0, MAX_EVIDENCE_TEXT) : text, truncated };
}

/** The lines of a block id (`^id` at a line's end; a line alone holding it closes the paragraph or callout above). */
function blockLines(content: string, blockId: string | null): [number, number] {
  const lines = content.split('\n');
  if (blockId) {
    const at = lines.findIndex((l) => l.trimEnd().endsWith(`^${blockId}`));
    if (at >= 0) {
      let first = at;
      if (lines[at]!.trim() === `^${blockId}`) first -= 1;
      while (first > 0 && lines[first - 1]!.trim() !== '') first -= 1;
      return [first + 1, at + 1];
    }
  }
  return [1, Math.min(lines.length, 20)];
}

/**
 * The source of a decision and the blocks its lines cite, read now and only where the caller's scope reaches: the
 * decision's own lines, and for each link in them the note it resolves to (the cited block, else the note's first
 * lines). Links to notes outside the scope or missing are counted as withheld, never followed.
 */
export async function readDecisionEvidence(db: Database, slice: ScopeSlice, recordId: string): Promise<DecisionEvidence> {
  const page = await readDecisions(db, slice, { recordId, statuses: ['confirmed', 'superseded', 'rejected', 'candidate'], limit: 1 });
  const decision = page.items[0];
  if (!decision) throw new KgateError('not_found', 'No such decision in this scope.');
  const { path, lines } = decision.evidence;
  const notes = await db.query<{ id: string; content: string; content_hash: string }>('SELECT id, content, content_hash FROM notes WHERE vault_id = $1 AND path_key = $2', [
    slice.vaultId,
    notePathKey(path),
  ]);
  const note = notes[0];
  if (!note) throw new KgateError('not_found', 'No such decision in this scope.');
  // A decision note (frontmatter `type: decision`) is its whole note: the frontmatter says what was decided, the
  // body why. A callout's block is its own lines.
  const wholeNote = lines[0] === 1 && note.content.startsWith('---');
  const lastLine = note.content.split('\n').length - (note.content.endsWith('\n') ? 1 : 0);
  const source = block(path, note.content_hash, note.content, lines[0]!, wholeNote ? lastLine : lines[1]!);
  const links = await db.query<{ target: string; block_id: string | null; line: number }>(
    `SELECT target, block_id, line FROM note_links
      WHERE note_id = $1 AND line BETWEEN $2 AND $3 AND target <> '' ORDER BY ordinal LIMIT $4`,
    [note.id, source.lines[0], source.lines[1], MAX_EVIDENCE_CITATIONS + 1],
  );
  const truncated = links.length > MAX_EVIDENCE_CITATIONS;
  const followed = links.slice(0, MAX_EVIDENCE_CITATIONS);
  // The targets resolve as the graph resolves them, all in one query; the cited notes' bodies in one more.
  const resolver = await resolverFor(db, slice.vaultId, followed.map((l) => l.target));
  const cited = followed.map((link) => ({ link, note: resolver.resolve(link.target, path) }));
  const readable = cited.flatMap(({ note: n }) => (n && inSlice(slice, n.path, n.tagKeys) ? [n.path] : []));
  const bodies = await contentsAt(db, slice.vaultId, readable);
  const citations: Citation[] = [];
  let withheld = 0;
  for (const { link, note: target } of cited) {
    const body = target ? bodies.get(target.path) : undefined;
    if (!target || !body) {
      withheld += 1;
      continue;
    }
    const [first, last] = blockLines(body, link.block_id);
    citations.push({ target: link.target, line: link.line, path: target.path, blockId: link.block_id, source: block(target.path, target.revision, body, first, last) });
  }
  return { decision, source, citations, withheld, truncated };
}

/** The bodies of current notes by exact path, in one query. */
async function contentsAt(db: Database, vaultId: string, paths: readonly string[]): Promise<Map<string, string>> {
  if (paths.length === 0) return new Map();
  const rows = await db.query<{ path: string; content: string }>('SELECT path, content FROM notes WHERE vault_id = $1 AND path_key = ANY($2::text[])', [
    vaultId,
    [...new Set(paths.map(notePathKey))],
  ]);
  return new Map(rows.map((row) => [row.path, row.content]));
}
