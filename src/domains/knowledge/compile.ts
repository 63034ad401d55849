import { sha256Hex } from '../../kernel/hashing.ts';
import { parseFrontmatter, parseMarkdown, type Callout, type MarkdownModel, type MarkdownTask } from '../markdown/index.ts';
import type { AssertionRecord, CommitmentRecord, DecisionRecord, DecisionStatus, Evidence, KnowledgeRecord, QuestionRecord, RelationRecord } from './records.ts';

/**
 * The version of the compiler's rules: raising it makes the background compiler recompile every note (its records
 * then follow the new rules; the change events say what moved).
 */
export const KNOWLEDGE_COMPILER_VERSION = 1;

/** Frontmatter keys that say what a note is rather than asserting something about an entity. */
const RESERVED_KEYS = new Set(['type', 'id', 'tags', 'tag', 'aliases', 'alias', 'created', 'updated', 'valid_from', 'as_of', 'cssclasses']);
/** Frontmatter keys whose values are typed links (relation type = key). */
export const RELATION_KEYS = ['supersedes', 'contradicts', 'depends_on', 'blocks', 'part_of', 'relates_to'] as const;
const DECISION_STATUSES = new Set<DecisionStatus>(['proposed', 'accepted', 'rejected', 'superseded', 'deprecated']);
const ANSWERED = new Set(['answered', 'resolved', 'closed']);

const DATE = /\b(\d{4}-\d{2}-\d{2})\b/;
const DUE = /(?:📅\s*|\[?due::\s*)(\d{4}-\d{2}-\d{2})\]?/u;
// `owner:: [[Jonas Berg]]`, `[owner:: Jonas]`: a Dataview inline field, up to the closing bracket or the line's end.
const OWNER = /\[?owner::\s*(\[\[[^\]]+\]\]|[^\]📅\n]+?)\s*(?:\]|(?=📅|due::|$))/u;

/** The note a record comes from. */
interface Source {
  path: string;
  revision: string;
  model: MarkdownModel;
}

/** A record id: stable for the same note, kind and anchor, so that recompiling the same content changes nothing. */
function recordId(path: string, kind: KnowledgeRecord['kind'], anchor: string): string {
  return sha256Hex(`${path}\u0000${kind}\u0000${anchor}`).slice(0, 32);
}

function evidence(source: Source, firstLine: number, lastLine: number, blockId?: string): Evidence {
  return { path: source.path, revision: source.revision, lines: [firstLine + 1, lastLine + 1], ...(blockId ? { blockId } : {}) };
}

/** The block id written at the end of a line, if any. */
function blockIdOn(source: Source, line: number): string | undefined {
  return source.model.blockIds.find((b) => b.line === line)?.id;
}

/** `[[Target|alias]]` or `[[Target]]` as its target; plain text as itself. */
function linkTarget(text: string): string {
  const match = /^\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]$/.exec(text.trim());
  return (match ? match[1]! : text).trim();
}

/** A YAML value as a date string (YAML dates arrive as Date objects), or null. */
function dateOf(value: unknown): string | null {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'string') return DATE.exec(value)?.[1] ?? null;
  return null;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

