import { z } from 'zod';
import { isCalendarDate } from '../../domains/packs/index.ts';
import type { PackSelector } from '../../domains/packs/index.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation, type AnyOperation } from './operation.ts';

// The six published-intelligence tools (spec 4.2, 4.4; docs/packs.md): curated, citable intelligence of a product's
// published packs, answered as of an explicit cutoff. Entitlement is by product, checked by the packs domain on every
// call from server records; an unentitled caller gets not_found, as for an unknown product. These tools touch no
// vault: they take no mappingId, and entitlement to a product's packs grants nothing in any vault.

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;

const CalendarDate = z
  .string()
  .refine(isCalendarDate, { message: 'expected a calendar date YYYY-MM-DD' })
  .describe('A calendar date YYYY-MM-DD');

/** The pack a call reads and its cutoff: every one of the six tools takes these, and no operation selector. */
const PackFields = {
  product: z.string().regex(SLUG, 'a product slug: lower-case letters, digits and "-"').describe('The slug of the product whose published packs to read'),
  pack: z.string().regex(SLUG, 'a pack slug: lower-case letters, digits and "-"').optional().describe('The pack slug, needed when the product publishes more than one pack'),
  packVersion: z.number().int().min(1).optional().describe('A published version of the pack to read (each publication is the next); default the latest'),
  asOf: CalendarDate.describe(
    'The cutoff, a calendar date YYYY-MM-DD, required: only sources published and reported on or before it, and assertions and insights available on it, are answered',
  ),
};

const PageFields = {
  limit: z.number().int().min(1).max(500).optional().describe('Most items, 1 to 500; default 100'),
  cursor: z.string().max(512).optional().describe('nextCursor of the previous page, with the same asOf'),
};

const selectorOf = (input: { product: string; pack?: string | undefined; packVersion?: number | undefined }): PackSelector => ({
  product: input.product,
  ...(input.pack !== undefined ? { pack: input.pack } : {}),
  ...(input.packVersion !== undefined ? { packVersion: input.packVersion } : {}),
});

const PackRefOut = z
  .object({
    product: z.string(),
    pack: z.string(),
    title: z.string(),
    version: z.number().int().describe('The pack version answered'),
    publishedAt: z.string().describe('When that pack version was published here (not a source date)'),
  })
  .describe('The pack version that answered');

const EvidenceOut = z.object({
  source: z.string(),
  sourceTitle: z.string(),
  citation: z.string().describe('The source’s citation URL'),
  version: z.string().describe('The source version the evidence quotes'),
  extraction: z.number().int().describe('The extraction version of that source version’s text'),
  lines: z.tuple([z.number().int(), z.number().int()]).describe('First and last line quoted'),
  quote: z.string(),
});

const AssertionOut = z.object({
  id: z.string(),
  statement: z.string(),
  accepted: z.string(),
  availableFrom: z.string().describe('The date from which it is available: accepted, or later if a cited source version became available later'),
  supersedes: z.array(z.string()).describe('Earlier assertions it replaces'),
  evidence: z.array(EvidenceOut),
});

/**
 * What the six operations share: reads by an account's own clients, one MCP operation each, no idempotency key; an
 * unentitled caller's `not_found` and a bad argument's `invalid_request` are all they answer of their own.
 */
