/**
 * When each item of a pack version is available (docs/packs.md, "Dates, and what a cutoff means"), computed once per
 * pack version so that every answer for a cutoff `asOf` is a comparison of dates. Dates are `YYYY-MM-DD` strings,
 * compared as strings (that order is the calendar's).
 *
 * Every item is available on one interval of days, `availableFrom <= asOf < endsOn` (no `endsOn`: it never ends):
 * - a source version from max(published, reported); it never ends;
 * - an assertion from max(accepted, the availability of every source version it cites), until the earlier of its
 *   `retracted` date and its `supersededOn` date;
 * - `supersededOn` is the earliest `availableFrom` among the assertions that supersede it: a supersession counts from
 *   the day the superseding assertion itself is available, never earlier (not its accepted date: it may cite a
 *   source version available later), so an answer at a cutoff never ends an assertion because of one it could not
 *   see yet. It counts even when the superseding assertion's own interval is empty: in a chain of revisions made the
 *   same day (A superseded by B, B by C), A still ends that day;
 * - history is not rewritten: once superseded, an assertion stays superseded even when the assertion that superseded
 *   it is later retracted or superseded in turn (a retraction withdraws that statement; it does not bring back the
 *   one it replaced, which needs an assertion of its own);
 * - an insight from max(its own `availableFrom`, the `availableFrom` of every assertion it derives from), until the
 *   earliest `endsOn` of those assertions (an insight stands only while all its assertions do).
 */
import type { CalendarDate, StoredPack } from './contract.ts';

/** An interval of availability: from `availableFrom` (inclusive) until `endsOn` (exclusive; absent: never ends). */
export interface AvailabilityInterval {
  availableFrom: CalendarDate;
  endsOn?: CalendarDate | undefined;
}

/** The availability of one assertion and why it ends. */
export interface AssertionAvailability extends AvailabilityInterval {
  /** The day the first assertion superseding it became available (absent: not superseded, ever). */
  supersededOn?: CalendarDate | undefined;
  /** The assertions that superseded it on `supersededOn`, sorted by id (empty when not superseded). */
  supersededBy: string[];
}

/** The availability of every item of a pack version, parallel to the pack's own lists (pack order). */
export interface PackAvailability {
  /** By source, then by version in manifest order: the day the version became available. */
  sourceVersions: CalendarDate[][];
  assertions: AssertionAvailability[];
  insights: AvailabilityInterval[];
}

/** Whether an item available on `interval` is available at the cutoff `asOf` (both ends of a day inclusive). */
export function isAvailableAt(interval: AvailabilityInterval, asOf: CalendarDate): boolean {
  return interval.availableFrom <= asOf && (interval.endsOn === undefined || interval.endsOn > asOf);
}

/** The day a source version became available: the later of its publication and reporting dates. */
export function sourceVersionAvailableFrom(version: { published: CalendarDate; reported: CalendarDate }): CalendarDate {
  return later(version.published, version.reported);
}

/**
 * Computes the availability of every item of a pack version. The pack was validated when it was published; a
 * citation, supersession or derivation naming nothing is a defect and throws.
 */
export function computeAvailability(pack: Pick<StoredPack, 'sources' | 'assertions' | 'insights'>): PackAvailability {
  const sourceVersions = pack.sources.map((source) => source.versions.map(sourceVersionAvailableFrom));
  const versionDay = new Map<string, CalendarDate>();
  pack.sources.forEach((source, s) => source.versions.forEach((version, v) => versionDay.set(versionKey(source.id, version.version), sourceVersions[s]![v]!)));

  const indexById = new Map<string, number>();
  pack.assertions.forEach((assertion, a) => indexById.set(assertion.id, a));
  const from = pack.assertions.map((assertion) => {
    let day = assertion.accepted;
    for (const evidence of assertion.evidence) {
      const cited = versionDay.get(versionKey(evidence.source, evidence.version));
      if (cited === undefined) throw new Error(`pack assertion "${assertion.id}" cites an unknown source version ${evidence.source} ${evidence.version}`);
      day = later(day, cited);
    }
    return day;
  });

  // Who supersedes whom, each pair once. A supersession depends only on the superseder's availableFrom, which no
  // supersession changes, so one pass settles every assertion (and a cycle, refused at publication, would not loop).
  const supersededBy: number[][] = pack.assertions.map(() => []);
  pack.assertions.forEach((assertion, a) => {
    for (const id of new Set(assertion.supersedes ?? [])) {
      const target = indexById.get(id);
      if (target === undefined) throw new Error(`pack assertion "${assertion.id}" supersedes an unknown assertion "${id}"`);
      supersededBy[target]!.push(a);
    }
  });
  const assertions = pack.assertions.map((assertion, a) =>
    settle(assertion, from[a]!, supersededBy[a]!.map((b) => ({ id: pack.assertions[b]!.id, availableFrom: from[b]! }))),
  );

  const insights = pack.insights.map((insight) => {
    let availableFrom = insight.availableFrom;
    let endsOn: CalendarDate | undefined;
    for (const id of insight.derivedFrom) {
      const a = indexById.get(id);
      if (a === undefined) throw new Error(`pack insight "${insight.id}" derives from an unknown assertion "${id}"`);
      const interval = assertions[a]!;
      availableFrom = later(availableFrom, interval.availableFrom);
      endsOn = earlier(endsOn, interval.endsOn);
    }
    return { availableFrom, endsOn };
  });
  return { sourceVersions, assertions, insights };
}

/** One assertion's interval, from its own availability and that of the assertions superseding it. */
function settle(
  assertion: StoredPack['assertions'][number],
  availableFrom: CalendarDate,
  superseders: { id: string; availableFrom: CalendarDate }[],
): AssertionAvailability {
  let supersededOn: CalendarDate | undefined;
  let by: string[] = [];
  for (const superseder of superseders) {
    if (supersededOn === undefined || superseder.availableFrom < supersededOn) {
      supersededOn = superseder.availableFrom;
      by = [superseder.id];
    } else if (superseder.availableFrom === supersededOn) by.push(superseder.id);
  }
  by.sort(compareText);
  return { availableFrom, endsOn: earlier(assertion.retracted, supersededOn), supersededOn, supersededBy: by };
}

function versionKey(source: string, version: string): string {
  return `${source}\u0000${version}`;
}

function later(a: CalendarDate, b: CalendarDate): CalendarDate {
  return a >= b ? a : b;
}

/** The earlier of two optional end dates (absent: never). */
function earlier(a: CalendarDate | undefined, b: CalendarDate | undefined): CalendarDate | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a <= b ? a : b;
}

/** Orders strings by code unit, the same everywhere (no locale). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
