import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isCalendarDate, type CalendarDate, type PackListing, type PacksService, type PackSelector } from '../../domains/packs/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { assertionsSection, changesSection, insightsSection, searchSection, sourcesSection, type SectionContext } from './intelligence-sections.ts';
import {
  INTELLIGENCE_PAGE,
  PAGE_CONTENTS,
  cutoffForm,
  packHeader,
  packListBody,
  packUrl,
  type PackQuery,
  type PageProblem,
  type SectionOutcome,
} from './intelligence-view.ts';
import { html, sendPage } from './layout.ts';
import { attempt } from './runtime-forms.ts';
import type { CurrentSession } from './session.ts';

/** What the published intelligence pages need: the packs service, which checks the entitlement on every call. */
export interface IntelligencePagesDependencies extends AccountPageDependencies {
  packs: Pick<PacksService, 'listPacks' | 'sources' | 'state' | 'insights' | 'changes' | 'search'>;
}

/** Assertions, sources and insights shown a page at a time (the service allows up to 500; a page of 50 stays readable). */
const PAGE_SIZE = 50;
/** The longest query value the page echoes back into a form (a date is 10 characters, a question at most 500). */
const MAX_ECHOED_CHARS = 600;
/** An unknown product or pack and one the person is not entitled to answer alike (docs/packs.md, "Entitlement"). */
const NO_SUCH_PACK = 'No such pack.';

/** The query of a pack's page, checked: the values as written (for the forms), what is valid, and what is not. */
interface PackInput {
  values: PackQuery;
  asOf?: CalendarDate | undefined;
  packVersion?: number | undefined;
  from?: CalendarDate | undefined;
  question?: string | undefined;
  problems: { asOf?: PageProblem; version?: PageProblem; from?: PageProblem };
}

const dateProblem = (field: 'asOf' | 'from', value: string): PageProblem => ({
  code: 'invalid_request',
  field,
  message: `${field === 'asOf' ? 'The cutoff date' : 'The from date'} “${value}” is not a date: write it as YYYY-MM-DD, for example 2024-09-01.`,
});

/** Reads the page's query; asOf defaults to today (UTC). Nothing here throws: a bad value becomes a problem shown by its field. */
function readPackInput(query: Record<string, string>): PackInput {
  const text = (name: string) => {
    const value = query[name]?.trim();
    return value === undefined || value === '' ? undefined : value.slice(0, MAX_ECHOED_CHARS);
  };
  const values: PackQuery = {
    asOf: text('asOf') ?? new Date().toISOString().slice(0, 10),
    version: text('version'),
    from: text('from'),
    q: text('q'),
    cursor: query.cursor || undefined,
    sourcesCursor: query.sourcesCursor || undefined,
    insightsCursor: query.insightsCursor || undefined,
  };
  const input: PackInput = { values, problems: {} };
  if (isCalendarDate(values.asOf!)) input.asOf = values.asOf;
  else input.problems.asOf = dateProblem('asOf', values.asOf!);
  if (values.version !== undefined) {
    if (/^[1-9][0-9]{0,8}$/.test(values.version)) input.packVersion = Number(values.version);
    else input.problems.version = { code: 'invalid_request', field: 'version', message: `“${values.version}” is not a version of the pack: choose one from the list.` };
  }
  if (values.from !== undefined) {
    if (!isCalendarDate(values.from)) input.problems.from = dateProblem('from', values.from);
    else if (input.asOf !== undefined && values.from > input.asOf) {
      input.problems.from = {
        code: 'invalid_request',
        field: 'from',
        message: `The from date ${values.from} is after the cutoff ${input.asOf}: choose a from date on or before it.`,
      };
    } else input.from = values.from;
  }
  // The question goes to the service whole (it bounds it and says so), not cut to what the form echoes.
  const question = query.q?.trim();
  if (question) input.question = question;
  return input;
}

/** Runs one answer of the service for a section; a refusal becomes the section's problem, with its status. */
async function answerOf<T>(work: () => Promise<T>): Promise<{ outcome: SectionOutcome<T>; status?: ContentfulStatusCode }> {
  const done = await attempt(work);
  if (!done.refusal) return { outcome: { answer: done.value } };
  const { message, code, field, status } = done.refusal;
  return { outcome: { problem: { message, code, field } }, status };
}

async function listPage(c: Context<HttpEnv>, deps: IntelligencePagesDependencies, current: CurrentSession): Promise<Response> {
  const listings = await deps.packs.listPacks(current.session.accountId);
  return sendPage(c, { title: 'Published intelligence', signedIn: signedInAs(current), body: packListBody(listings) });
}