const PACK_READ = {
  tags: ['intelligence'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  errors: ['invalid_request', 'not_found'],
} as const;

const ADVICE =
  'Cite the evidence (source title, version and citation URL) when you use an answer. asOf is required: pass the date the ' +
  'question is about (today for current guidance); nothing dated after it is answered.';

/** search_published_intelligence. */
export const searchPublishedIntelligence = defineOperation({
  id: 'searchPublishedIntelligence',
  summary: 'Search a product’s published intelligence',
  description:
    'Searches the accepted assertions of a product’s published pack for a question, as of a cutoff date, and answers ' +
    'the best ranked ones with their cited evidence (source, version, lines and quote). Only what was available on asOf ' +
    'is searched and ranked: nothing published, reported, accepted or superseded after it.',
  ...PACK_READ,
  input: z.strictObject({
    ...PackFields,
    question: z.string().trim().min(1).max(500).describe('The question, in words'),
    limit: z.number().int().min(1).max(50).optional().describe('Most results, 1 to 50; default 10'),
  }),
  output: z.object({
    pack: PackRefOut,
    asOf: z.string(),
    question: z.string(),
    results: z.array(AssertionOut.extend({ score: z.number().describe('Relevance, higher is better (comparable within one answer)') })),
  }),
  mcp: { name: 'search_published_intelligence', title: 'Search published intelligence', annotations: READ_ONLY_TOOL, advice: ADVICE },
  async run(ctx, input) {
    const { asOf, question, limit } = input;
    return ctx.services.packs.search(ctx.principal.accountId, selectorOf(input), { asOf, question, limit });
  },
});

/** get_published_intelligence_state. */
export const getPublishedIntelligenceState = defineOperation({
  id: 'getPublishedIntelligenceState',
  summary: 'The accepted assertions of a product’s pack at a cutoff',
  description:
    'The accepted assertions of a product’s published pack that are available on asOf, with their evidence, in the ' +
    'pack’s order, a page at a time. Superseded and retracted assertions are left out from the date they stopped being ' +
    'current; an assertion superseded after asOf is answered as current.',
  ...PACK_READ,
  input: z.strictObject({ ...PackFields, ...PageFields }),
  output: z.object({
    pack: PackRefOut,
    asOf: z.string(),
    total: z.number().int().describe('How many assertions are available on asOf in all'),
    assertions: z.array(AssertionOut),
    nextCursor: z.string().optional().describe('Pass it as cursor for the next page; absent on the last page'),
  }),
  mcp: { name: 'get_published_intelligence_state', title: 'Published intelligence at a date', annotations: READ_ONLY_TOOL, advice: ADVICE },
  async run(ctx, input) {
    const { asOf, limit, cursor } = input;
    return ctx.services.packs.state(ctx.principal.accountId, selectorOf(input), { asOf, limit, cursor });
  },
});

/** get_published_intelligence_changes. */
export const getPublishedIntelligenceChanges = defineOperation({
  id: 'getPublishedIntelligenceChanges',
  summary: 'What changed in a product’s pack between two dates',
  description:
    'Compares a product’s published pack between two dates: the assertions, source versions and insights that became ' +
    'available after from and on or before asOf, the assertions superseded or retracted in that interval, and the ' +
    'insights withdrawn with them. from must not be after asOf.',
  ...PACK_READ,
  input: z.strictObject({
    ...PackFields,
    from: CalendarDate.describe('The start of the interval, a calendar date YYYY-MM-DD (exclusive: changes after it)'),
    limit: z.number().int().min(1).max(1000).optional().describe('Most items per list, 1 to 1000; default 200'),
  }),
  output: z.object({
    pack: PackRefOut,
    from: z.string(),
    asOf: z.string(),
    added: z.array(AssertionOut),
    superseded: z.array(z.object({ id: z.string(), statement: z.string(), on: z.string(), by: z.array(z.string()) })),
    retracted: z.array(z.object({ id: z.string(), statement: z.string(), on: z.string() })),
    sourceVersionsAdded: z.array(z.object({ source: z.string(), title: z.string(), version: z.string(), on: z.string() })),
    insightsAdded: z.array(z.object({ id: z.string(), statement: z.string(), on: z.string() })),
    insightsWithdrawn: z.array(z.object({ id: z.string(), statement: z.string(), on: z.string() })),
    truncated: z.boolean().describe('True when a list was cut at limit'),
  }),
  mcp: { name: 'get_published_intelligence_changes', title: 'Published intelligence changes', annotations: READ_ONLY_TOOL, advice: ADVICE },
  async run(ctx, input) {
    const { from, asOf, limit } = input;
    return ctx.services.packs.changes(ctx.principal.accountId, selectorOf(input), { from, asOf, limit });
  },
});

/** get_published_intelligence_timeline. */
export const getPublishedIntelligenceTimeline = defineOperation({
  id: 'getPublishedIntelligenceTimeline',
  summary: 'Source publication and reporting dates of a product’s pack',
  description:
    'The publication and reporting dates of the source versions of a product’s published pack that are available on ' +
    'asOf, oldest first, a page at a time. A source version appears once it is both published and reported.',
  ...PACK_READ,
  input: z.strictObject({
    ...PackFields,
    limit: z.number().int().min(1).max(2000).optional().describe('Most events, 1 to 2000; default 500'),
    cursor: PageFields.cursor,
  }),
  output: z.object({
    pack: PackRefOut,
    asOf: z.string(),
    total: z.number().int().describe('How many events there are at the cutoff in all'),
    nextCursor: z.string().optional().describe('Pass it as cursor for the next page; absent on the last page'),
    events: z.array(z.object({ date: z.string(), kind: z.enum(['published', 'reported']), source: z.string(), title: z.string(), version: z.string() })),
  }),
  mcp: { name: 'get_published_intelligence_timeline', title: 'Published intelligence timeline', annotations: READ_ONLY_TOOL, advice: ADVICE },
  async run(ctx, input) {
    const { asOf, limit, cursor } = input;
    return ctx.services.packs.timeline(ctx.principal.accountId, selectorOf(input), { asOf, limit, cursor });
  },
});

/** list_published_intelligence_sources. */
export const listPublishedIntelligenceSources = defineOperation({
  id: 'listPublishedIntelligenceSources',
  summary: 'The admitted sources of a product’s pack',
  description:
    'The admitted sources of a product’s published pack that have a version available on asOf: title, citation URL, ' +
    'the available versions with their publication and reporting dates and extraction versions, and the current one, ' +
    'a page at a time.',
  ...PACK_READ,
  input: z.strictObject({ ...PackFields, ...PageFields }),
  output: z.object({
    pack: PackRefOut,
    asOf: z.string(),
    total: z.number().int(),
    sources: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        citation: z.string(),
        current: z.string().describe('The latest available version (by publication date)'),
        versions: z.array(z.object({ version: z.string(), published: z.string(), reported: z.string(), extraction: z.number().int() })),
      }),
    ),
    nextCursor: z.string().optional(),
  }),
  mcp: { name: 'list_published_intelligence_sources', title: 'Published intelligence sources', annotations: READ_ONLY_TOOL, advice: ADVICE },
  async run(ctx, input) {
    const { asOf, limit, cursor } = input;
    return ctx.services.packs.sources(ctx.principal.accountId, selectorOf(input), { asOf, limit, cursor });
  },
});

