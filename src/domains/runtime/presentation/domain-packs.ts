/**
 * Domain intelligence packs (spec 1.7, 1.9): the semantics of a domain (the kinds of entities a product works
 * with and how they relate) and which intelligence the domain offers, as capability ids of the catalogue, so that
 * whether each is available here is answered by the catalogue alone. Education is the reference domain.
 */
import { z } from 'zod';
import type { CapabilityId } from './capabilities.ts';

/** A kind of entity of a domain. */
export interface EntityKind {
  readonly id: string;
  readonly title: string;
}

/** A kind of relationship between entities of a domain, read "from ... id ... to" ("artifact aligns-to standard"). */
export interface RelationshipKind {
  readonly id: string;
  readonly title: string;
  readonly from: readonly string[];
  readonly to: readonly string[];
}

/** A domain intelligence pack. */
export interface DomainPack {
  /** What `runtime_products.domain_pack` holds. */
  readonly slug: string;
  readonly title: string;
  readonly entityKinds: readonly EntityKind[];
  readonly relationshipKinds: readonly RelationshipKind[];
  /** Intelligence computed by rules from what the product sends: the same input answers the same. */
  readonly deterministicIntelligence: readonly CapabilityId[];
  /** Workflows that run on the configured model; their outputs are advisory or proposed (spec 1.9). */
  readonly modelBackedWorkflows: readonly CapabilityId[];
  /** Private media the domain stores for its products. */
  readonly media: readonly CapabilityId[];
  /** Delegated provider connections the domain's workflows use. */
  readonly connections: readonly CapabilityId[];
}

/** Freezes a pack and everything in it: the registry is shared by every request and never changes. */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

/** Education, the reference domain (spec 1.9). Relationships carry provenance; crosswalk links are proposals. */
export const EDUCATION_PACK: DomainPack = frozen({
  slug: 'education',
  title: 'Education',
  entityKinds: [
    { id: 'course', title: 'Course' },
    { id: 'standard', title: 'Standard' },
    { id: 'learning-target', title: 'Learning target' },
    { id: 'artifact', title: 'Artifact' },
    { id: 'evidence', title: 'Evidence' },
  ],
  relationshipKinds: [
    { id: 'aligns-to', title: 'Aligns to', from: ['course', 'learning-target', 'artifact'], to: ['standard'] },
    { id: 'assesses', title: 'Assesses', from: ['artifact'], to: ['learning-target', 'standard'] },
    { id: 'evidences', title: 'Evidences', from: ['evidence'], to: ['learning-target', 'standard', 'artifact'] },
    { id: 'derived-from', title: 'Derived from', from: ['artifact'], to: ['artifact'] },
    { id: 'part-of', title: 'Part of', from: ['learning-target', 'artifact'], to: ['course'] },
    { id: 'crosswalks-to', title: 'Crosswalks to', from: ['standard'], to: ['standard'] },
    { id: 'prerequisite-of', title: 'Prerequisite of', from: ['learning-target', 'standard'], to: ['learning-target', 'standard'] },
  ],
  deterministicIntelligence: ['education.projection', 'education.artifacts.recommend', 'education.standards.crosswalk'],
  modelBackedWorkflows: [
    'education.generate',
    'education.generate-image',
    'education.student-guidance',
    'education.practice-review',
    'education.assessment-draft',
    'education.quality-review',
    'education.rubric-draft',
  ],
  media: ['media.audio.store', 'media.audio.read'],
  connections: ['connections.manage', 'connections.drive', 'connections.classroom'],
});

/** Every domain pack this server knows, by slug. */
export const DOMAIN_PACKS: readonly DomainPack[] = Object.freeze([EDUCATION_PACK]);

const BY_SLUG: ReadonlyMap<string, DomainPack> = new Map(DOMAIN_PACKS.map((pack) => [pack.slug, pack]));

/** A domain pack slug this server knows, for validating a product definition on write. */
export const DomainPackSlugSchema = z.enum(DOMAIN_PACKS.map((pack) => pack.slug) as [string, ...string[]], {
  error: 'must be a domain pack this server knows',
});

/** The domain pack of that slug, or undefined when this server knows none by that name. */
export function domainPackOf(slug: string): DomainPack | undefined {
  return BY_SLUG.get(slug);
}
