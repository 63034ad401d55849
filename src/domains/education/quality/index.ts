/** Quality review (spec 4.7; docs/education.md): request, prompt, kgate's reading level, and the check of the model's answer. */
export {
  ARTIFACT_KINDS,
  MODEL_DIMENSIONS,
  QUALITY_DIMENSIONS,
  QUALITY_LIMITS,
  QUALITY_RATINGS,
  QUALITY_SEVERITIES,
  QualityModelOutputSchema,
  QualityReviewInputSchema,
  QualityReviewResultSchema,
  ReadingLevelSchema,
} from './contract.ts';
export type { QualityDimension, QualityModelOutput, QualityReviewInput, QualityReviewResult } from './contract.ts';
export { locateExcerpt } from './locate.ts';
export type { ArtifactLocation } from './locate.ts';
export { measureReadingLevel } from './reading-level.ts';
export type { ReadingLevel, SentenceSpan } from './reading-level.ts';
export { countSyllables } from './syllables.ts';
export { qualityReviewPrompt, QUALITY_MAX_OUTPUT_TOKENS } from './prompt.ts';
export { checkQualityReview, readingLevelOf } from './validate.ts';
