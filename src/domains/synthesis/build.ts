import { sha256Hex } from '../../kernel/hashing.ts';
import type { Commitment, Decision, KnowledgeService, Question, TemporalRecord, Tension } from '../knowledge/index.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import { MAX_SECTION_ITEMS, SECTION_TITLES, type SectionBody, type SectionItem, type SectionKind, type Staleness } from './contract.ts';

/**
 * The rules sections are built by. A change of wording or of what a section holds bumps it, so that every section
 * built by older rules reads as stale and is rebuilt by the new ones rather than compared with them.
 */
export const SYNTHESIS_BUILDER_VERSION = 1;

/** A section as the records make it now: its body and the fingerprint of that body. */
export interface BuiltSection {
  body: SectionBody;
  fingerprint: string;
}

type Line = Pick<SectionItem, 'recordId' | 'kind' | 'text' | 'evidence'>;

const evidenceOf = (e: { path: string; revision: string; lines: readonly number[] }): SectionItem['evidence'] => ({
  path: e.path,
  revision: e.revision,
  lines: [e.lines[0]!, e.lines[1]!],
});

function confirmedLine(d: Decision): Line {
  const reviewed = d.review ? ` on ${d.review.reviewedAt.slice(0, 10)}` : '';
  const validity = `valid from ${d.validFrom ?? 'an unstated date'}${d.validUntil ? ` until ${d.validUntil.slice(0, 10)}` : ''}`;
  return { recordId: d.id, kind: 'decision', text: `${d.title}: confirmed by a person${reviewed}; ${validity}`, evidence: evidenceOf(d.evidence) };
}

function candidateLine(d: Decision): Line {
  return {
    recordId: d.id,
    kind: 'decision',
    text: `${d.title}: candidate, not confirmed by anyone (the note says “${d.statusInNote}”)`,
    evidence: evidenceOf(d.evidence),
  };
}

function questionLine(q: Question): Line {
  return { recordId: q.id, kind: 'question', text: q.text, evidence: evidenceOf(q.evidence) };
}

function commitmentLine(c: Commitment): Line {
  const owner = c.owner === null ? 'no owner' : `owner ${c.owner}`;
  const due = c.due === null ? 'no due date' : `due ${c.due}`;
  return { recordId: c.id, kind: 'commitment', text: `${c.text} (${owner}, ${due})`, evidence: evidenceOf(c.evidence) };
}

function sideName(side: Tension['holder']): string {
  if (side.withheld) return 'a note outside this scope or gone';
  return side.title ?? side.path ?? 'a note';
}

function tensionLine(t: Tension): Line {
  const decisions = [...t.holder.decisions, ...t.target.decisions].map((d) => `${d.title}: ${d.status}`);
  const current = t.history.versions.findLast((v) => v.retiredAt === null) ?? t.history.versions[t.history.versions.length - 1];
  return {
    recordId: t.id,
    kind: 'tension',
    text: `${sideName(t.holder)} contradicts ${sideName(t.target)}${decisions.length > 0 ? ` (${decisions.join('; ')})` : ''}`,
    // The relation is written in the holder's frontmatter; the tension read gives its note and revision, not lines.
    evidence: { path: t.holder.path ?? '', revision: current?.revision ?? '', lines: null },
  };
}

function factLine(r: TemporalRecord): Line {
  const valid = r.validFrom === null ? '' : ` (valid from ${r.validFrom})`;
  return { recordId: r.recordId, kind: 'assertion', text: `${r.entityType} ${r.entityId}: ${r.property} = ${JSON.stringify(r.value)}${valid}`, evidence: evidenceOf(r.evidence) };
}

/** Where a line's evidence is, as the section text writes it. */
function citation(e: SectionItem['evidence']): string {
  if (e.lines === null) return e.path;
  return e.lines[0] === e.lines[1] ? `${e.path}, line ${e.lines[0]}` : `${e.path}, lines ${e.lines[0]}–${e.lines[1]}`;
}

