import { EDUCATION_CONTEXT_ERRORS } from '../../domains/education/context/index.ts';
import { inputTokenBound } from '../../domains/education/drafting/index.ts';
import {
  GUIDANCE_LIMITS,
  GuidanceInputSchema,
  GuidanceResultSchema,
  guidancePrompt,
  readGuidanceAnswer,
  safetyReceiptOf,
  storedSafetyOf,
  type GuidanceInput,
  type GuidanceResult,
  type StoredSafety,
} from '../../domains/education/guidance/index.ts';
import { ModelError } from '../../domains/models/index.ts';
import { EDUCATION_PATH, METERED_EDUCATION_OPERATION, METERED_ERRORS, meteredCallOf, meteredRequestOf } from './metered-calls.ts';
import { defineOperation, type AnyOperation, type OperationContext } from './operation.ts';

/** Where the education endpoints live (spec 4.7). */
const CAPABILITY = 'education.student-guidance';

/** What the ledger keeps for a replay: the answer and the verdict its safety receipt reports. */
type StoredGuidance = GuidanceResult & { safety: StoredSafety };

/**
 * One chat call, its answer read strictly (model_output_invalid otherwise) and checked for safety: a text that would
 * reveal the answer, link out or open a direct channel is replaced by our fallback inside the metered work, so that
 * neither the ledger nor the answer ever holds it. The call is settled either way (the model did its work). The
 * safety receipt follows the usage receipt, on a replay too (from the stored verdict).
 */
async function studentGuidance(ctx: OperationContext, input: GuidanceInput): Promise<GuidanceResult> {
  const metered = meteredCallOf(ctx, CAPABILITY);
  const { models } = metered;
  const prompt = guidancePrompt(input);
  const result = await models.runMetered<StoredGuidance>({
    ...meteredRequestOf(metered, 'educationStudentGuidance', input),
    kind: 'education-student-guidance',
    bound: { inputTokens: inputTokenBound(prompt.messages), outputTokens: prompt.maxOutputTokens, images: 0 },
    async work(meter) {
      const completion = await meter.model.chat({ messages: prompt.messages, maxOutputTokens: prompt.maxOutputTokens, json: true, temperature: 0.3, signal: meter.signal });
      const read = readGuidanceAnswer(completion.text, input);
      if (!read.ok) {
        throw new ModelError('model_output_invalid', 'The model\u2019s guidance failed its schema; none of it is returned.', 'yes', undefined, { problems: read.problems });
      }
      return { ...read.value.result, safety: storedSafetyOf(input, read.value.verdict) };
    },
  });
  const { safety, ...answer } = result.data;
  metered.call.receipts?.push({ ...safetyReceiptOf(safety, { requestId: result.receipt.requestId, ledgerId: result.receipt.ledgerId, replayed: result.replayed }) });
  return answer;
}

/** educationStudentGuidance: one short, safe kind of guidance for a learner on a live activity. */
const educationStudentGuidance = defineOperation({
  id: 'educationStudentGuidance',
  summary: 'Guide a learner',
  description:
    'Answers a learner on a live teacher-authored activity with exactly one kind of guidance: a short hint, an ' +
    'explanation scaffold, a reflection question, a translation of the activity into an explicit BCP 47 locale, or a ' +
    'clearer-reading version of it. The policy must forbid answer revelation, external links and direct messaging, and ' +
    'the transcript must be visible to the teacher, or the request is refused before anything is reserved. The ' +
    `learner\u2019s message and up to ${GUIDANCE_LIMITS.priorTurns} prior turns are carried as untrusted data and ` +
    'cannot change the policy. A model text that would reveal the answer key (case, spacing, punctuation and number ' +
    'spelling aside), link out, or invite direct contact is withheld: the answer says `withheld: true` with the ' +
    'reasons and carries a fixed safe text instead. A safety receipt (`service.education-safety`) follows the usage ' +
    'receipt. Metered (education-student-guidance): needs an Idempotency-Key; a retry with the same key replays the ' +
    'stored answer without calling the model again.',
  ...METERED_EDUCATION_OPERATION,
  input: GuidanceInputSchema,
  output: GuidanceResultSchema,
  errors: [...EDUCATION_CONTEXT_ERRORS, ...METERED_ERRORS],
  product: [
    {
      method: 'POST',
      path: `${EDUCATION_PATH}/student-guidance`,
      operationId: 'studentGuidance',
      kind: 'service.education-student-guidance',
      capability: CAPABILITY,
      needs: 'intelligence.execute',
    },
  ],
  run: studentGuidance,
});

/** The student guidance operation, served only by the Product Runtime. */
export const EDUCATION_GUIDANCE_OPERATIONS: readonly AnyOperation[] = [educationStudentGuidance];
