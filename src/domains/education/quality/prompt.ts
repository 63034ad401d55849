/**
 * The quality review prompt: our fixed instructions with the answer's schema, and the request as data. The model is
 * not asked about reading level: kgate computes it (reading-level.ts) and the model's view of it is not wanted.
 */
import { DATA_RULES, dataMessage, type DraftPrompt } from '../drafting/index.ts';
import { MODEL_DIMENSIONS, QUALITY_LIMITS, type QualityReviewInput } from './contract.ts';

/** The most tokens a quality review answer may take. */
export const QUALITY_MAX_OUTPUT_TOKENS = 4000;

const SYSTEM = [
  'You are an assistant that reviews a teaching artifact for a teacher. Your review is advice; the teacher decides.',
  DATA_RULES,
  '',
  `Rate each of these dimensions exactly once: ${MODEL_DIMENSIONS.join(', ')}.`,
  'alignment: does the artifact serve the adopted standards; source-support: are its claims supported by the sources;',
  'citations: are sources cited where used; accessibility: can every learner of the class use it; bias-risk: stereotypes,',
  'exclusion or loaded language; assessment-validity: do its questions measure what they claim; policy-conflicts: does',
  'it break a policy constraint. Do not assess reading level: it is measured separately.',
  'Every finding quotes the artifact verbatim in "excerpt" (4 to 300 characters, copied exactly) to show where it applies.',
  'Cite standards by the codes sent, sources and policies by the ids sent, nothing else. The schema of your answer:',
  '{ "dimensions": [{ "dimension": name, "rating": "strong" | "adequate" | "needs-attention" | "not-applicable", "summary": text }],',
  `  "findings": [0-${QUALITY_LIMITS.maximumFindings} of { "dimension": name, "severity": "info" | "consider" | "concern",`,
  '    "summary": text, "excerpt": quote, "suggestion": text (optional), "standards": [codes], "sources": [ids], "policies": [ids] }] }',
  'Texts are plain, at most 600 characters.',
].join('\n');

/** The messages of a quality review and its output bound. */
export function qualityReviewPrompt(input: QualityReviewInput): DraftPrompt {
  const data = {
    artifact: input.artifact,
    course: input.course,
    standards: input.standards,
    sources: input.sources,
    policies: input.policies,
    ...(input.context ? { classContext: input.context } : {}),
  };
  return { messages: [{ role: 'system', content: SYSTEM }, dataMessage(data)], maxOutputTokens: QUALITY_MAX_OUTPUT_TOKENS };
}
