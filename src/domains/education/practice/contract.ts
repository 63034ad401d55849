/**
 * Practice review's request and answer (spec 4.7; docs/education.md, "Practice review"): one course and standard, a
 * cadence of two to five review sessions, and for each the class's aggregate results as the teacher confirmed them.
 * No learner identity is received: the schemas have no field that could hold one (an unknown field is refused), and
 * every free text is screened by the context packet's learner-language detector (screen.ts).
 */
import { z } from 'zod';
import { EDUCATION_CONTEXT_LIMITS, EducationContextField } from '../context/index.ts';
import { CourseSchema, RefSchema, StandardSchema, lineText, uniqueBy } from '../drafting/index.ts';

/** The bounds of a practice review (spec 8: two to five sessions; docs/education.md for the rest). */
export const PRACTICE_LIMITS = {
  minimumSessions: 2,
  maximumSessions: 5,
  /** The smallest group whose results may be described (spec 8, the same minimum as the context packet). */
  minimumGroupSize: EDUCATION_CONTEXT_LIMITS.minimumGroupSize,
  maximumGroupSize: EDUCATION_CONTEXT_LIMITS.maximumLearnerCount,
  itemsPerSession: 20,
  misconceptionsPerSession: 10,
  labelLength: 80,
  descriptionLength: 240,
  /** Proposals the answer holds per session, at most. */
  proposalsPerSession: 4,
  checklistItems: 10,
  cautions: 8,
  answerTextLength: 600,
} as const;

/** How far apart the review sessions are. */
export const PRACTICE_SPACINGS = ['daily', 'every-other-day', 'twice-weekly', 'weekly'] as const;

/** The proposal types a practice review answers with (spec 4.7: poll, short answer, sort). */
export const PRACTICE_PROPOSAL_TYPES = ['poll', 'short-answer', 'sort'] as const;

const Count = z.int().min(0).max(PRACTICE_LIMITS.maximumGroupSize);
const Rate = z.number().min(0).max(1);

/** One practice item's aggregate result: counts of the group, or the share that got it right. */
export const ItemResultSchema = z
  .strictObject({
    itemRef: RefSchema.describe('The teacher\u2019s reference of the item; proposals cite what they address by it'),
    description: lineText(PRACTICE_LIMITS.descriptionLength).describe('What the item asked, in class-level words'),
    correctCount: Count.optional().describe('How many of the group answered correctly'),
    incorrectCount: Count.optional().describe('How many of the group answered incorrectly'),
    correctRate: Rate.optional().describe('The share of the group that answered correctly, 0 to 1 (instead of counts)'),
  })
  .describe('An item\u2019s aggregate result: correctCount and incorrectCount, or correctRate');

/** A misconception category the teacher saw, with how often (a count of the group, or a share). */
export const MisconceptionSchema = z
  .strictObject({
    category: lineText(PRACTICE_LIMITS.labelLength).describe('The misconception, in class-level words; proposals cite it'),
    count: Count.optional().describe('How many of the group showed it'),
    rate: Rate.optional().describe('The share of the group that showed it, 0 to 1 (instead of a count)'),
  })
  .describe('A misconception category: count or rate');

/** One session's evidence: aggregate only, confirmed by the teacher. */
export const SessionEvidenceSchema = z
  .strictObject({
    label: lineText(PRACTICE_LIMITS.labelLength).describe('The session, e.g. "Review 1" or "Monday warm-up"'),
    teacherConfirmed: z.literal(true).describe('The teacher confirmed these aggregate results (required)'),
    groupSize: z
      .int()
      .min(1)
      .max(PRACTICE_LIMITS.maximumGroupSize)
      .describe('How many learners the results describe: at least five (smaller is group_too_small)'),
    items: z.array(ItemResultSchema).max(PRACTICE_LIMITS.itemsPerSession).default([]),
    misconceptions: z.array(MisconceptionSchema).max(PRACTICE_LIMITS.misconceptionsPerSession).default([]),
  })
  .describe('A session\u2019s aggregate evidence, teacher-confirmed');

