/**
 * The six published-intelligence answers over one loaded pack version, pure and engine-free: `createPackView`
 * precomputes availability and the search index once per version, and each answer for a cutoff `asOf` names only
 * items available at it (docs/packs.md, "Dates, and what a cutoff means"). Storage, entitlement and caching are the
 * service's; dates are checked again here because string comparison is only sound on real `YYYY-MM-DD` dates.
 */
import type { Slices } from '../../kernel/slices.ts';
import { answerChanges } from './changes.ts';
import type {
  CalendarDate,
  ChangesAnswer,
  InsightsAnswer,
  PackRef,
  PageRequest,
  SearchAnswer,
  SourcesAnswer,
  StateAnswer,
  StoredPack,
  TimelineAnswer,
} from './contract.ts';
import { dayNumber } from './interval-table.ts';
import { assertionAnswer, packFacts, type PackFacts } from './pack-facts.ts';
import { boundedLimit, checkDate, encodePageCursor, PACK_ANSWER_LIMITS, pageOffset } from './paging.ts';
import { PackSearchIndex, questionWords } from './search-index.ts';
import type { PackSearchDocument } from './search-index.ts';

/** The answers of one pack version at any cutoff. Build it once per version (createPackView); it never changes. */
export interface PackView {
  /** The pack version, as every answer names it. */
  readonly ref: PackRef;
  /** search_published_intelligence: the assertions available at asOf best matching the question (limit 1..50, default 10). */
  search(input: { asOf: CalendarDate; question: string; limit?: number | undefined }): SearchAnswer;
  /** get_published_intelligence_state: a page of the assertions available at asOf, in pack order (limit 1..500, default 100). */
  state(input: { asOf: CalendarDate } & PageRequest): StateAnswer;
  /** get_published_intelligence_changes: what changed in (from, asOf] (see changes.ts; limit 1..1000 per list, default 200). */
  changes(input: { from: CalendarDate; asOf: CalendarDate; limit?: number | undefined }): ChangesAnswer;
  /** get_published_intelligence_timeline: the publication and reporting dates of the source versions available at asOf. */
  timeline(input: { asOf: CalendarDate } & PageRequest): TimelineAnswer;
  /** list_published_intelligence_sources: a page of the sources with a version available at asOf (limit 1..500, default 100). */
  sources(input: { asOf: CalendarDate } & PageRequest): SourcesAnswer;
  /** get_published_intelligence_insights: the insights available at asOf, in pack order. */
  insights(input: { asOf: CalendarDate } & PageRequest): InsightsAnswer;
}

type TimelineEvent = TimelineAnswer['events'][number];

/**
 * Precomputes the availability of every item and the search index of a pack version, and answers from them. Throws
 * (a defect, not a request error) when the pack breaks what publishing validated: a citation, supersession or
 * derivation naming nothing. On a large pack this runs for a while on the caller's thread: a server should prefer
 * buildPackView, which pauses between slices.
 */
export function createPackView(pack: StoredPack): PackView {
  const facts = packFacts(pack);
  return viewOf(facts, PackSearchIndex.build(searchDocuments(facts), facts.assertionDays));
}

/**
 * The same view as createPackView, with the search index (most of the work) built in slices, so that the event
 * loop serves other requests meanwhile (`new Slices(SLICE_MS)` from the kernel, as the notes index is built).
 */
export async function buildPackView(pack: StoredPack, slices: Slices): Promise<PackView> {
  const facts = packFacts(pack);
  if (slices.due()) await slices.pause();
  return viewOf(facts, await PackSearchIndex.buildInSlices(searchDocuments(facts), facts.assertionDays, slices));
}

/** What the search index reads of each assertion: its statement, its quotes and the titles of the sources it cites. */
function searchDocuments(facts: PackFacts): PackSearchDocument[] {
  return facts.pack.assertions.map((assertion) => ({
    statement: assertion.statement,
    quotes: assertion.evidence.map((evidence) => evidence.quote),
    sourceTitles: [...new Set(assertion.evidence.map((evidence) => evidence.source))].map((id) => facts.sourceById.get(id)!.source.title),
  }));
}

