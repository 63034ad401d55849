import { z } from 'zod';
import { DEFAULT_KNOWLEDGE_LIMIT, MAX_KNOWLEDGE_LIMIT } from '../../domains/knowledge/index.ts';
import { AudienceSchema, type ContextScope } from '../../domains/scopes/index.ts';
import { SECTION_KINDS } from '../../domains/synthesis/index.ts';
import { MAX_VIEWS_PER_SCOPE } from '../../domains/views/index.ts';

/** The scope-bound read tools, each with its bounds. */
const READS = [
  'get_decisions',
  'get_decision_evidence',
  'get_temporal_records',
  'get_changes',
  'get_open_questions',
  'get_commitments',
  'find_related',
  'get_relationship_explanation',
  'get_contradictions',
  'list_saved_knowledge_views',
  'query_saved_knowledge_view',
  'get_watch_findings',
  'get_living_synthesis',
  'get_execution_trace',
] as const;

/** How much one call of a read answers: one item, a fixed set of sections (the brief), or pages of items. */
function boundsOf(tool: (typeof READS)[number]): { defaultResults: number; maxResults: number; paged: boolean } {
  if (tool === 'get_decision_evidence' || tool === 'get_relationship_explanation') return { defaultResults: 1, maxResults: 1, paged: false };
  // Every section of the brief at once, each of at most MAX_SECTION_ITEMS items.
  // Every view of the scope at once (MAX_VIEWS_PER_SCOPE).
  if (tool === 'list_saved_knowledge_views') return { defaultResults: MAX_VIEWS_PER_SCOPE, maxResults: MAX_VIEWS_PER_SCOPE, paged: false };
  if (tool === 'get_living_synthesis') return { defaultResults: SECTION_KINDS.length, maxResults: SECTION_KINDS.length, paged: false };
  return { defaultResults: DEFAULT_KNOWLEDGE_LIMIT, maxResults: MAX_KNOWLEDGE_LIMIT, paged: true };
}

/** What get_intelligence_capabilities answers. */
export const IntelligenceCapabilitiesSchema = z.object({
  mappingId: z.uuid(),
  scopes: z
    .array(
      z.object({
        contextScopeId: z.uuid(),
        name: z.string(),
        pathPrefixes: z.array(z.string()),
        tags: z.array(z.string()),
        audience: AudienceSchema,
      }),
    )
    .describe('The context scopes of this mapping you may use now'),
  reads: z
    .array(z.object({ tool: z.string(), scopeBound: z.literal(true), defaultResults: z.number().int(), maxResults: z.number().int(), paged: z.boolean() }))
    .describe('Bounded knowledge reads: each answers at most maxResults items per call, with a cursor and a truncation flag'),
  semantic: z
    .object({
      available: z.boolean(),
      method: z.enum(['lexical', 'embedding']),
      embeddingModel: z.string().nullable(),
      note: z.string(),
    })
    .describe('How semantic relations (find_related type semantic) are computed here'),
  proposals: z
    .array(z.object({ tool: z.string(), available: z.boolean(), reason: z.string().nullable() }))
    .describe('Proposal-only capabilities: changes are proposed for a person to approve, never applied by the tool'),
});

/** Whether the caller may propose note changes on the mapping now, and why not. */
export interface ProposingAvailability {
  available: boolean;
  reason: string | null;
}

/** The capabilities of a mapping for a caller who may use `scopes`, and may propose as `proposing` says. */
export function intelligenceCapabilities(
  mappingId: string,
  scopes: readonly ContextScope[],
  proposing: ProposingAvailability,
): z.input<typeof IntelligenceCapabilitiesSchema> {
  return {
    mappingId,
    scopes: scopes.map((s) => ({ contextScopeId: s.id, name: s.name, pathPrefixes: s.pathPrefixes, tags: s.tags, audience: s.audience })),
    reads: READS.map((tool) => ({ tool, scopeBound: true, ...boundsOf(tool) })),
    semantic: {
      available: true,
      method: 'lexical',
      embeddingModel: null,
      note: 'No embedding model is configured: semantic relations are lexical similarity, labelled method "lexical".',
    },
    proposals: [
      {
        tool: 'propose_knowledge_change',
        available: proposing.available && scopes.length > 0,
        reason: proposing.reason ?? (scopes.length === 0 ? 'You may use no context scope of this mapping; a knowledge change is proposed within one.' : null),
      },
      { tool: 'propose_action', available: proposing.available, reason: proposing.reason },
    ],
  };
}
