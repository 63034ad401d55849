import { z } from 'zod';
import {
  CommitmentSchema,
  DEFAULT_KNOWLEDGE_LIMIT,
  DecisionSchema,
  KnowledgeChangeEventSchema,
  MAX_KNOWLEDGE_LIMIT,
  QuestionSchema,
  TemporalRecordSchema,
  UnavailableRecordSchema,
} from '../../domains/knowledge/index.ts';
import { intelligenceCapabilities, IntelligenceCapabilitiesSchema } from './intelligence-capabilities.ts';
import { MappingIdSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation, type AnyOperation } from './operation.ts';
import { SCOPE_BOUND_FIELDS, authorizedScope } from './scope-fields.ts';

const READ = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:read', allowance: 'operation', idempotency: 'none', tags: ['knowledge'] } as const;
const SCOPE_ERRORS = ['invalid_request', 'not_found', 'device_encrypted'] as const;

const TRUNCATION =
  '`truncated: true` means more items exist: ask again with `cursor` set to `nextCursor`. A truncated answer is not ' +
  'proof that something is absent (spec 4.3 rule 9).';
const SCOPE_RULE =
  'Needs a context scope of the mapping that you may use (get_intelligence_capabilities lists them); any other ' +
  'contextScopeId is not_found. Only notes in the scope, readable by you now, are answered.';

const PageFields = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_KNOWLEDGE_LIMIT)
    .optional()
    .describe(`Most items, 1 to ${MAX_KNOWLEDGE_LIMIT}; default ${DEFAULT_KNOWLEDGE_LIMIT}`),
  cursor: z.string().max(2048).optional().describe('nextCursor of the previous page'),
};
const PageOutput = {
  truncated: z.boolean().describe('True when more items exist after nextCursor; a truncated answer is not proof of absence'),
  nextCursor: z.string().nullable(),
};
const ScopeOutput = { mappingId: z.uuid(), contextScopeId: z.uuid() };
const NoteDateSchema = z.iso.date();

/** `get_intelligence_capabilities`: what the caller may use on a mapping. */
const getIntelligenceCapabilities = defineOperation({
  ...READ,
  id: 'getIntelligenceCapabilities',
  summary: 'What knowledge capabilities are available',
  description:
    'For one mapping: the context scopes you may use now (each with its slice and audience), the bounded ' +
    'knowledge reads with their limits, how semantic relations are computed here (lexical similarity unless an ' +
    'embedding model is configured), and the proposal-only capabilities with their availability. Call it first: ' +
    'every other knowledge tool needs one of these contextScopeIds.',
  input: z.strictObject({ mappingId: MappingIdSchema }),
  output: IntelligenceCapabilitiesSchema,
  errors: ['invalid_request', 'not_found'],
  rest: [{ method: 'GET', path: '/knowledge/capabilities' }],
  mcp: { name: 'get_intelligence_capabilities', title: 'Knowledge capabilities and scopes', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const scopes = await ctx.services.scopes.listUsable(ctx.principal.actor, input.mappingId);
    return intelligenceCapabilities(input.mappingId, scopes, await ctx.services.proposals.availability(ctx.principal.actor, input.mappingId, ctx.noteChanges));
  },
});

