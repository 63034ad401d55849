import { describe, expect, it } from 'vitest';
import { BUILT_CAPABILITIES, capabilityOf, catalogueAvailability } from './capabilities.ts';
import { DOMAIN_PACKS, DomainPackSlugSchema, EDUCATION_PACK, domainPackOf } from './domain-packs.ts';

const capabilitiesOf = (pack = EDUCATION_PACK) => [
  ...pack.deterministicIntelligence,
  ...pack.modelBackedWorkflows,
  ...pack.media,
  ...pack.connections,
];

describe('domain packs', () => {
  it('find education by its slug and nothing else', () => {
    expect(domainPackOf('education')).toBe(EDUCATION_PACK);
    for (const slug of ['Education', 'health', '', 'constructor', '__proto__']) expect(domainPackOf(slug)).toBeUndefined();
    expect(DOMAIN_PACKS.map((pack) => pack.slug)).toEqual(['education']);
  });

  it("validate a product definition's pack slug", () => {
    expect(DomainPackSlugSchema.safeParse('education').success).toBe(true);
    expect(DomainPackSlugSchema.safeParse('finance').success).toBe(false);
  });

  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(EDUCATION_PACK)).toBe(true);
    expect(Object.isFrozen(EDUCATION_PACK.entityKinds)).toBe(true);
    expect(Object.isFrozen(EDUCATION_PACK.relationshipKinds[0]?.from)).toBe(true);
    expect(() => (EDUCATION_PACK.modelBackedWorkflows as string[]).push('notes.publish')).toThrow(TypeError);
  });
});

describe('the education pack (spec 1.9)', () => {
  it('names the entity kinds of education', () => {
    expect(EDUCATION_PACK.entityKinds.map((kind) => kind.id)).toEqual(['course', 'standard', 'learning-target', 'artifact', 'evidence']);
  });

  it('relates only entity kinds it names', () => {
    const kinds = new Set(EDUCATION_PACK.entityKinds.map((kind) => kind.id));
    const ids = EDUCATION_PACK.relationshipKinds.map((kind) => kind.id);
    expect(ids).toEqual(expect.arrayContaining(['aligns-to', 'assesses', 'evidences', 'derived-from']));
    expect(new Set(ids).size).toBe(ids.length);
    for (const relation of EDUCATION_PACK.relationshipKinds) {
      expect(relation.from.length).toBeGreaterThan(0);
      expect(relation.to.length).toBeGreaterThan(0);
      for (const kind of [...relation.from, ...relation.to]) expect(kinds.has(kind)).toBe(true);
    }
  });

  it('offers its deterministic intelligence and model-backed workflows as catalogue capabilities', () => {
    expect(EDUCATION_PACK.deterministicIntelligence).toEqual([
      'education.projection',
      'education.artifacts.recommend',
      'education.standards.crosswalk',
    ]);
    expect(EDUCATION_PACK.modelBackedWorkflows).toEqual([
      'education.generate',
      'education.generate-image',
      'education.student-guidance',
      'education.practice-review',
      'education.assessment-draft',
      'education.quality-review',
      'education.rubric-draft',
    ]);
    for (const id of EDUCATION_PACK.deterministicIntelligence) expect(capabilityOf(id)?.needsModel).toBe(false);
    for (const id of EDUCATION_PACK.modelBackedWorkflows) expect(capabilityOf(id)?.needsModel).toBe(true);
    for (const id of capabilitiesOf()) expect(capabilityOf(id)).toBeDefined();
  });

  it('answers each of its capabilities as available exactly when this server has built it', () => {
    const availability = new Map(catalogueAvailability({ built: BUILT_CAPABILITIES, modelConfigured: true, imageModelConfigured: true }).map((entry) => [entry.id, entry]));
    for (const id of capabilitiesOf()) {
      if (BUILT_CAPABILITIES.has(id)) expect(availability.get(id)).toMatchObject({ availability: 'available' });
      else expect(availability.get(id)).toMatchObject({ availability: 'unavailable', reason: 'not available on this server yet' });
    }
    expect(BUILT_CAPABILITIES.has('education.projection')).toBe(true);
  });
});
