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
    'Events recorded for your account on one mapping, one for every applied change, oldest first by default. Page ' +
    'the feed with `since`: pass the `nextSince` of the previous page. For what changed lately, ask with ' +
    '`order: desc` (newest first) and page back with `before`: pass the `nextBefore` of the previous page. ' +
    '`since` and `before` bound the range in either order (both exclusive).',
  tags: ['events'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: z.strictObject({
    mappingId: MappingIdSchema,
    since: z.number().int().min(0).optional().describe('Return events after this seq (default 0)'),
    before: z.number().int().min(1).optional().describe('Return events before this seq (default: no bound)'),
    order: z.enum(['asc', 'desc']).optional().describe('asc (default): oldest first. desc: newest first'),
    limit: z.number().int().min(1).max(MAX_EVENTS_PAGE).optional().describe(`At most ${MAX_EVENTS_PAGE}, default 100`),
    diffs: z
      .boolean()
      .optional()
      .describe('true: each event with its unified diff (diff; null when the change replaced no content). Ask for few events: a diff is up to 64 KB'),
  }),
  output: z.object({
    events: z.array(EventOut.extend({ diff: z.string().nullable().optional().describe('With diffs: true, the unified diff of the change, or null') })),
    nextSince: z.number().int().describe('The newest seq on this page (or since when empty): pass it as since for what follows'),
    nextBefore: z
      .number()
      .int()
      .nullable()
      .optional()
      .describe('order=desc only: the oldest seq on this page, to pass as before for older events (null when empty)'),
    truncated: z.boolean().describe('True when more events in the range follow this page'),
  }),
  errors: ['invalid_request', 'not_found'],
  rest: [{ method: 'GET', path: '/events' }],
  mcp: {
    name: 'get_knowledge_events',
    title: 'Provenance events',
    advice:
      'Bounded: at most 1,000 events per call, with truncated and nextSince. To see what changed lately, call it ' +
      'with order: desc instead of guessing a cursor.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    const page = await ctx.services.provenance.listEvents(ctx.principal.actor, input.mappingId, {
      ...(input.since !== undefined ? { since: input.since } : {}),
      ...(input.before !== undefined ? { before: input.before } : {}),
      ...(input.order !== undefined ? { order: input.order } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(input.diffs ? { diffs: true } : {}),
    });
    return {
      events: page.events.map((event) => ({ ...presentEvent(event), ...(event.diff !== undefined ? { diff: event.diff } : {}) })),
      nextSince: page.nextSince,
      ...(page.nextBefore !== undefined ? { nextBefore: page.nextBefore } : {}),
      truncated: page.truncated,
    };
  },
});