/** `get_decisions`. */
const getDecisions = defineOperation({
  ...READ,
  id: 'getDecisions',
  summary: 'Decisions confirmed by people, and candidates',
  description:
    'Decisions in a context scope with their status (confirmed, superseded or rejected by a person), validity ' +
    'interval and source reference. Decisions written in notes are only candidates until a signed-in person ' +
    'confirms them on the workspace page: they are returned with `status: "candidate"` and `candidate: true`, and ' +
    'must not be treated as decided. No tool can confirm a decision. ' +
    `${SCOPE_RULE} ${TRUNCATION}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    statuses: z
      .array(z.enum(['confirmed', 'superseded', 'rejected', 'candidate']))
      .min(1)
      .max(4)
      .optional()
      .describe('Which to return; default confirmed, superseded and candidate'),
    ...PageFields,
  }),
  output: z.object({ ...ScopeOutput, decisions: z.array(DecisionSchema), ...PageOutput }),
  errors: [...SCOPE_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/decisions' }],
  mcp: {
    name: 'get_decisions',
    title: 'Decisions (human-confirmed, and candidates)',
    advice: 'Treat only status confirmed as what the team decided; cite evidence.path and lines when you rely on one.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    const { slice, scope } = await authorizedScope(ctx, input);
    const page = await ctx.services.knowledge.decisions(slice, {
      ...(input.statuses ? { statuses: input.statuses } : {}),
      ...pageRequest(input),
    });
    return { mappingId: input.mappingId, contextScopeId: scope.id, decisions: page.items, truncated: page.truncated, nextCursor: page.nextCursor };
  },
});

const SourceBlockSchema = z.object({
  path: z.string(),
  revision: z.string(),
  lines: z.array(z.number().int().positive()).length(2),
  text: z.string(),
  truncated: z.boolean().describe('True when the block was longer than the bound and is cut'),
});

/** `get_decision_evidence`. */
const getDecisionEvidence = defineOperation({
  ...READ,
  id: 'getDecisionEvidence',
  summary: 'The source blocks behind a decision',
  description:
    "A decision's source block as the note is now, and the blocks its lines cite (a `[[Note#^block]]` link's block, " +
    "else the cited note's first lines), only where your scope reaches now: citations of notes outside it or " +
    'missing are counted in `withheld`, never shown. The decision carries its status: evidence of a candidate does ' +
    `not make it decided. ${SCOPE_RULE}`,
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS, decisionId: z.string().min(1).max(100).describe('The id of a decision (get_decisions)') }),
  output: z.object({
    ...ScopeOutput,
    decision: DecisionSchema,
    source: SourceBlockSchema,
    citations: z.array(
      z.object({ target: z.string(), line: z.number().int(), path: z.string(), blockId: z.string().nullable(), source: SourceBlockSchema }),
    ),
    withheld: z.number().int().describe('Cited notes outside your scope or missing now'),
    truncated: z.boolean().describe('True when the decision cites more notes than were followed'),
  }),
  errors: [...SCOPE_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/decisions/evidence' }],
  mcp: { name: 'get_decision_evidence', title: 'Evidence of a decision', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const { slice, scope } = await authorizedScope(ctx, input);
    const evidence = await ctx.services.knowledge.decisionEvidence(slice, input.decisionId);
    return { mappingId: input.mappingId, contextScopeId: scope.id, ...evidence };
  },
});

/** `get_temporal_records`. */
const getTemporalRecords = defineOperation({
  ...READ,
  id: 'getTemporalRecords',
  summary: 'Assertions about entities, by time',
  description:
    'Assertions of entity notes (frontmatter `type` and `id`; one per other property), by mode: `current` (in force ' +
    'now), `known-at` (what this replica knew at `at`, from its own observation receipts only: a date written by ' +
    'an author never proves earlier availability, and content stored before receipts existed is listed in ' +
    '`unavailable`, not guessed), `valid-at` (per entity and property, the version whose stated valid time is the ' +
    'latest at or before `at`), `history` (every version). Current authorization applies in every mode: versions ' +
    `from notes you cannot read now are withheld. ${SCOPE_RULE} ${TRUNCATION}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    mode: z.enum(['current', 'valid-at', 'known-at', 'history']),
    at: z.iso.datetime({ offset: true }).optional().describe('The point in time of valid-at and known-at (ISO 8601); not for the other modes'),
    entityType: z.string().min(1).max(200).optional(),
    entityId: z.string().min(1).max(200).optional(),
    ...PageFields,
  }),
  output: z.object({
    ...ScopeOutput,
    mode: z.enum(['current', 'valid-at', 'known-at', 'history']),
    at: z.string().nullable(),
    records: z.array(TemporalRecordSchema),
    unavailable: z.array(UnavailableRecordSchema).describe('known-at: assertions whose known time cannot be established here'),
    withheldGoneSources: z
      .number()
      .int()
      .nullable()
      .describe('Versions withheld because their note is gone now; null when that cannot be said for this scope'),
    ...PageOutput,
  }),
  errors: [...SCOPE_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/temporal' }],
  mcp: { name: 'get_temporal_records', title: 'Temporal records of entities', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const { slice, scope } = await authorizedScope(ctx, input);
    const answer = await ctx.services.knowledge.temporal(slice, {
      mode: input.mode,
      ...(input.at !== undefined ? { at: new Date(input.at) } : {}),
      ...(input.entityType !== undefined ? { entityType: input.entityType } : {}),
      ...(input.entityId !== undefined ? { entityId: input.entityId } : {}),
      ...pageRequest(input),
    });
    return {
      mappingId: input.mappingId,
      contextScopeId: scope.id,
      mode: input.mode,
      at: input.at !== undefined ? new Date(input.at).toISOString() : null,
      records: answer.items,
      unavailable: answer.unavailable,
      withheldGoneSources: answer.withheldGoneSources,
      truncated: answer.truncated,
      nextCursor: answer.nextCursor,
    };
  },
});

/** `get_changes`. */
const getChanges = defineOperation({
  ...READ,
  id: 'getKnowledgeChanges',
  summary: 'Knowledge change events',
  description:
    'Deterministic knowledge change events in a scope, in the order this replica recorded them: a record added, ' +
    'removed or updated, a decision status changed in its note, a commitment closed or reopened, an assertion ' +
    'superseded by a new value, each with the note revisions before and after. Pass the last nextCursor as `cursor` ' +
    'to read only what followed (nextCursor is returned even when nothing followed, so you can poll). ' +
    `${SCOPE_RULE} ${TRUNCATION}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    recordKinds: z
      .array(z.enum(['decision', 'commitment', 'question', 'assertion', 'relation']))
      .min(1)
      .max(5)
      .optional(),
    ...PageFields,
  }),
  output: z.object({ ...ScopeOutput, events: z.array(KnowledgeChangeEventSchema), ...PageOutput }),
  errors: [...SCOPE_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/changes' }],
  mcp: { name: 'get_changes', title: 'Knowledge change events', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const { slice, scope } = await authorizedScope(ctx, input);
    const page = await ctx.services.knowledge.changes(slice, { ...(input.recordKinds ? { recordKinds: input.recordKinds } : {}), ...pageRequest(input) });
    return { mappingId: input.mappingId, contextScopeId: scope.id, events: page.items, truncated: page.truncated, nextCursor: page.nextCursor };
  },
});

