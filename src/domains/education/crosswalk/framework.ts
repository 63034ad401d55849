/**
 * A framework slice made ready for comparison: each CFItem reduced to what the crosswalk compares (normalized code,
 * statement terms, grades, subjects, domain anchor), in identifier order whatever the order of the lists it came
 * in, and the correspondences its associations already declare. Statement text is read here once and not kept.
 */
import { KgateError } from '../../../kernel/errors.ts';
import type { CaseAssociation, CaseItem, CasePackage } from './case.ts';
import { codeDomain, normalizeCode, segmentsOf } from './codes.ts';
import { gradesOf, isUnknownGrades, subjectsOf, type GradeSet } from './levels.ts';
import { byCodeUnit, termsOf } from './text.ts';

/** Where an item's domain comes from: a domain-like item above it (or itself), or the domain segment of its code. */
export interface DomainAnchor {
  via: 'hierarchy' | 'code';
  /** The domain-like item, when via is hierarchy. */
  identifier: string | null;
  /** The domain key compared across frameworks: the domain segment of a code, or the anchor's normalized code. */
  code: string | null;
  /** The anchor item's statement terms (hierarchy only), to tell similar domains of different coding schemes. */
  terms: readonly string[] | null;
}

/** One CFItem as the crosswalk compares it. */
export interface PreparedItem {
  identifier: string;
  /** humanCodingScheme as published (trimmed), or null. */
  code: string | null;
  normalizedCode: string | null;
  segments: string[] | null;
  /** Statement terms, unique and sorted (text.ts). */
  terms: readonly string[];
  grades: GradeSet;
  subjects: readonly string[];
  domain: DomainAnchor | null;
}

/** A slice made ready: its document's identity, its items in identifier order, and declared correspondences. */
export interface PreparedFramework {
  document: { identifier: string; uri: string | null; creator: string | null; version: string | null };
  items: PreparedItem[];
  /** Association types that already relate two items: by one item's identifier, the other's and the type (both directions). */
  declared: Declared;
}

/** Declared correspondences: item identifier to related item identifier to the strongest association type. */
export type Declared = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** CFItemTypes that name a domain of standards rather than one standard. */
const DOMAIN_TYPE = /\b(?:domain|strand|conceptual category|content area|reporting category|standard category|topic)\b/i;

/** How far up a hierarchy is followed (CASE hierarchies are a handful of levels; a cycle stops here too). */
const MAX_DEPTH = 32;

/** Association types that declare a correspondence, strongest first; the strongest declared for a pair is kept. */
export const DECLARED_TYPES = ['exactMatchOf', 'replacedBy', 'isTranslationOf', 'isRelatedTo', 'isPeerOf', 'isPartOf'] as const;

function byIdentifier(a: { identifier: string }, b: { identifier: string }): number {
  return byCodeUnit(a.identifier, b.identifier);
}

/** Each item's parent by isChildOf (the smallest parent identifier when an item has several, so order never matters). */
function parentsOf(items: ReadonlyMap<string, CaseItem>, associations: readonly CaseAssociation[]): Map<string, string> {
  const parents = new Map<string, string>();
  for (const a of associations) {
    if (a.associationType !== 'isChildOf') continue;
    const child = a.originNodeURI.identifier;
    const parent = a.destinationNodeURI.identifier;
    if (!items.has(child) || !items.has(parent) || child === parent) continue;
    const known = parents.get(child);
    if (known === undefined || byCodeUnit(parent, known) < 0) parents.set(child, parent);
  }
  return parents;
}

/** The item and its ancestors, nearest first, bounded. */
function lineage(identifier: string, parents: ReadonlyMap<string, string>): string[] {
  const chain = [identifier];
  for (let current = parents.get(identifier); current !== undefined && chain.length <= MAX_DEPTH && !chain.includes(current); current = parents.get(current)) {
    chain.push(current);
  }
  return chain;
}

const declaredRank = (type: string) => (DECLARED_TYPES as readonly string[]).indexOf(type);

/** Adds a declared pair in both directions, keeping the strongest type (so the order of associations never matters). */
function declare(declared: Map<string, Map<string, string>>, a: string, b: string, type: string): void {
  for (const [from, to] of [
    [a, b],
    [b, a],
  ] as const) {
    const related = declared.get(from) ?? declared.set(from, new Map()).get(from)!;
    const known = related.get(to);
    if (known === undefined || declaredRank(type) < declaredRank(known)) related.set(to, type);
  }
}

