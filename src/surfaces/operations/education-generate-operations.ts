import { EDUCATION_CONTEXT_ERRORS } from '../../domains/education/context/index.ts';
import { inputTokenBound } from '../../domains/education/drafting/index.ts';
import {
  GENERATE_INTENTS,
  GENERATE_LIMITS,
  GenerateInputSchema,
  GenerateResultSchema,
  checkGeneratedText,
  generatePrompt,
  type GenerateInput,
  type GenerateResult,
} from '../../domains/education/generate/index.ts';
import { ModelError, type ChatCompletion, type Meter } from '../../domains/models/index.ts';
import { EDUCATION_PATH, METERED_EDUCATION_OPERATION, METERED_ERRORS, meteredCallOf, meteredRequestOf } from './metered-calls.ts';
import { defineOperation, type AnyOperation, type GenerationSink, type OperationContext } from './operation.ts';

/** The operation's id (also its fingerprint's operation). */
const OPERATION_ID = 'generateEducation';
/** Its capability in the runtime's catalogue. */
export const GENERATE_CAPABILITY = 'education.generate';
/** Its route (spec 4.7). */
export const GENERATE_PATH = `${EDUCATION_PATH}/generate`;

/** The facts of the `ready` event: what runs, never the request's text. */
function readyFacts(input: GenerateInput, replayed: boolean): Record<string, unknown> {
  return { kind: 'service.education-generation', meteredKind: 'education-generate', intent: input.intent, locale: input.locale, replayed };
}

/** The model's draft: streamed to the sink as it comes when the caller asked for a stream, else one completion. */
async function draftOf(meter: Meter, input: GenerateInput, sink: GenerationSink | undefined): Promise<ChatCompletion> {
  const prompt = generatePrompt(input);
  const request = { messages: prompt.messages, maxOutputTokens: prompt.maxOutputTokens, temperature: 0.4, signal: meter.signal };
  if (!sink) return meter.model.chat(request);
  sink.ready(readyFacts(input, false));
  let written = 0;
  for await (const event of meter.model.chatStream(request)) {
    if (event.kind === 'done') return event.completion;
    written += event.text.length;
    // A model that writes past every bound is stopped here rather than streamed on (its answer is invalid anyway).
    if (written > GENERATE_LIMITS.maximumTextLength) {
      throw new ModelError('model_output_invalid', 'The model\u2019s draft exceeded its bound; none of it is returned.', 'yes', undefined, {
        problems: [`the draft is longer than ${GENERATE_LIMITS.maximumTextLength} characters`],
      });
    }
    // A slow reader's sink answers a promise that settles once it has room: the model's stream waits meanwhile.
    await sink.delta(event.text);
  }
  // The stream ended without its completion: the provider accepted the request and did not finish it.
  throw new ModelError('model_interrupted', 'The model\u2019s stream ended before the draft was complete.', 'yes');
}

/**
 * Runs one generation through the metered runner (docs/budgets.md): the model drafts Markdown (streamed to the
 * caller when asked), the finished draft is checked against the request inside the metered work, and a draft that
 * fails is `model_output_invalid` with what it cost (billable), nothing of it returned. A retry of the key replays
 * the stored draft without a model call (over a stream: `ready`, the whole text as one delta, then `done`).
 */
async function generate(ctx: OperationContext, input: GenerateInput): Promise<GenerateResult> {
  const metered = meteredCallOf(ctx, GENERATE_CAPABILITY);
  const { models, call } = metered;
  const prompt = generatePrompt(input);
  const sink = call.stream;
  const result = await models.runMetered<GenerateResult>({
    ...meteredRequestOf(metered, OPERATION_ID, input),
    kind: 'education-generate',
    bound: { inputTokens: inputTokenBound(prompt.messages), outputTokens: prompt.maxOutputTokens, images: 0 },
    async work(meter) {
      const completion = await draftOf(meter, input, sink);
      const checked = checkGeneratedText(completion.text, input);
      if (!checked.ok) {
        throw new ModelError('model_output_invalid', 'The model\u2019s draft failed its checks; none of it is returned.', 'yes', completion.usage, {
          problems: checked.problems,
        });
      }
      return checked.value;
    },
  });
  if (result.replayed && sink) {
    sink.ready(readyFacts(input, true));
    await sink.delta(result.data.text);
  }
  return result.data;
}

/** generateEducation: a proposed teacher-facing Markdown draft for one workflow, streamed or as JSON. */
const generateEducation = defineOperation({
  id: OPERATION_ID,
  summary: 'Education generation',
  description:
    `Drafts teacher-facing material in Markdown for one workflow (${GENERATE_INTENTS.join(', ')}) of one course, from ` +
    `up to ${GENERATE_LIMITS.maximumStandards} authorized standards and up to ${GENERATE_LIMITS.maximumSources} explicitly ` +
    'selected sources, the only ones the draft may cite (as [source: id]); a draft citing another is model_output_invalid. ' +
    'The answer is `status: proposed` with the standards and sources it cites and a review note for the teacher. With ' +
    '`Accept: application/x-ndjson` the answer streams as NDJSON events: `ready`, `delta` (text), `done` (the V1 envelope). ' +
    'Metered (education-generate): needs an Idempotency-Key; a retry replays the stored draft without a second model call.',
  ...METERED_EDUCATION_OPERATION,
  errors: [...EDUCATION_CONTEXT_ERRORS, ...METERED_ERRORS],
  input: GenerateInputSchema,
  output: GenerateResultSchema,
  product: [
    {
      method: 'POST',
      path: GENERATE_PATH,
      operationId: 'generateEducationContent',
      kind: 'service.education-generation',
      capability: GENERATE_CAPABILITY,
      needs: 'intelligence.execute',
      stream: 'ndjson',
    },
  ],
  run: generate,
});

/** The education generation operation (the lead adds it to the operation table). */
export const EDUCATION_GENERATE_OPERATIONS: readonly AnyOperation[] = [generateEducation];
