/**
 * What the answers of one pack version share, computed once per version: the availability of every item
 * (availability.ts), lookups by id, and the presenters that turn an assertion into its answer at a cutoff. A
 * presenter names only what is available at the cutoff: that is where "nothing after the cutoff leaks" is kept.
 */
import { computeAvailability } from './availability.ts';
import type { PackAvailability } from './availability.ts';
import type { AssertionAnswer, CalendarDate, EvidenceAnswer, PackRef, StoredPack, StoredSource, StoredSourceVersion } from './contract.ts';
import { IntervalTable } from './interval-table.ts';

/** One pack version with its availability and lookups. */
export interface PackFacts {
  pack: StoredPack;
  ref: PackRef;
  availability: PackAvailability;
  /** The same intervals as day numbers, with their orders by start and end day. */
  assertionDays: IntervalTable;
  insightDays: IntervalTable;
  /** Every source version, flat in manifest order, and their availability days (`versionDays`, parallel to it). */
  versions: { source: number; version: number }[];
  versionDays: IntervalTable;
  /** Assertion positions (pack order) by id. */
  assertionIndex: ReadonlyMap<string, number>;
  /** Each assertion's `supersedes`, each id once, in the order written. */
  supersedes: readonly string[][];
  /** Sources and their versions by id and label. */
  sourceById: ReadonlyMap<string, { source: StoredSource; versions: ReadonlyMap<string, StoredSourceVersion> }>;
}

/** Computes the facts of a pack version (see computeAvailability for what throws). */
export function packFacts(pack: StoredPack): PackFacts {
  const assertionIndex = new Map<string, number>();
  pack.assertions.forEach((assertion, a) => assertionIndex.set(assertion.id, a));
  const sourceById = new Map<string, { source: StoredSource; versions: Map<string, StoredSourceVersion> }>();
  for (const source of pack.sources) sourceById.set(source.id, { source, versions: new Map(source.versions.map((version) => [version.version, version])) });
  const availability = computeAvailability(pack);
  const versions = pack.sources.flatMap((source, s) => source.versions.map((_, v) => ({ source: s, version: v })));
  return {
    pack,
    ref: packRef(pack),
    availability,
    assertionDays: new IntervalTable(availability.assertions),
    insightDays: new IntervalTable(availability.insights),
    versions,
    versionDays: new IntervalTable(versions.map(({ source, version }) => ({ availableFrom: availability.sourceVersions[source]![version]! }))),
    assertionIndex,
    supersedes: pack.assertions.map((assertion) => [...new Set(assertion.supersedes ?? [])]),
    sourceById,
  };
}

/** How the answers name a pack version. */
export function packRef(pack: StoredPack): PackRef {
  const { info } = pack;
  // Frozen: every answer of the version shares it.
  return Object.freeze({ product: info.productSlug, pack: info.packSlug, title: info.title, version: info.version, publishedAt: info.publishedAt.toISOString() });
}

/**
 * The answer of the assertion at position `a` at the cutoff `asOf` (the caller answers only available ones). Its
 * `supersedes` names only the assertions it supersedes that exist at the cutoff (available from a day on or before
 * it): replacing an assertion already seen is context, naming one not yet available would leak it.
 */
export function assertionAnswer(facts: PackFacts, a: number, asOf: CalendarDate): AssertionAnswer {
  const assertion = facts.pack.assertions[a]!;
  const supersedes = facts.supersedes[a]!.filter((id) => {
    const target = facts.assertionIndex.get(id);
    return target !== undefined && facts.availability.assertions[target]!.availableFrom <= asOf;
  });
  return {
    id: assertion.id,
    statement: assertion.statement,
    accepted: assertion.accepted,
    availableFrom: facts.availability.assertions[a]!.availableFrom,
    supersedes,
    evidence: assertion.evidence.map((evidence): EvidenceAnswer => {
      const cited = facts.sourceById.get(evidence.source);
      const version = cited?.versions.get(evidence.version);
      // computeAvailability already refused a pack citing an unknown source version.
      if (!cited || !version) throw new Error(`pack assertion "${assertion.id}" cites an unknown source version`);
      return {
        source: evidence.source,
        sourceTitle: cited.source.title,
        citation: cited.source.citation,
        version: evidence.version,
        extraction: version.extraction,
        lines: [evidence.lines[0], evidence.lines[1]],
        quote: evidence.quote,
      };
    }),
  };
}
