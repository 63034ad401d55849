import { z } from 'zod';
import {
  MAX_LEVELS,
  MAX_VERSIONS_READ,
  MAX_RUBRIC_PAGE,
  MIN_LEVELS,
  RUBRIC_MAX_OUTPUT_TOKENS,
  RubricDraftInputSchema,
  RubricDraftSchema,
  RubricSummarySchema,
  RubricVersionSchema,
  checkModelRubric,
  inputTokenBound,
  rubricPrompt,
  type EducationRubricsService,
  type RubricDraft,
  type RubricDraftInput,
} from '../../domains/education/rubrics/index.ts';
import { ModelError } from '../../domains/models/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import { CursorSchema } from './fields.ts';
import { EDUCATION_PATH, METERED_ERRORS, meteredCallOf, meteredRequestOf, runtimeChainOf } from './metered-calls.ts';
import { RUNTIME_CREDENTIALS, defineOperation, type AnyOperation, type OperationContext } from './operation.ts';

/** The capability of the rubric routes in the runtime's catalogue: drafting, and reading what was drafted. */
const CAPABILITY = 'education.rubric-draft';

/** The teacher's note every draft carries: it is a proposal. */
const REVIEW_NOTE =
  'A proposed rubric for a teacher to review and adapt before any use. It is never applied to a learner, and it grades no one.';

/**
 * The rubric store, as OperationServices.educationRubrics carries it once wired; read through this view so that the
 * file compiles whether the field is declared there yet or not (absent: `unavailable`).
 */
interface RubricServices {
  educationRubrics?: EducationRubricsService;
}

function rubricsOf(ctx: OperationContext): EducationRubricsService {
  const rubrics = (ctx.services as RubricServices).educationRubrics;
  if (!rubrics) throw new KgateError('unavailable', 'Rubric drafts are not available on this server.', { capability: CAPABILITY });
  return rubrics;
}

/**
 * Drafts through the metered runner: the starting version is read (not_found before anything is reserved), the model
 * is asked once, its answer is checked strictly and, inside the metered work, stored as the rubric's next version, so
 * that what the ledger settles is exactly what was stored. After settlement the version is linked to its ledger row,
 * which is what makes it shown (a version whose call did not settle never is).
 */
async function draftRubric(ctx: OperationContext, input: RubricDraftInput): Promise<RubricDraft> {
  const metered = meteredCallOf(ctx, CAPABILITY);
  const { models, call, key } = metered;
  const rubrics = rubricsOf(ctx);
  const principal = call.principal;
  const start = input.rubricId === undefined ? undefined : await rubrics.startingPoint(principal.installationId, input.rubricId);
  const messages = rubricPrompt(input, start?.content);
  const requestId = call.requestId ?? '';
  const author = {
    organizationId: principal.organization.id,
    installationId: principal.installationId,
    principalId: principal.principalId,
    principalName: principal.principalName,
  };
  const result = await models.runMetered<RubricDraft>({
    ...meteredRequestOf(metered, 'draftEducationRubric', input),
    kind: 'education-rubric-draft',
    bound: { inputTokens: inputTokenBound(messages), outputTokens: RUBRIC_MAX_OUTPUT_TOKENS, images: 0 },
    async work(meter) {
      const completion = await meter.model.chat({ messages, maxOutputTokens: RUBRIC_MAX_OUTPUT_TOKENS, json: true, temperature: 0.2, signal: meter.signal });
      const check = checkModelRubric(completion.text, input);
      if (!check.ok) {
        throw new ModelError('model_output_invalid', 'The model\u2019s rubric failed its checks; none of it is returned or stored.', 'yes', completion.usage, {
          problems: check.problems,
        });
      }
      const draft = { ...(input.rubricId ? { rubricId: input.rubricId } : {}), basedOnVersion: start?.version ?? null, content: check.content };
      // The model answered, so the call is charged whatever happens now: a store that fails makes it a billable
      // failure recorded as `internal` (the runner keeps this error for replays of the key), never a draft returned
      // but not kept.
      const stored = await rubrics.storeDraft(author, { idempotencyKey: key, requestId }, draft).catch(() => {
        throw new KgateError('internal', 'The rubric draft could not be stored; the model call is recorded as a billable failure.');
      });
      return { ...check.content, rubricId: stored.rubricId, version: stored.version, basedOnVersion: draft.basedOnVersion, status: 'proposed', review: REVIEW_NOTE };
    },
  });
  // A replay links too: a first answer whose link failed after settlement becomes shown when its key is retried.
  await rubrics.linkLedger(principal.principalId, key, result.receipt.ledgerId);
  return result.data;
}

