import { z } from 'zod';
import {
  DEFAULT_KNOWLEDGE_LIMIT,
  MAX_KNOWLEDGE_LIMIT,
  MAX_TENSION_HISTORY,
  RELATION_TYPES,
  RelatedPageSchema,
  RelationTypeSchema,
  RelationshipExplanationSchema,
  TensionSchema,
} from '../../domains/knowledge/index.ts';
import { NotePathSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation, type AnyOperation } from './operation.ts';
import { SCOPE_BOUND_FIELDS, authorizedScope } from './scope-fields.ts';

// find_related, get_relationship_explanation and get_contradictions (docs/knowledge.md, "Relations and
// contradictions"): scope-bound reads of the relations between notes.

const READ = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:read', allowance: 'operation', idempotency: 'none', tags: ['knowledge'] } as const;
const ERRORS = ['invalid_request', 'invalid_path', 'not_found', 'device_encrypted'] as const;

const SCOPE_RULE =
  'Needs a context scope of the mapping that you may use (get_intelligence_capabilities lists them); any other ' +
  'contextScopeId is not_found. Only notes in the scope, readable by you now, are answered.';
const TRUNCATION = 'A truncated answer is not proof that a relation is absent (spec 4.3 rule 9).';

const Limit = z
  .number()
  .int()
  .min(1)
  .max(MAX_KNOWLEDGE_LIMIT)
  .optional()
  .describe(`Most items, 1 to ${MAX_KNOWLEDGE_LIMIT}; default ${DEFAULT_KNOWLEDGE_LIMIT}`);
const Cursor = z.string().min(1).max(2048).optional().describe('nextCursor of the previous page');
const ScopeOutput = { mappingId: z.uuid(), contextScopeId: z.uuid() };

/** `find_related`. */
const findRelated = defineOperation({
  ...READ,
  id: 'findRelated',
  summary: 'Typed relationships of a note',
  description:
    'The relationships of one note with other notes of a context scope, each labelled with its `type`: `explicit` ' +
    '(WikiLinks and embeds, and typed frontmatter relations such as depends_on, in either direction), `decision` (a ' +
    "decision note's supersedes or contradicts relation, or a decision whose subject names the note), `evidence` " +
    '(a link citing a block, [[Note#^block]], either way), `temporal` (notes asserting about the same entity), ' +
    '`semantic` and `derived` (two explicit hops, this note -> via -> other, where the two are not directly linked). ' +
    'No embedding model is configured: semantic relations are lexical similarity of titles, and lexical similarity ' +
    'is labelled as such (`method: "lexical"`, with its score and shared terms). Each item has its direction and ' +
    'evidence (the note, lines, what is written, the record id). Relations to notes outside the scope or missing ' +
    'are counted in `withheld`, never shown. Each type reads a bounded number of candidates: `limitsReached` names ' +
    'the types cut at their bound, and `truncated: true` says more exist (after `nextCursor`, or past a bound). ' +
    `${TRUNCATION} ${SCOPE_RULE}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    path: NotePathSchema.describe('The note, vault-relative, ending in .md'),
    types: z.array(RelationTypeSchema).min(1).max(RELATION_TYPES.length).optional().describe('Which types to return; default all'),
    limit: Limit,
    cursor: Cursor,
  }),
  output: z.object({ ...ScopeOutput, ...RelatedPageSchema.shape }),
  errors: [...ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/related' }],
  mcp: {
    name: 'find_related',
    title: 'Typed relationships of a note',
    advice:
      'Use get_relationship_explanation to check one relation before relying on it. Treat semantic items as a hint: ' +
      'they share words, not necessarily meaning.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    const { slice, scope } = await authorizedScope(ctx, input);
    const page = await ctx.services.knowledge.related(slice, {
      path: input.path,
      ...(input.types ? { types: input.types } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    });
    return { mappingId: input.mappingId, contextScopeId: scope.id, ...page };
  },
});

/** `get_relationship_explanation`. */
const getRelationshipExplanation = defineOperation({
  ...READ,
  id: 'getRelationshipExplanation',
  summary: 'Explain one typed relationship',
  description:
    'Whether a relation of one type holds now between two notes of a context scope, and why: the link lines and ' +
    'relation records with their text quoted from the notes as they are now, the decision, the shared entities, the ' +
    'lexical score against its threshold (semantic: lexical similarity is labelled as such), or the notes in ' +
    'between (derived). With the freshness of both notes: the current revision, when this replica stored it (its ' +
    'observation receipt, else when its knowledge was compiled; `storedAtSource` says which) and whether the ' +
    'compiled knowledge is at that revision. Either note outside the scope or missing is not_found, the same answer ' +
    `for both. ${TRUNCATION} ${SCOPE_RULE}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    from: NotePathSchema.describe('The note the relation is seen from'),
    to: NotePathSchema.describe('The other note'),
    type: RelationTypeSchema,
  }),
  output: z.object({ ...ScopeOutput, ...RelationshipExplanationSchema.shape }),
  errors: [...ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/relationship' }],
  mcp: { name: 'get_relationship_explanation', title: 'Explain a typed relationship', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const { slice, scope } = await authorizedScope(ctx, input);
    const explanation = await ctx.services.knowledge.explainRelationship(slice, { from: input.from, to: input.to, type: input.type });
    return { mappingId: input.mappingId, contextScopeId: scope.id, ...explanation };
  },
});

/** `get_contradictions`. */
const getContradictions = defineOperation({
  ...READ,
  id: 'getContradictions',
  summary: 'Recorded tensions and their history',
  description:
    'Recorded tensions of a context scope: each `contradicts` relation written in a note of the scope, present or ' +
    'removed, never flattened. Each has both sides (the note that writes it and the note it names, with the ' +
    "decisions each holds, their status and a person's review), its state (`open` while the relation is written " +
    'and no person superseded or rejected a side; `resolved` otherwise, with the reasons) and its history: every ' +
    "version of the relation record (when this replica recorded it, at which revision, and when it ended) and its " +
    `change events (the latest ${MAX_TENSION_HISTORY} of each). A side outside the scope or missing is withheld: ` +
    `nothing of it is shown. ${TRUNCATION} ${SCOPE_RULE}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    includeResolved: z.boolean().optional().describe('Include resolved tensions (default true)'),
    limit: Limit,
    cursor: Cursor,
  }),
  output: z.object({
    ...ScopeOutput,
    tensions: z.array(TensionSchema),
    truncated: z.boolean().describe('True when more tensions exist after nextCursor: a truncated answer is not proof of absence'),
    nextCursor: z.string().nullable(),
  }),
  errors: ['invalid_request', 'not_found', 'device_encrypted'],
  rest: [{ method: 'GET', path: '/knowledge/contradictions' }],
  mcp: { name: 'get_contradictions', title: 'Recorded tensions and their history', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const { slice, scope } = await authorizedScope(ctx, input);
    const page = await ctx.services.knowledge.contradictions(slice, {
      ...(input.includeResolved !== undefined ? { includeResolved: input.includeResolved } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    });
    return { mappingId: input.mappingId, contextScopeId: scope.id, tensions: page.items, truncated: page.truncated, nextCursor: page.nextCursor };
  },
});

/** find_related, get_relationship_explanation and get_contradictions: listed here once each works. */
export const RELATION_OPERATIONS: readonly AnyOperation[] = [findRelated, getRelationshipExplanation, getContradictions];