/** Declared correspondences of a slice, strongest type per pair, in both directions. */
function declaredOf(associations: readonly CaseAssociation[]): Map<string, Map<string, string>> {
  const declared = new Map<string, Map<string, string>>();
  for (const a of associations) {
    if (declaredRank(a.associationType) >= 0) declare(declared, a.originNodeURI.identifier, a.destinationNodeURI.identifier, a.associationType);
  }
  return declared;
}

/** Both slices' declared correspondences in one, strongest type per pair. */
export function mergeDeclared(...all: readonly Declared[]): Declared {
  const merged = new Map<string, Map<string, string>>();
  for (const declared of all) for (const [a, related] of declared) for (const [b, type] of related) declare(merged, a, b, type);
  return merged;
}

/** The domain key of a hierarchy anchor: the domain segment of its code, else its whole normalized code. */
function anchorKey(segments: string[] | null): string | null {
  return segments === null ? null : (codeDomain(segments) ?? segments.join('.'));
}

/**
 * Prepares one slice; `side` names it in a refusal (two items with one identifier are ambiguous). It yields after each
 * item's terms, so that the crosswalk's caller may pause there (crosswalkInSlices).
 */
export function* prepareFramework(slice: CasePackage, side: 'source' | 'target'): Generator<void, PreparedFramework> {
  const sorted = [...slice.CFItems].sort(byIdentifier);
  const items = new Map<string, CaseItem>();
  for (const item of sorted) {
    if (items.has(item.identifier)) {
      throw new KgateError('invalid_request', `Two CFItems of ${side} have the identifier ${item.identifier}.`, { field: `${side}.CFItems`, identifier: item.identifier });
    }
    items.set(item.identifier, item);
  }
  const associations = slice.CFAssociations ?? [];
  const parents = parentsOf(items, associations);
  const codes = new Map<string, string[] | null>();
  for (const item of sorted) {
    const normalized = normalizeCode(item.humanCodingScheme);
    codes.set(item.identifier, normalized === null ? null : segmentsOf(normalized));
  }
  // Each item's own terms, grades and subjects, computed once: descendants inherit them and anchors reuse them.
  const own = new Map<string, { terms: string[]; grades: GradeSet; subjects: string[] }>();
  for (const item of sorted) {
    own.set(item.identifier, { terms: termsOf(item.fullStatement), grades: gradesOf(item.educationLevel), subjects: subjectsOf(item.subject) });
    yield;
  }
  const documentSubjects = subjectsOf(slice.CFDocument.subject);
  const prepared = sorted.map((item): PreparedItem => {
    const chain = lineage(item.identifier, parents).map((id) => items.get(id)!);
    const grades = chain.map((c) => own.get(c.identifier)!.grades).find((g) => !isUnknownGrades(g)) ?? gradesOf([]);
    const subjects = chain.map((c) => own.get(c.identifier)!.subjects).find((list) => list.length > 0) ?? documentSubjects;
    const segments = codes.get(item.identifier)!;
    const anchorItem = chain.find((c) => c.CFItemType !== undefined && DOMAIN_TYPE.test(c.CFItemType));
    let domain: DomainAnchor | null = null;
    if (anchorItem) {
      domain = { via: 'hierarchy', identifier: anchorItem.identifier, code: anchorKey(codes.get(anchorItem.identifier)!), terms: own.get(anchorItem.identifier)!.terms };
    } else if (segments !== null && codeDomain(segments) !== null) {
      domain = { via: 'code', identifier: null, code: codeDomain(segments), terms: null };
    }
    const code = item.humanCodingScheme?.trim() || null;
    return {
      identifier: item.identifier,
      code,
      normalizedCode: segments === null ? null : segments.join('.'),
      segments,
      terms: own.get(item.identifier)!.terms,
      grades,
      subjects,
      domain,
    };
  });
  const document = slice.CFDocument;
  return {
    document: { identifier: document.identifier, uri: document.uri ?? null, creator: document.creator?.trim().toLowerCase() || null, version: document.version ?? null },
    items: prepared,
    declared: declaredOf(associations),
  };
}
