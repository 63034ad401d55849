/**
 * Checks a practice review answer against the request, beyond its schema: sessions that exist and each one served,
 * proposals within the per-session bound, `addresses` naming only what was sent, and answer guides that fit their
 * proposal (option indexes in range, one placement per card). Then presents the data, kept as proposed.
 */
import { invalid, parseModelObject, type Checked } from '../drafting/index.ts';
import {
  PRACTICE_LIMITS,
  PracticeModelOutputSchema,
  type PracticeProposal,
  type PracticeReviewInput,
  type PracticeReviewResult,
} from './contract.ts';

const REVIEW =
  'Proposals only: check every prompt, option and answer guide against your standard and your class before use. Answer ' +
  'guides are for educators; do not show them to learners. Nothing here grades or places a learner.';

function guideProblems(proposal: PracticeProposal, at: string): string[] {
  const problems: string[] = [];
  if (proposal.type === 'poll') {
    const indexes = proposal.answerGuide.correctOptions;
    if (indexes.some((index) => index >= proposal.options.length)) problems.push(`${at}.answerGuide.correctOptions: names an option that does not exist`);
    if (new Set(indexes).size !== indexes.length) problems.push(`${at}.answerGuide.correctOptions: repeats an option`);
  } else if (proposal.type === 'sort') {
    const placed = proposal.answerGuide.placements;
    const cards = new Set(placed.map((p) => p.card));
    if (placed.length !== proposal.cards.length || cards.size !== proposal.cards.length || placed.some((p) => p.card >= proposal.cards.length)) {
      problems.push(`${at}.answerGuide.placements: must place every card exactly once`);
    }
    if (placed.some((p) => p.category >= proposal.categories.length)) problems.push(`${at}.answerGuide.placements: names a category that does not exist`);
  }
  return problems;
}

/** The model's text checked against the schema and the request: the endpoint's data, or the problems. */
export function checkPracticeReview(text: string, input: PracticeReviewInput): Checked<PracticeReviewResult> {
  const parsed = parseModelObject(text, PracticeModelOutputSchema);
  if (!parsed.ok) return parsed;
  const answer = parsed.value;
  const sessions = input.cadence.sessions;
  const known = new Set<string>();
  for (const session of sessions) {
    for (const item of session.items) known.add(item.itemRef);
    for (const m of session.misconceptions) known.add(m.category);
  }
  const problems: string[] = [];
  const perSession = new Map<number, PracticeProposal[]>();
  answer.proposals.forEach((proposal, index) => {
    const at = `proposals.${index}`;
    if (proposal.session > sessions.length) problems.push(`${at}.session: there are ${sessions.length} sessions`);
    for (const ref of proposal.addresses) if (!known.has(ref)) problems.push(`${at}.addresses: names an item or misconception that was not sent`);
    problems.push(...guideProblems(proposal, at));
    perSession.set(proposal.session, [...(perSession.get(proposal.session) ?? []), proposal]);
  });
  sessions.forEach((_session, index) => {
    const count = perSession.get(index + 1)?.length ?? 0;
    if (count === 0) problems.push(`session ${index + 1} has no proposal`);
    if (count > PRACTICE_LIMITS.proposalsPerSession) problems.push(`session ${index + 1} has more than ${PRACTICE_LIMITS.proposalsPerSession} proposals`);
  });
  if (problems.length > 0) return invalid(problems);
  return {
    ok: true,
    value: {
      status: 'proposed',
      standard: input.standard.code,
      spacing: input.cadence.spacing,
      sessions: sessions.map((session, index) => ({ session: index + 1, label: session.label, proposals: perSession.get(index + 1) ?? [] })),
      cautions: answer.cautions,
      reviewChecklist: answer.reviewChecklist,
      review: REVIEW,
    },
  };
}