/** `get_open_questions`. */
const getOpenQuestions = defineOperation({
  ...READ,
  id: 'getOpenQuestions',
  summary: 'Open questions',
  description:
    'Questions recorded in notes (`> [!question]` callouts, notes with `type: question`) that are still open, ' +
    `with their evidence. ${SCOPE_RULE} ${TRUNCATION}`,
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS, includeAnswered: z.boolean().optional().describe('Also answered questions (default false)'), ...PageFields }),
  output: z.object({ ...ScopeOutput, questions: z.array(QuestionSchema), ...PageOutput }),
  errors: [...SCOPE_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/questions' }],
  mcp: { name: 'get_open_questions', title: 'Open questions', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const { slice, scope } = await authorizedScope(ctx, input);
    const page = await ctx.services.knowledge.questions(slice, { includeAnswered: input.includeAnswered ?? false, ...pageRequest(input) });
    return { mappingId: input.mappingId, contextScopeId: scope.id, questions: page.items, truncated: page.truncated, nextCursor: page.nextCursor };
  },
});

/** `get_commitments`. */
const getCommitments = defineOperation({
  ...READ,
  id: 'getCommitments',
  summary: 'Commitments and follow-ups',
  description:
    'Tasks recorded in notes (`- [ ] ...`), soonest due first (undated last), with their owner (`owner:: ...`), due ' +
    'date (`📅 YYYY-MM-DD` or `due:: YYYY-MM-DD`), where they are written (path, lines, revision) and since when ' +
    `this replica knows them. Open ones unless includeClosed. ${SCOPE_RULE} ${TRUNCATION}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    includeClosed: z.boolean().optional().describe('Also closed ones (default false)'),
    owner: z.string().min(1).max(200).optional().describe('Only this owner (case-insensitive)'),
    dueBefore: NoteDateSchema.optional().describe('Only those due on or before this date (YYYY-MM-DD)'),
    ...PageFields,
  }),
  output: z.object({ ...ScopeOutput, commitments: z.array(CommitmentSchema), ...PageOutput }),
  errors: [...SCOPE_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/commitments' }],
  mcp: { name: 'get_commitments', title: 'Commitments and follow-ups', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const { slice, scope } = await authorizedScope(ctx, input);
    const page = await ctx.services.knowledge.commitments(slice, {
      includeClosed: input.includeClosed ?? false,
      ...(input.owner !== undefined ? { owner: input.owner } : {}),
      ...(input.dueBefore !== undefined ? { dueBefore: input.dueBefore } : {}),
      ...pageRequest(input),
    });
    return { mappingId: input.mappingId, contextScopeId: scope.id, commitments: page.items, truncated: page.truncated, nextCursor: page.nextCursor };
  },
});

/** The page fields of an input, as the knowledge service takes them. */
function pageRequest(input: { limit?: number | undefined; cursor?: string | undefined }): { limit?: number; cursor?: string } {
  return { ...(input.limit !== undefined ? { limit: input.limit } : {}), ...(input.cursor !== undefined ? { cursor: input.cursor } : {}) };
}

/** The scope-bound knowledge reads (decisions, evidence, temporal records, changes, questions, commitments, capabilities). */
export const KNOWLEDGE_READ_OPERATIONS: readonly AnyOperation[] = [
  getIntelligenceCapabilities,
  getDecisions,
  getDecisionEvidence,
  getTemporalRecords,
  getChanges,
  getOpenQuestions,
  getCommitments,
];