function titleOf(source: Source): string {
  return source.model.headings.find((h) => h.level === 1)?.text ?? source.path.replace(/^.*\//, '').replace(/\.md$/i, '');
}

function frontmatterLines(source: Source): [number, number] {
  const block = source.model.frontmatter;
  return block ? [block.line, block.endLine] : [0, 0];
}

function fromFrontmatter(source: Source, data: Record<string, unknown>): KnowledgeRecord[] {
  const records: KnowledgeRecord[] = [];
  const [first, last] = frontmatterLines(source);
  const type = typeof data.type === 'string' ? data.type.trim().toLowerCase() : undefined;
  if (type === 'decision') {
    const status = typeof data.status === 'string' ? data.status.trim().toLowerCase() : 'proposed';
    records.push({
      kind: 'decision',
      id: recordId(source.path, 'decision', 'frontmatter'),
      title: titleOf(source),
      statusInNote: DECISION_STATUSES.has(status as DecisionStatus) ? (status as DecisionStatus) : 'proposed',
      subject: typeof data.subject === 'string' ? data.subject : null,
      decided: dateOf(data.decided),
      validFrom: dateOf(data.valid_from),
      validUntil: dateOf(data.valid_until),
      supersedes: listOf(data.supersedes).filter((v): v is string => typeof v === 'string').map(linkTarget),
      evidence: evidence(source, first, last),
    } satisfies DecisionRecord);
  } else if (type === 'question') {
    records.push({
      kind: 'question',
      id: recordId(source.path, 'question', 'frontmatter'),
      text: titleOf(source),
      answered: typeof data.status === 'string' && ANSWERED.has(data.status.trim().toLowerCase()),
      evidence: evidence(source, first, last),
    } satisfies QuestionRecord);
  } else if (type !== undefined && (typeof data.id === 'string' || typeof data.id === 'number')) {
    const entityId = String(data.id);
    const validFrom = dateOf(data.valid_from) ?? dateOf(data.as_of);
    for (const [property, value] of Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (RESERVED_KEYS.has(property) || (RELATION_KEYS as readonly string[]).includes(property)) continue;
      records.push({
        kind: 'assertion',
        id: recordId(source.path, 'assertion', `${type}\u0000${entityId}\u0000${property}`),
        entityType: type,
        entityId,
        property,
        value: JSON.stringify(value instanceof Date ? value.toISOString().slice(0, 10) : value),
        validFrom,
        evidence: evidence(source, first, last),
      } satisfies AssertionRecord);
    }
  }
  for (const key of RELATION_KEYS) {
    for (const target of listOf(data[key]).filter((v): v is string => typeof v === 'string').map(linkTarget)) {
      if (target === '') continue;
      records.push({ kind: 'relation', id: recordId(source.path, 'relation', `${key}\u0000${target}`), type: key, target, evidence: evidence(source, first, last) } satisfies RelationRecord);
    }
  }
  return records;
}

/** The anchor of a body item: its block id when it has one, else its text and its occurrence among equal texts. */
function anchorOf(blockId: string | undefined, text: string, seen: Map<string, number>): string {
  if (blockId) return `^${blockId}`;
  const count = (seen.get(text) ?? 0) + 1;
  seen.set(text, count);
  return `${text}\u0000${count}`;
}

function fromTask(source: Source, task: MarkdownTask, seen: Map<string, number>): CommitmentRecord {
  const blockId = blockIdOn(source, task.line);
  const owner = OWNER.exec(task.text)?.[1];
  return {
    kind: 'commitment',
    id: recordId(source.path, 'commitment', anchorOf(blockId, task.text.replace(DUE, '').trim(), seen)),
    text: task.text,
    closed: task.checked,
    owner: owner ? linkTarget(owner) : null,
    due: DUE.exec(task.text)?.[1] ?? null,
    evidence: evidence(source, task.line, task.line, blockId),
  };
}

function fromCallout(source: Source, callout: Callout, seen: Map<string, number>): KnowledgeRecord | undefined {
  if (callout.type !== 'decision' && callout.type !== 'question') return undefined;
  const blockId = blockIdOn(source, callout.endLine);
  const id = recordId(source.path, callout.type, anchorOf(blockId, `${callout.type}:${callout.title}`, seen));
  const where = evidence(source, callout.line, callout.endLine, blockId);
  if (callout.type === 'question') return { kind: 'question', id, text: callout.title, answered: false, evidence: where };
  return { kind: 'decision', id, title: callout.title, statusInNote: 'proposed', subject: null, decided: null, validFrom: null, validUntil: null, supersedes: [], evidence: where };
}

/**
 * Compiles the knowledge records of one note (docs/knowledge.md): decisions, commitments, open questions, entity
 * assertions and typed relations, each with its evidence. Deterministic: the same path, revision and content give
 * the same records in the same order. Invalid frontmatter compiles to no frontmatter records; the body still counts.
 */
export function compileNote(path: string, revision: string, content: string, model: MarkdownModel = parseMarkdown(content)): KnowledgeRecord[] {
  const source: Source = { path, revision, model };
  const { data } = parseFrontmatter(content);
  const seen = new Map<string, number>();
  const records: KnowledgeRecord[] = data ? fromFrontmatter(source, data) : [];
  for (const task of model.tasks) records.push(fromTask(source, task, seen));
  for (const callout of model.callouts) {
    const record = fromCallout(source, callout, seen);
    if (record) records.push(record);
  }
  return records;
}
