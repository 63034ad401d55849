import { z } from 'zod';
import { DEFAULT_SEARCH_LIMIT, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT } from '../../domains/search/index.ts';
import { MappingIdSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation } from './operation.ts';

const SearchHitOut = z.object({
  path: z.string(),
  title: z.string(),
  score: z.number().describe('Relevance, higher is better; compare only within one result list'),
  matchedIn: z.array(z.enum(['title', 'path', 'body'])),
  snippet: z.string().describe('A passage of the body around the first match; empty when only the title or path matched'),
  // Pairs as two-item arrays, not tuples: tuple schemas (prefixItems) are read differently by draft-07 validators.
  highlights: z.array(z.array(z.number().int()).length(2)).describe('[start, end) of matched words in snippet'),
  tags: z.array(z.string()),
});

/** Ranked full-text search over one hosted mapping's notes. */
export const searchNotes = defineOperation({
  id: 'searchNotes',
  summary: 'Search notes',
  description:
    'Ranked full-text search over the title, path and body of the notes of one mapping. Every word must occur; ' +
    '"quoted phrases" must occur as written. A match in the title outranks a passing mention in the body. ' +
    `Bounded: ${DEFAULT_SEARCH_LIMIT} results by default, at most ${MAX_SEARCH_LIMIT}; when truncated, pass nextCursor for the next page.`,
  tags: ['search'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: z.strictObject({
    mappingId: MappingIdSchema,
    query: z.string().min(1).max(MAX_QUERY_CHARS).describe('Words and "quoted phrases"; all must match'),
    tags: z.array(z.string().min(1).max(200)).max(10).optional().describe('Only notes with every one of these tags (nested tags count for their parents)'),
    folder: z.string().min(1).max(1000).optional().describe('Only notes in this folder or below it'),
    limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe(`At most ${MAX_SEARCH_LIMIT}, default ${DEFAULT_SEARCH_LIMIT}`),
    cursor: z.string().min(1).max(200).optional().describe('nextCursor of the previous page'),
  }),
  output: z.object({ results: z.array(SearchHitOut), truncated: z.boolean(), nextCursor: z.string().nullable() }),
  errors: ['invalid_request', 'not_found', 'device_encrypted'],
  rest: [{ method: 'GET', path: '/search' }],
  mcp: {
    name: 'search_notes',
    title: 'Search notes',
    advice:
      'Use it to find notes before reading them with get_note_content; each result has a snippet around the match, ' +
      'so you can often answer without reading whole notes.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    return ctx.services.search.searchNotes(ctx.principal.actor, input.mappingId, {
      query: input.query,
      ...(input.tags !== undefined ? { tags: input.tags } : {}),
      ...(input.folder !== undefined ? { folder: input.folder } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    });
  },
});
