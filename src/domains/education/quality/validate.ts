/**
 * Checks a quality review answer against the request and merges kgate's reading level into it (docs/education.md):
 * each model dimension rated once, every finding's quote found in the artifact (its location), and only standards,
 * sources and policies that were sent cited. Reading level comes from measureReadingLevel alone, so the same text
 * answers the same reading level whatever the model says.
 */
import type { GradeBand } from '../context/index.ts';
import { invalid, parseModelObject, type Checked } from '../drafting/index.ts';
import {
  MODEL_DIMENSIONS,
  QUALITY_DIMENSIONS,
  QUALITY_LIMITS,
  QualityModelOutputSchema,
  type QualityReviewInput,
  type QualityReviewResult,
} from './contract.ts';
import { locateExcerpt } from './locate.ts';
import { measureReadingLevel } from './reading-level.ts';

const REVIEW =
  'Advice only: each finding quotes the place it concerns; check it there before changing anything. Reading level is ' +
  'a formula over English sentences, words and syllables, a rough signal and not a judgement of the text.';

/**
 * The Flesch-Kincaid grades a grade band spans (kindergarten is 0, pre-k -1); adult has none. A text within one
 * grade of the span is `within`.
 */
const BAND_GRADES: Readonly<Record<GradeBand, { min: number; max: number } | null>> = {
  'pre-k': { min: -1, max: 0 },
  'k-2': { min: 0, max: 2 },
  '3-5': { min: 3, max: 5 },
  '6-8': { min: 6, max: 8 },
  '9-12': { min: 9, max: 12 },
  'post-secondary': { min: 13, max: 16 },
  adult: null,
};

type Result = QualityReviewResult;

/** kgate's reading level of the artifact: the measures, the comparison to the band, its rating and findings. */
export function readingLevelOf(input: QualityReviewInput): Pick<Result, 'readingLevel'> & { dimension: Result['dimensions'][number]; findings: Result['findings'] } {
  const { text } = input.artifact;
  const measured = measureReadingLevel(text);
  const expected = BAND_GRADES[input.course.gradeBand];
  const grade = measured.fleschKincaidGrade;
  const comparison = grade === null || expected === null ? 'unknown' : grade > expected.max + 1 ? 'above' : grade < expected.min - 1 ? 'below' : 'within';
  const shown = grade === null ? 'no words to measure' : `Flesch-Kincaid grade ${grade}, reading ease ${measured.fleschReadingEase}`;
  const summaries = {
    above: `${shown}: above the course's grade band (${input.course.gradeBand}).`,
    below: `${shown}: below the course's grade band (${input.course.gradeBand}).`,
    within: `${shown}: within the course's grade band (${input.course.gradeBand}).`,
    unknown: `${shown}; no grade band to compare with.`,
  } as const;
  const findings = measured.longestSentences
    .filter((sentence) => sentence.words > QUALITY_LIMITS.longSentenceWords)
    .sort((a, b) => a.start - b.start)
    .map((sentence) => {
      const shownEnd = Math.min(sentence.end, sentence.start + QUALITY_LIMITS.excerptLength);
      return {
        dimension: 'reading-level' as const,
        severity: 'consider' as const,
        summary: `A sentence of ${sentence.words} words; consider splitting it.`,
        location: { start: sentence.start, end: sentence.end, excerpt: text.slice(sentence.start, shownEnd) },
        standards: [],
        sources: [],
        policies: [],
        by: 'kgate' as const,
      };
    });
  return {
    readingLevel: { ...measured, expectedGrades: expected, comparison },
    dimension: {
      dimension: 'reading-level',
      rating: comparison === 'above' ? 'needs-attention' : comparison === 'unknown' ? 'not-applicable' : 'adequate',
      summary: summaries[comparison],
      by: 'kgate',
    },
    findings,
  };
}

/** The model's text checked against the schema and the request, merged with kgate's reading level. */
export function checkQualityReview(text: string, input: QualityReviewInput): Checked<QualityReviewResult> {
  const parsed = parseModelObject(text, QualityModelOutputSchema);
  if (!parsed.ok) return parsed;
  const answer = parsed.value;
  const problems: string[] = [];
  const rated = new Set(answer.dimensions.map((d) => d.dimension));
  for (const dimension of MODEL_DIMENSIONS) if (!rated.has(dimension)) problems.push(`dimensions: ${dimension} is not rated`);
  const standards = new Set(input.standards.map((s) => s.code));
  const sources = new Set(input.sources.map((s) => s.id));
  const policies = new Set(input.policies.map((p) => p.id));
  const findings: Result['findings'] = [];
  answer.findings.forEach((finding, index) => {
    const at = `findings.${index}`;
    const location = locateExcerpt(input.artifact.text, finding.excerpt);
    if (!location) problems.push(`${at}.excerpt: is not a quote of the artifact`);
    if (finding.standards.some((code) => !standards.has(code))) problems.push(`${at}.standards: cites a standard that was not sent`);
    if (finding.sources.some((id) => !sources.has(id))) problems.push(`${at}.sources: cites a source that was not sent`);
    if (finding.policies.some((id) => !policies.has(id))) problems.push(`${at}.policies: cites a policy that was not sent`);
    if (location) {
      const { excerpt: _quoted, ...rest } = finding;
      findings.push({ ...rest, location, by: 'model' });
    }
  });
  if (problems.length > 0) return invalid(problems);
  const reading = readingLevelOf(input);
  const dimensions = QUALITY_DIMENSIONS.map((dimension) => {
    if (dimension === 'reading-level') return reading.dimension;
    const given = answer.dimensions.find((d) => d.dimension === dimension)!;
    return { dimension, rating: given.rating, summary: given.summary, by: 'model' as const };
  });
  const order = (d: string) => QUALITY_DIMENSIONS.indexOf(d as (typeof QUALITY_DIMENSIONS)[number]);
  const merged = [...findings, ...reading.findings].sort((a, b) => order(a.dimension) - order(b.dimension) || a.location.start - b.location.start);
  return {
    ok: true,
    value: { status: 'advisory', artifact: { id: input.artifact.id, revision: input.artifact.revision }, dimensions, readingLevel: reading.readingLevel, findings: merged, review: REVIEW },
  };
}
