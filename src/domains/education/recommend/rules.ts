/**
 * What to do with an artifact (docs/education.md, "Artifact recommendations"): every rule that applies becomes an
 * action, and the recommendation is the first action in the order of how much each changes the artifact:
 * 1. adaptation: a requested standard it does not carry (or carries only a parent or child of), fewer than half the
 *    goal tags, or another course than the one asked for;
 * 2. translation: its language differs from the target language (primary subtags compared: es-MX is es);
 * 3. format-conversion: its format differs from the format asked for;
 * 4. differentiation: a support the learners need that it does not offer;
 * 5. reuse: none of the above; it fits the goal as it is.
 */
import type { RankedArtifact, Recommendation, RecommendCandidate } from './contract.ts';
import { normalizeTag, primaryLanguage, tagsOf, type NormalizedGoal } from './signals.ts';

/** Below this share of the goal's tags, an artifact needs adapting to the goal. */
export const GOAL_COVERAGE_FOR_REUSE = 0.5;

/** The actions, recommendation and reasons of one artifact. */
export interface RuledArtifact {
  recommendation: Recommendation;
  actions: Recommendation[];
  reasons: string[];
  language: RankedArtifact['language'];
  differentiation: RankedArtifact['differentiation'];
}

/** Applies the rules to one artifact and its ranking signals. */
export function applyRules(goal: NormalizedGoal, candidate: RecommendCandidate, signals: RankedArtifact['signals']): RuledArtifact {
  const reasons: string[] = [];
  const actions: Recommendation[] = [];
  const uncovered = goal.standardCodes.length - signals.standard.matched.length - signals.standard.related.length;
  if (uncovered > 0) reasons.push('standard-not-carried');
  if (signals.standard.related.length > 0) reasons.push('standard-related-only');
  if (goal.goalTags.length > 0 && signals.goal.score < GOAL_COVERAGE_FOR_REUSE) reasons.push('goal-tags-partly-covered');
  if (goal.courseId !== null && !signals.course.matched) reasons.push('other-course');
  if (reasons.length > 0) actions.push('adaptation');

  const artifactLanguage = primaryLanguage(candidate.language);
  const target = goal.language === null ? null : primaryLanguage(goal.language);
  const languageMatches = target === null || target === artifactLanguage;
  if (!languageMatches) {
    reasons.push('language-differs');
    actions.push('translation');
  }
  if (goal.format !== null && !signals.format.matched) {
    reasons.push('format-differs');
    actions.push('format-conversion');
  }
  const offered = tagsOf(candidate.differentiation);
  const unmet = goal.differentiation.filter((need) => !offered.includes(need));
  if (unmet.length > 0) {
    reasons.push('differentiation-unmet');
    actions.push('differentiation');
  }
  if (actions.length === 0) {
    reasons.push('fits-goal');
    actions.push('reuse');
  }
  return {
    recommendation: actions[0]!,
    actions,
    reasons,
    language: { artifact: normalizeTag(candidate.language), target: goal.language === null ? null : normalizeTag(goal.language), matches: languageMatches },
    differentiation: { needed: goal.differentiation, offered, unmet },
  };
}