/** A section's body from its lines: the heading, one line per item with its citation, and what was cut. */
export function bodyOf(section: SectionKind, lines: readonly Line[], truncated: boolean): SectionBody {
  const title = SECTION_TITLES[section];
  const text = [
    `## ${title}`,
    ...(lines.length === 0 ? ['None in this scope.'] : lines.map((l) => `- ${l.text} [${citation(l.evidence)}]`)),
    ...(truncated ? [`More exist: this section holds the first ${MAX_SECTION_ITEMS}.`] : []),
  ].join('\n');
  return { title, text, items: lines.map((l) => ({ recordId: l.recordId, kind: l.kind, text: l.text, evidence: l.evidence })), truncated };
}

/** The fingerprint of a body: equal bodies (same records, same cited revisions and lines) have equal fingerprints. */
export function fingerprintOf(section: SectionKind, body: SectionBody): string {
  // Keys in a fixed order: the body is built field by field, so JSON.stringify is canonical here.
  return `sha256:${sha256Hex(JSON.stringify({ v: SYNTHESIS_BUILDER_VERSION, section, text: body.text, items: body.items, truncated: body.truncated }))}`;
}

const limit = MAX_SECTION_ITEMS;

/** Reads the records of one section from the knowledge layer, in the read's fixed order, and makes its body. */
async function linesOf(knowledge: KnowledgeService, slice: ScopeSlice, section: SectionKind): Promise<{ lines: Line[]; truncated: boolean }> {
  switch (section) {
    case 'confirmed-decisions': {
      const page = await knowledge.decisions(slice, { statuses: ['confirmed'], limit });
      return { lines: page.items.map(confirmedLine), truncated: page.truncated };
    }
    case 'candidate-decisions': {
      const page = await knowledge.decisions(slice, { statuses: ['candidate'], limit });
      return { lines: page.items.map(candidateLine), truncated: page.truncated };
    }
    case 'open-questions': {
      const page = await knowledge.questions(slice, { includeAnswered: false, limit });
      return { lines: page.items.map(questionLine), truncated: page.truncated };
    }
    case 'open-commitments': {
      const page = await knowledge.commitments(slice, { includeClosed: false, limit });
      return { lines: page.items.map(commitmentLine), truncated: page.truncated };
    }
    case 'tensions': {
      const page = await knowledge.contradictions(slice, { includeResolved: false, limit });
      return { lines: page.items.map(tensionLine), truncated: page.truncated };
    }
    case 'current-facts': {
      const page = await knowledge.temporal(slice, { mode: 'current', limit });
      return { lines: page.items.map(factLine), truncated: page.truncated };
    }
  }
}

/** Builds sections from the records of the slice as they are now: the same records give the same body and fingerprint. */
export async function buildSections(knowledge: KnowledgeService, slice: ScopeSlice, sections: readonly SectionKind[]): Promise<Map<SectionKind, BuiltSection>> {
  const built = await Promise.all(
    sections.map(async (section) => {
      const { lines, truncated } = await linesOf(knowledge, slice, section);
      const body = bodyOf(section, lines, truncated);
      return [section, { body, fingerprint: fingerprintOf(section, body) }] as const;
    }),
  );
  return new Map(built);
}

const MAX_LISTED = 50;

/** What differs between the items of a build and the items the records give now (each list at most 50 ids). */
export function stalenessOf(built: readonly SectionItem[], now: readonly SectionItem[]): Staleness {
  const before = new Map(built.map((i) => [i.recordId, i]));
  const after = new Map(now.map((i) => [i.recordId, i]));
  const added = now.filter((i) => !before.has(i.recordId)).map((i) => i.recordId);
  const removed = built.filter((i) => !after.has(i.recordId)).map((i) => i.recordId);
  const changed = now
    .filter((i) => {
      const was = before.get(i.recordId);
      return was !== undefined && JSON.stringify([was.text, was.evidence]) !== JSON.stringify([i.text, i.evidence]);
    })
    .map((i) => i.recordId);
  return { added: added.slice(0, MAX_LISTED), removed: removed.slice(0, MAX_LISTED), changed: changed.slice(0, MAX_LISTED) };
}
