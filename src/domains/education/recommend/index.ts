/** Artifact recommendations (docs/education.md, "Artifact recommendations"): pure, deterministic, content-free answers. */
export { MAX_CANDIDATES, MAX_FINGERPRINT, RecommendInputSchema, RecommendResultSchema, type RecommendInput, type RecommendResult, type Recommendation } from './contract.ts';
export { NEAR_DUPLICATE_SIMILARITY, sketchSimilarity } from './near-duplicates.ts';
export { RECOMMEND_METHOD, recommendArtifacts } from './recommend.ts';
export { GOAL_COVERAGE_FOR_REUSE } from './rules.ts';
export { RANKING_WEIGHTS } from './signals.ts';
