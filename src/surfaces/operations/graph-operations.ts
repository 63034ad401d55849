import { z } from 'zod';
import { DEFAULT_RELATIONS_LIMIT, GraphRelationsSchema, MAX_RELATIONS_LIMIT } from '../../domains/graph/index.ts';
import { MappingIdSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation } from './operation.ts';

/** The WikiLink relations of one note: what it links to and embeds, what it links to that is missing, what links to it. */
export const queryGraphRelations = defineOperation({
  id: 'queryGraphRelations',
  summary: 'Query the link relations of a note',
  description:
    'The WikiLink and internal Markdown link relations of one note: `outgoing` (links to existing notes), `embeds` ' +
    '(with the note or stored file each resolves to, or null), `fileLinks` (links to stored canvases and attachments), ' +
    '`unresolved` (links to no note and no file) and `incoming` (links ' +
    'of other notes that resolve to this one, with their source path). Targets resolve as Obsidian resolves them, ' +
    'against the vault as it is now. Each list holds at most `limit` items; `truncated: true` means more relations ' +
    'may exist, so a truncated answer is not proof that a relation is absent.',
  tags: ['graph'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: z.strictObject({
    mappingId: MappingIdSchema,
    path: z.string().min(1).describe('Vault-relative path of the note, ending in .md'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_RELATIONS_LIMIT)
      .optional()
      .describe(`Most items per list, at most ${MAX_RELATIONS_LIMIT}, default ${DEFAULT_RELATIONS_LIMIT}`),
  }),
  output: GraphRelationsSchema,
  errors: ['invalid_request', 'invalid_path', 'not_found', 'device_encrypted'],
  rest: [{ method: 'GET', path: '/graph/relations' }],
  mcp: {
    name: 'query_graph_relations',
    title: 'Link relations of a note',
    advice:
      "Use it to follow a note's context (what it cites, what cites it, which links point at notes nobody wrote yet) " +
      'without reading every note. When truncated is true, ask again with a larger limit (at most 1000) before ' +
      'concluding that nothing else links here (spec 4.3 rule 9).',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    return ctx.services.graph.relations(ctx.principal.actor, input.mappingId, {
      path: input.path,
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    });
  },
});