/** get_published_intelligence_insights. */
export const getPublishedIntelligenceInsights = defineOperation({
  id: 'getPublishedIntelligenceInsights',
  summary: 'The derived insights of a product’s pack at a cutoff',
  description:
    'The existing derived insights of a product’s published pack that are available on asOf, each with the assertions ' +
    'it derives from, a page at a time. An insight is withdrawn from the date one of those assertions is superseded or ' +
    'retracted.',
  ...PACK_READ,
  input: z.strictObject({ ...PackFields, ...PageFields }),
  output: z.object({
    pack: PackRefOut,
    asOf: z.string(),
    total: z.number().int().describe('How many insights are available on asOf in all'),
    nextCursor: z.string().optional().describe('Pass it as cursor for the next page; absent on the last page'),
    insights: z.array(z.object({ id: z.string(), statement: z.string(), availableFrom: z.string(), derivedFrom: z.array(z.string()) })),
  }),
  mcp: { name: 'get_published_intelligence_insights', title: 'Published intelligence insights', annotations: READ_ONLY_TOOL, advice: ADVICE },
  async run(ctx, input) {
    const { asOf, limit, cursor } = input;
    return ctx.services.packs.insights(ctx.principal.accountId, selectorOf(input), { asOf, limit, cursor });
  },
});

/** The six published-intelligence tools, in spec 4.2's order: all that `POST /api/intelligence/mcp` serves. */
export const INTELLIGENCE_OPERATIONS: readonly AnyOperation[] = [
  searchPublishedIntelligence,
  getPublishedIntelligenceState,
  getPublishedIntelligenceChanges,
  getPublishedIntelligenceTimeline,
  listPublishedIntelligenceSources,
  getPublishedIntelligenceInsights,
];