/** The practice review request. */
export const PracticeReviewInputSchema = z
  .strictObject({
    course: CourseSchema,
    standard: StandardSchema.describe('The one authorized standard the review practices'),
    cadence: z
      .strictObject({
        spacing: z.enum(PRACTICE_SPACINGS).describe('How far apart the sessions are'),
        sessions: z
          .array(SessionEvidenceSchema)
          .min(PRACTICE_LIMITS.minimumSessions)
          .max(PRACTICE_LIMITS.maximumSessions)
          .describe('Two to five sessions, in order, each with its aggregate evidence'),
      })
      .describe('The explicit cadence: two to five sessions'),
    context: EducationContextField,
  })
  .superRefine((input, ctx) => {
    input.cadence.sessions.forEach((session, s) => {
      const path = ['cadence', 'sessions', s];
      if (session.items.length === 0 && session.misconceptions.length === 0) {
        ctx.addIssue({ code: 'custom', path, message: 'a session needs at least one item result or misconception' });
      }
      session.items.forEach((item, i) => {
        const counts = item.correctCount !== undefined || item.incorrectCount !== undefined;
        const rate = item.correctRate !== undefined;
        if (counts === rate || (counts && (item.correctCount === undefined || item.incorrectCount === undefined))) {
          ctx.addIssue({ code: 'custom', path: [...path, 'items', i], message: 'give correctCount and incorrectCount, or correctRate' });
        } else if (counts && item.correctCount! + item.incorrectCount! > session.groupSize) {
          ctx.addIssue({ code: 'custom', path: [...path, 'items', i], message: 'the counts exceed the groupSize' });
        }
      });
      session.misconceptions.forEach((m, i) => {
        if ((m.count === undefined) === (m.rate === undefined)) {
          ctx.addIssue({ code: 'custom', path: [...path, 'misconceptions', i], message: 'give a count or a rate' });
        } else if (m.count !== undefined && m.count > session.groupSize) {
          ctx.addIssue({ code: 'custom', path: [...path, 'misconceptions', i, 'count'], message: 'exceeds the groupSize' });
        }
      });
      for (const i of uniqueBy(session.items, (item) => item.itemRef)) {
        ctx.addIssue({ code: 'custom', path: [...path, 'items', i, 'itemRef'], message: 'repeats an earlier itemRef of the session' });
      }
      for (const i of uniqueBy(session.misconceptions, (m) => m.category.trim().toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [...path, 'misconceptions', i, 'category'], message: 'repeats an earlier category' });
      }
    });
  })
  .describe('Practice review: one course and standard, two to five sessions of aggregate evidence, no learner identity');

/** A validated practice review request. */
export type PracticeReviewInput = z.output<typeof PracticeReviewInputSchema>;

const AnswerText = lineText(PRACTICE_LIMITS.answerTextLength);
const ShortText = lineText(PRACTICE_LIMITS.descriptionLength);

/** The educator-only guide of a proposal: never shown to learners. */
const AnswerGuideShape = {
  rationale: AnswerText.describe('Why the answer is right and what a wrong answer suggests'),
};

/** What the model proposes for one session: a poll, a short-answer prompt or a sort, each with its educator-only guide. */
export const PracticeProposalSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('poll'),
    session: z.int().min(1).max(PRACTICE_LIMITS.maximumSessions),
    prompt: AnswerText,
    options: z.array(ShortText).min(2).max(5),
    addresses: z.array(lineText(PRACTICE_LIMITS.labelLength)).min(1).max(5),
    standardRationale: AnswerText,
    answerGuide: z.strictObject({ ...AnswerGuideShape, correctOptions: z.array(z.int().min(0).max(4)).min(1).max(4) }),
  }),
  z.strictObject({
    type: z.literal('short-answer'),
    session: z.int().min(1).max(PRACTICE_LIMITS.maximumSessions),
    prompt: AnswerText,
    addresses: z.array(lineText(PRACTICE_LIMITS.labelLength)).min(1).max(5),
    standardRationale: AnswerText,
    answerGuide: z.strictObject({ ...AnswerGuideShape, exemplar: AnswerText, lookFors: z.array(ShortText).min(1).max(5) }),
  }),
  z.strictObject({
    type: z.literal('sort'),
    session: z.int().min(1).max(PRACTICE_LIMITS.maximumSessions),
    prompt: AnswerText,
    categories: z.array(lineText(PRACTICE_LIMITS.labelLength)).min(2).max(4),
    cards: z.array(ShortText).min(3).max(10),
    addresses: z.array(lineText(PRACTICE_LIMITS.labelLength)).min(1).max(5),
    standardRationale: AnswerText,
    answerGuide: z.strictObject({
      ...AnswerGuideShape,
      placements: z.array(z.strictObject({ card: z.int().min(0).max(9), category: z.int().min(0).max(3) })).min(3).max(10),
    }),
  }),
]);

/** The model's whole answer (checked strictly; validate.ts adds the checks against the request). */
export const PracticeModelOutputSchema = z.strictObject({
  proposals: z.array(PracticeProposalSchema).min(PRACTICE_LIMITS.minimumSessions).max(PRACTICE_LIMITS.maximumSessions * PRACTICE_LIMITS.proposalsPerSession),
  cautions: z.array(AnswerText).max(PRACTICE_LIMITS.cautions),
  reviewChecklist: z.array(ShortText).min(1).max(PRACTICE_LIMITS.checklistItems),
});

/** The model's answer, as validated. */
export type PracticeModelOutput = z.output<typeof PracticeModelOutputSchema>;
/** One proposal of the answer. */
export type PracticeProposal = z.output<typeof PracticeProposalSchema>;

/** The endpoint's data (`service.education-practice-review`): the proposals, per session, kept as proposed. */
export const PracticeReviewResultSchema = z.strictObject({
  status: z.literal('proposed').describe('Proposals for the teacher to review; nothing is assigned to anyone'),
  standard: RefSchema.describe('The standard practiced'),
  spacing: z.enum(PRACTICE_SPACINGS),
  sessions: z
    .array(
      z.strictObject({
        session: z.int().min(1),
        label: z.string(),
        proposals: z.array(PracticeProposalSchema.describe('A proposal; its answerGuide is for the educator only, never for learners')),
      }),
    )
    .describe('The sessions in order, each with its proposals'),
  cautions: z.array(z.string()),
  reviewChecklist: z.array(z.string()),
  review: z.string().describe('What the teacher should check before using any of it'),
});

/** The endpoint's data. */
export type PracticeReviewResult = z.output<typeof PracticeReviewResultSchema>;
