/** The standards crosswalk (docs/education.md, "Standards crosswalk"): pure, deterministic, content-free answers. */
export { CasePackageSchema, MAX_FRAMEWORK_ASSOCIATIONS, MAX_FRAMEWORK_ITEMS, MAX_STATEMENT_CHARS, type CasePackage } from './case.ts';
export { compareCodes, isCodeAncestor, normalizeCode, segmentsOf, type CodeMatch } from './codes.ts';
export {
  CrosswalkInputSchema,
  CrosswalkResultSchema,
  DEFAULT_CANDIDATES_PER_ITEM,
  DEFAULT_MIN_CONFIDENCE,
  MAX_CANDIDATES_PER_ITEM,
  type CrosswalkInput,
  type CrosswalkResult,
} from './contract.ts';
export { BANDS, CROSSWALK_METHOD, FLOORS, crosswalkFrameworks, crosswalkInSlices, type CandidateSearch } from './crosswalk.ts';
export { WEIGHTS as CROSSWALK_WEIGHTS } from './score.ts';
