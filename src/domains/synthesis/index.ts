/**
 * Living synthesis: a context scope's brief, in sections built deterministically from its knowledge records, each
 * with its evidence, compared with the records at every read (stale when they changed) and accepted only by a person
 * (docs/synthesis.md).
 */
export { SYNTHESIS_BUILDER_VERSION, bodyOf, fingerprintOf } from './build.ts';
export {
  MAX_SECTION_ITEMS,
  ReviewStateSchema,
  SECTION_KINDS,
  SECTION_TITLES,
  SectionEvidenceSchema,
  SectionItemSchema,
  StalenessSchema,
} from './contract.ts';
export type { ReviewState, Section, SectionBody, SectionEvidence, SectionItem, SectionKind, Staleness } from './contract.ts';
export { createSynthesisService } from './service.ts';
export type { SynthesisService } from './service.ts';
