import { z } from 'zod';
import { MAX_EVENTS_PAGE } from '../../domains/provenance/index.ts';
import { MappingIdSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation } from './operation.ts';
import { EventOut, presentEvent } from './presenters.ts';

/** The provenance feed of one mapping for the calling account. */
export const listEvents = defineOperation({
  id: 'listEvents',
  summary: 'List provenance events',
  description:
    'Events recorded for your account on one mapping, one for every applied change, oldest first. Page with ' +
    '`since`: pass the `nextSince` of the previous page.',
  tags: ['events'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: z.strictObject({
    mappingId: MappingIdSchema,
    since: z.number().int().min(0).optional().describe('Return events after this seq (default 0)'),
    limit: z.number().int().min(1).max(MAX_EVENTS_PAGE).optional().describe(`At most ${MAX_EVENTS_PAGE}, default 100`),
  }),
  output: z.object({ events: z.array(EventOut), nextSince: z.number().int(), truncated: z.boolean() }),
  errors: ['invalid_request', 'not_found'],
  rest: [{ method: 'GET', path: '/events' }],
  mcp: {
    name: 'get_knowledge_events',
    title: 'Provenance events',
    advice: 'Bounded: at most 1,000 events per call, with truncated and nextSince.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    const page = await ctx.services.provenance.listEvents(ctx.principal.actor, input.mappingId, {
      ...(input.since !== undefined ? { since: input.since } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    });
    return { events: page.events.map(presentEvent), nextSince: page.nextSince, truncated: page.truncated };
  },
});