/** The answers over a pack version's facts and search index. */
function viewOf(facts: PackFacts, index: PackSearchIndex): PackView {
  const { pack } = facts;
  const timeline = timelineEvents(facts);
  const { versionId } = pack.info;

  return {
    ref: facts.ref,

    search(input) {
      checkDate(input.asOf, 'asOf');
      const words = questionWords(input.question);
      const limit = boundedLimit(input.limit, PACK_ANSWER_LIMITS.search);
      const results = index.search(words, input.asOf, limit).map(({ doc, score }) => ({ ...assertionAnswer(facts, doc, input.asOf), score }));
      return { pack: facts.ref, asOf: input.asOf, question: input.question, results };
    },

    state(input) {
      const { asOf } = input;
      checkDate(asOf, 'asOf');
      const limit = boundedLimit(input.limit, PACK_ANSWER_LIMITS.state);
      const offset = pageOffset(input.cursor, 'state', versionId, asOf);
      const day = dayNumber(asOf);
      const table = facts.assertionDays;
      // One pass counts the available assertions and keeps the page's; only the page is presented.
      const page: number[] = [];
      let total = 0;
      for (let a = 0; a < table.size; a++) {
        if (!table.availableAt(a, day)) continue;
        if (total >= offset && page.length < limit) page.push(a);
        total += 1;
      }
      return {
        pack: facts.ref,
        asOf,
        total,
        assertions: page.map((a) => assertionAnswer(facts, a, asOf)),
        ...(offset + limit < total ? { nextCursor: encodePageCursor('state', versionId, asOf, offset + limit) } : {}),
      };
    },

    changes(input) {
      return answerChanges(facts, input);
    },

    timeline(input) {
      const { asOf } = input;
      checkDate(asOf, 'asOf');
      const limit = boundedLimit(input.limit, PACK_ANSWER_LIMITS.timeline);
      const offset = pageOffset(input.cursor, 'timeline', versionId, asOf);
      const available = timeline.filter(({ availableFrom }) => availableFrom <= asOf);
      const events = available.slice(offset, offset + limit).map(({ event }) => ({ ...event }));
      const total = available.length;
      return {
        pack: facts.ref,
        asOf,
        total,
        events,
        ...(offset + limit < total ? { nextCursor: encodePageCursor('timeline', versionId, asOf, offset + limit) } : {}),
      };
    },

    sources(input) {
      const { asOf } = input;
      checkDate(asOf, 'asOf');
      const limit = boundedLimit(input.limit, PACK_ANSWER_LIMITS.sources);
      const offset = pageOffset(input.cursor, 'sources', versionId, asOf);
      const page: number[] = [];
      let total = 0;
      pack.sources.forEach((_, s) => {
        if (!facts.availability.sourceVersions[s]!.some((day) => day <= asOf)) return;
        if (total >= offset && page.length < limit) page.push(s);
        total += 1;
      });
      return {
        pack: facts.ref,
        asOf,
        total,
        sources: page.map((s) => {
          const source = pack.sources[s]!;
          const versions = source.versions.filter((_, v) => facts.availability.sourceVersions[s]![v]! <= asOf);
          return {
            id: source.id,
            title: source.title,
            citation: source.citation,
            current: currentVersion(versions).version,
            versions: versions.map(({ version, published, reported, extraction }) => ({ version, published, reported, extraction })),
          };
        }),
        ...(offset + limit < total ? { nextCursor: encodePageCursor('sources', versionId, asOf, offset + limit) } : {}),
      };
    },

    insights(input) {
      const { asOf } = input;
      checkDate(asOf, 'asOf');
      const limit = boundedLimit(input.limit, PACK_ANSWER_LIMITS.insights);
      const offset = pageOffset(input.cursor, 'insights', versionId, asOf);
      const day = dayNumber(asOf);
      const insights: InsightsAnswer['insights'] = [];
      let total = 0;
      pack.insights.forEach((insight, i) => {
        // Available means every assertion it derives from is available too: naming them leaks nothing.
        if (!facts.insightDays.availableAt(i, day)) return;
        if (total >= offset && insights.length < limit) {
          insights.push({ id: insight.id, statement: insight.statement, availableFrom: facts.availability.insights[i]!.availableFrom, derivedFrom: [...insight.derivedFrom] });
        }
        total += 1;
      });
      return {
        pack: facts.ref,
        asOf,
        total,
        insights,
        ...(offset + limit < total ? { nextCursor: encodePageCursor('insights', versionId, asOf, offset + limit) } : {}),
      };
    },
  };
}

/**
 * The current version of a source at a cutoff, among its available versions: the latest publication date; on a
 * tie, the latest reporting date, then the one listed last.
 */
function currentVersion<T extends { published: CalendarDate; reported: CalendarDate }>(versions: readonly T[]): T {
  let current = versions[0]!;
  for (const version of versions.slice(1)) {
    if (version.published > current.published || (version.published === current.published && version.reported >= current.reported)) current = version;
  }
  return current;
}

/**
 * Every source version's two dates as timeline events, oldest first; on the same day by source order, then version
 * order, publication before reporting. Each carries the day its version became available, so that an answer keeps
 * just the events of the versions available at its cutoff.
 */
function timelineEvents(facts: PackFacts): { availableFrom: CalendarDate; order: number; event: TimelineEvent }[] {
  const events: { availableFrom: CalendarDate; order: number; event: TimelineEvent }[] = [];
  facts.pack.sources.forEach((source, s) =>
    source.versions.forEach((version, v) => {
      const availableFrom = facts.availability.sourceVersions[s]![v]!;
      for (const kind of ['published', 'reported'] as const) {
        events.push({ availableFrom, order: events.length, event: { date: version[kind], kind, source: source.id, title: source.title, version: version.version } });
      }
    }),
  );
  return events.sort((x, y) => (x.event.date < y.event.date ? -1 : x.event.date > y.event.date ? 1 : x.order - y.order));
}