async function packPage(c: Context<HttpEnv>, deps: IntelligencePagesDependencies, current: CurrentSession): Promise<Response> {
  const accountId = current.session.accountId;
  const product = c.req.param('product') ?? '';
  const pack = c.req.param('pack') ?? '';
  // The listing is the service's answer of what the person is entitled to: it names the pack and its versions.
  const listing: PackListing | undefined = (await deps.packs.listPacks(accountId)).find((item) => item.product === product && item.pack === pack);
  if (!listing) throw new KgateError('not_found', NO_SUCH_PACK);
  const input = readPackInput(c.req.query());
  const { values, problems } = input;
  const cutoff = cutoffForm(listing, { values, asOfProblem: problems.asOf, versionProblem: problems.version });
  if (input.asOf === undefined || problems.version) {
    return sendPage(c, { title: listing.title, signedIn: signedInAs(current), body: html`${packHeader(listing, undefined)}${cutoff}` }, 400);
  }

  const asOf = input.asOf;
  const selector: PackSelector = { product, pack, packVersion: input.packVersion };
  const [sources, state, insights, changes, search] = await Promise.all([
    answerOf(() => deps.packs.sources(accountId, selector, { asOf, limit: PAGE_SIZE, cursor: values.sourcesCursor })),
    answerOf(() => deps.packs.state(accountId, selector, { asOf, limit: PAGE_SIZE, cursor: values.cursor })),
    answerOf(() => deps.packs.insights(accountId, selector, { asOf, limit: PAGE_SIZE, cursor: values.insightsCursor })),
    input.from === undefined ? undefined : answerOf(() => deps.packs.changes(accountId, selector, { from: input.from!, asOf })),
    input.question === undefined ? undefined : answerOf(() => deps.packs.search(accountId, selector, { asOf, question: input.question! })),
  ]);
  const outcomes = [sources, state, insights, changes, search].flatMap((answer) => (answer ? [answer] : []));
  // Entitlement is checked again on every call: a pack that went away meanwhile, or a pinned version it does not have, is not found.
  if (outcomes.some(({ outcome }) => outcome && 'problem' in outcome && outcome.problem.code === 'not_found')) {
    throw new KgateError('not_found', input.packVersion === undefined ? NO_SUCH_PACK : `This pack has no version ${input.packVersion}.`);
  }
  const refused = outcomes.flatMap(({ status }) => (status ? [status] : []));
  const status: ContentfulStatusCode = problems.from ? 400 : (refused[0] ?? 200);

  const ref = state.outcome && 'answer' in state.outcome ? state.outcome.answer.pack : undefined;
  const context: SectionContext = {
    asOf,
    urlWith: (query) => packUrl(product, pack, { asOf: values.asOf, version: values.version, from: values.from, q: values.q, ...query }),
  };
  return sendPage(
    c,
    {
      title: listing.title,
      signedIn: signedInAs(current),
      body: html`${packHeader(listing, ref)}
        ${cutoff}
        ${PAGE_CONTENTS}
        ${sourcesSection(sources.outcome, context)}
        ${assertionsSection(state.outcome, context, values.cursor !== undefined)}
        ${insightsSection(insights.outcome, context)}
        ${changesSection(listing, values, changes?.outcome, problems.from)}
        ${searchSection(listing, values, search?.outcome)}`,
    },
    status,
  );
}

/**
 * `/account/intelligence`: the published intelligence packs the signed-in person is entitled to (as a customer with an
 * installation of the product, or an admin of its organization), each with its versions newest first;
 * `/account/intelligence/{product}/{pack}` (`?asOf=YYYY-MM-DD&version=N&from=YYYY-MM-DD&q=...&cursor=...`; `sourcesCursor`, `insightsCursor`): the pack as
 * the published-intelligence tools answer it at the cutoff (sources, accepted assertions with evidence, insights,
 * changes since a date, search). Read-only; every answer comes from the packs service as the person, which checks the
 * entitlement on each call: an unknown pack and one the person is not entitled to are the same 404. A bad date or
 * version, or a from after the cutoff, is shown by its field with 400.
 */
export function intelligencePages(deps: IntelligencePagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.get(
    INTELLIGENCE_PAGE,
    accountPage(deps, (c, current) => listPage(c, deps, current)),
  );
  app.get(
    `${INTELLIGENCE_PAGE}/:product/:pack`,
    accountPage(deps, (c, current) => packPage(c, deps, current)),
  );
  return app;
}
