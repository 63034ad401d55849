/**
 * Artifact recommendations (spec 4.7, docs/education.md): ranks at most 250 candidate artifacts against a goal by
 * goal tags, standards, course, format and accepted status, flags near-duplicates, and recommends reuse,
 * adaptation, translation, differentiation or format conversion for each. Pure and deterministic: the same request
 * gives the same answer byte for byte, whatever the order of its lists; ties go to the smaller id. The answer
 * names artifacts by their ids; no title or content is in it.
 */
import { KgateError } from '../../../kernel/errors.ts';
import { RecommendationSchema, type RankedArtifact, type RecommendInput, type RecommendResult } from './contract.ts';
import { NEAR_DUPLICATE_SIMILARITY, nearDuplicateGroups } from './near-duplicates.ts';
import { applyRules } from './rules.ts';
import { RANKING_WEIGHTS, byCodeUnit, normalizeGoal, rankingSignals } from './signals.ts';

/** The method's version, in every answer: a change of weights or rules is a new version. */
export const RECOMMEND_METHOD = 'recommend-1';

/** Ranks and classifies the candidates. */
export function recommendArtifacts(input: RecommendInput): RecommendResult {
  const seen = new Set<string>();
  for (const candidate of [...input.candidates].sort((a, b) => byCodeUnit(a.id, b.id))) {
    if (seen.has(candidate.id)) {
      throw new KgateError('invalid_request', `Two candidates have the id ${candidate.id}.`, { field: 'candidates', id: candidate.id });
    }
    seen.add(candidate.id);
  }
  const goal = normalizeGoal(input.goal);
  const assessed = input.candidates.map((candidate) => {
    const { score, signals } = rankingSignals(goal, candidate);
    return { candidate, score, signals, ruled: applyRules(goal, candidate, signals) };
  });
  const groups = nearDuplicateGroups(
    assessed.map(({ candidate, score }) => ({
      id: candidate.id,
      title: candidate.title,
      format: candidate.format,
      language: candidate.language,
      sketch: [...new Set(candidate.fingerprint ?? [])].sort(),
      accepted: candidate.accepted,
      score,
      updatedAtMs: Date.parse(candidate.updatedAt),
    })),
  );
  const groupOf = new Map<string, { group: string; preferred: string }>();
  for (const g of groups) for (const id of g.ids) groupOf.set(id, { group: g.group, preferred: g.preferred });
  const ranked: RankedArtifact[] = assessed
    .sort((a, b) => b.score - a.score || byCodeUnit(a.candidate.id, b.candidate.id))
    .map(({ candidate, score, signals, ruled }, k) => {
      const duplicate = groupOf.get(candidate.id);
      const cautions = [...(candidate.accepted ? [] : ['not-accepted']), ...(duplicate && duplicate.preferred !== candidate.id ? ['near-duplicate'] : [])];
      return {
        rank: k + 1,
        id: candidate.id,
        score,
        recommendation: ruled.recommendation,
        actions: ruled.actions,
        reasons: ruled.reasons,
        cautions,
        signals,
        language: ruled.language,
        differentiation: ruled.differentiation,
        nearDuplicateGroup: duplicate?.group ?? null,
      };
    });
  const byRecommendation = Object.fromEntries(RecommendationSchema.options.map((r) => [r, ranked.filter((a) => a.recommendation === r).length])) as RecommendResult['counts']['byRecommendation'];
  return {
    method: { version: RECOMMEND_METHOD, weights: { ...RANKING_WEIGHTS }, nearDuplicateSimilarity: NEAR_DUPLICATE_SIMILARITY },
    ranked,
    nearDuplicates: groups,
    counts: { candidates: ranked.length, nearDuplicateGroups: groups.length, byRecommendation },
  };
}
