/**
 * The ranking factors of one artifact against the goal: goal tags, standards, course, format and accepted status,
 * each scored 0 to 1 and weighted; a factor the goal does not ask about (no course given) does not apply, and the
 * score is the weighted mean over the factors that apply. Pure; every list is normalized and sorted first, so
 * the order of the request's lists never matters.
 */
import { compareCodes, isCodeAncestor, normalizeCode, segmentsOf } from '../crosswalk/index.ts';
import type { RecommendCandidate, RecommendGoal, RankedArtifact } from './contract.ts';

/** The weight of each factor; they sum to 1. */
export const RANKING_WEIGHTS = { goal: 0.3, standard: 0.3, course: 0.15, format: 0.1, accepted: 0.15 } as const;

/** Orders strings by UTF-16 code units (never by locale). */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A tag, need, support or format normalized: NFKC, lower case, runs of spaces, underscores and dashes one dash. */
export function normalizeTag(raw: string): string {
  return raw
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Normalized, unique, sorted tags (empty ones dropped). */
export function tagsOf(list: readonly string[]): string[] {
  return [...new Set(list.map(normalizeTag).filter((t) => t !== ''))].sort();
}

/** Normalized, unique, sorted standard codes. */
export function codesOf(list: readonly string[]): string[] {
  return [...new Set(list.map(normalizeCode).filter((c): c is string => c !== null))].sort();
}

/** The primary language subtag, lower case (es-MX and es are one language here). */
export function primaryLanguage(tag: string): string {
  return tag.split('-')[0]!.toLowerCase();
}

/** The goal, normalized once for every candidate. */
export interface NormalizedGoal {
  goalTags: string[];
  standardCodes: string[];
  courseId: string | null;
  format: string | null;
  language: string | null;
  differentiation: string[];
}

/** Normalizes the goal. */
export function normalizeGoal(goal: RecommendGoal): NormalizedGoal {
  return {
    goalTags: tagsOf(goal.goalTags),
    standardCodes: codesOf(goal.standardCodes),
    courseId: goal.courseId ?? null,
    format: goal.format === undefined ? null : normalizeTag(goal.format) || null,
    language: goal.language ?? null,
    differentiation: tagsOf(goal.differentiation),
  };
}

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

/** Requested standards the artifact carries (`matched`: the same code, also under a publisher prefix) or a parent or child of (`related`). */
export function standardsMatch(requested: readonly string[], carried: readonly string[]): { matched: string[]; related: string[] } {
  const carriedSegments = carried.map(segmentsOf);
  const matched: string[] = [];
  const related: string[] = [];
  for (const code of requested) {
    const segments = segmentsOf(code);
    if (carriedSegments.some((c) => ['exact', 'suffix'].includes(compareCodes(segments, c).match))) matched.push(code);
    else if (carriedSegments.some((c) => isCodeAncestor(segments, c))) related.push(code);
  }
  return { matched, related };
}

/** The ranking signals of one artifact and its score (rounded to four decimals). */
export function rankingSignals(goal: NormalizedGoal, candidate: RecommendCandidate): { score: number; signals: RankedArtifact['signals'] } {
  const tags = tagsOf(candidate.goalTags);
  const matchedTags = goal.goalTags.filter((t) => tags.includes(t));
  const standards = standardsMatch(goal.standardCodes, codesOf(candidate.standardCodes));
  const sameCourse = goal.courseId !== null && candidate.courseId === goal.courseId;
  const sameFormat = goal.format !== null && normalizeTag(candidate.format) === goal.format;
  const parts = {
    goal: { applies: goal.goalTags.length > 0, score: goal.goalTags.length === 0 ? 0 : matchedTags.length / goal.goalTags.length },
    standard: {
      applies: goal.standardCodes.length > 0,
      score: goal.standardCodes.length === 0 ? 0 : (standards.matched.length + 0.5 * standards.related.length) / goal.standardCodes.length,
    },
    course: { applies: goal.courseId !== null, score: sameCourse ? 1 : 0 },
    format: { applies: goal.format !== null, score: sameFormat ? 1 : 0 },
    accepted: { applies: true, score: candidate.accepted ? 1 : 0 },
  };
  const names = ['goal', 'standard', 'course', 'format', 'accepted'] as const;
  const total = names.reduce((sum, name) => sum + (parts[name].applies ? RANKING_WEIGHTS[name] : 0), 0);
  const entry = (name: (typeof names)[number]) => {
    const { applies, score } = parts[name];
    return { applies, weight: RANKING_WEIGHTS[name], score: round4(score), contribution: applies ? round4((RANKING_WEIGHTS[name] * score) / total) : 0 };
  };
  // Summed in the fixed factor order from unrounded parts, then rounded once: the same inputs, the same float.
  const score = round4(names.reduce((sum, name) => sum + (parts[name].applies ? RANKING_WEIGHTS[name] * parts[name].score : 0), 0) / total);
  return {
    score,
    signals: {
      goal: { ...entry('goal'), matched: matchedTags },
      standard: { ...entry('standard'), matched: standards.matched, related: standards.related },
      course: { ...entry('course'), matched: sameCourse },
      format: { ...entry('format'), matched: sameFormat },
      accepted: { ...entry('accepted'), accepted: candidate.accepted },
    },
  };
}