/** What the three rubric operations share: Product Runtime only, one counted operation each. */
const RUBRICS = {
  tags: ['runtime', 'education'],
  credentials: RUNTIME_CREDENTIALS,
  scope: 'runtime',
  allowance: 'operation',
} as const;

/** draftEducationRubric: a metered rubric draft, stored as the proposed next version of the installation's rubric. */
const draftEducationRubric = defineOperation({
  ...RUBRICS,
  idempotency: 'metered',
  id: 'draftEducationRubric',
  summary: 'Draft a rubric',
  description:
    `Drafts a weighted analytic rubric from course context, standards and learning targets, optional reviewed sources, ` +
    `a criterion count and ${MIN_LEVELS} to ${MAX_LEVELS} ordered level labels, respecting accessibility requirements. ` +
    'Each criterion has a whole-percent weight (the weights sum to exactly 100), one observable descriptor per level ' +
    'label in the given order, and alignment to standards of the request only. The draft is stored as the next version ' +
    'of a new rubric, or of `rubricId` (whose latest version is the starting point); every version is a proposal ' +
    '(`status: proposed`) that is never applied to a learner. Metered (education-rubric-draft): needs an Idempotency-Key; ' +
    'a retry with the same key replays the stored answer without a second model call or a second version.',
  input: RubricDraftInputSchema,
  output: RubricDraftSchema,
  errors: ['invalid_request', 'not_found', ...METERED_ERRORS],
  product: [
    {
      method: 'POST',
      path: `${EDUCATION_PATH}/rubric-draft`,
      operationId: 'draftRubric',
      kind: 'service.education-rubric-draft',
      capability: CAPABILITY,
      needs: 'intelligence.execute',
    },
  ],
  run: draftRubric,
});

/** listEducationRubrics: the installation's rubrics, most recently drafted first. */
const listEducationRubrics = defineOperation({
  ...RUBRICS,
  idempotency: 'none',
  id: 'listEducationRubrics',
  summary: 'List rubrics',
  description: `The rubrics drafted for this installation, most recently drafted first, ${MAX_RUBRIC_PAGE} at most a page. Not metered by the model.`,
  input: z.strictObject({
    cursor: CursorSchema,
    limit: z.number().int().min(1).max(MAX_RUBRIC_PAGE).optional().describe(`Page size, at most ${MAX_RUBRIC_PAGE} (default 20)`),
  }),
  output: z.object({ rubrics: z.array(RubricSummarySchema), nextCursor: z.string().nullable(), truncated: z.boolean() }),
  errors: ['invalid_request', 'unavailable'],
  product: [
    { method: 'GET', path: `${EDUCATION_PATH}/rubrics`, operationId: 'listRubrics', kind: 'service.education-rubrics', capability: CAPABILITY, needs: 'intelligence.execute' },
  ],
  async run(ctx, input) {
    const page = await rubricsOf(ctx).listRubrics(runtimeChainOf(ctx).principal.installationId, { limit: input.limit ?? 20, cursor: input.cursor });
    return { rubrics: page.items, nextCursor: page.nextCursor, truncated: page.nextCursor !== null };
  },
});

/** getEducationRubric: one rubric of the installation with every version. */
const getEducationRubric = defineOperation({
  ...RUBRICS,
  idempotency: 'none',
  id: 'getEducationRubric',
  summary: 'Read a rubric',
  description:
    `One rubric of this installation with its latest ${MAX_VERSIONS_READ} versions, newest first: ` +
    'each version\u2019s content, status (always ' +
    'proposed), a person\u2019s review mark (reviewed, dismissed or none), who drafted it and its ledger row. Any other ' +
    'id is not_found. Not metered by the model.',
  input: z.strictObject({ rubricId: z.uuid() }),
  output: z.object({
    rubric: RubricSummarySchema,
    versions: z.array(RubricVersionSchema).describe(`The latest ${MAX_VERSIONS_READ} versions at most, newest first`),
    truncated: z.boolean().describe('Older versions exist than the answer holds'),
  }),
  errors: ['invalid_request', 'not_found', 'unavailable'],
  product: [
    {
      method: 'GET',
      path: `${EDUCATION_PATH}/rubrics/{rubricId}`,
      operationId: 'getRubric',
      kind: 'service.education-rubric',
      capability: CAPABILITY,
      needs: 'intelligence.execute',
    },
  ],
  run: (ctx, input) => rubricsOf(ctx).getRubric(runtimeChainOf(ctx).principal.installationId, input.rubricId),
});

/** The rubric operations (docs/education.md, "Rubric drafts"), served only by the Product Runtime. */
export const EDUCATION_RUBRIC_OPERATIONS: readonly AnyOperation[] = [draftEducationRubric, listEducationRubrics, getEducationRubric];
