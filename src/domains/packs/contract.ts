/**
 * The contract of published intelligence packs (docs/packs.md): what a stored pack version holds once loaded, and
 * what the six published-intelligence tools answer. Dates are calendar dates `YYYY-MM-DD`, compared as strings
 * (that order is the calendar's), both ends inclusive.
 */
import type { PackAssertion, PackInsight, PackSource, PackSourceVersion, ParsedPack } from './format/index.ts';

/** A calendar date written `YYYY-MM-DD`. */
export type CalendarDate = string;

/** Which pack version a load is of: its pack, product and publication. */
export interface PackVersionInfo {
  /** The pack version's record id. */
  versionId: string;
  packId: string;
  productId: string;
  productSlug: string;
  packSlug: string;
  /** 1, 2, ...: each publication of the pack is the next. */
  version: number;
  title: string;
  /** When kgate stored it (not a source date: it decides nothing about a cutoff). */
  publishedAt: Date;
}

/** A source version as stored: its dates and extraction, and how many lines its text has (the text stays in the database). */
export type StoredSourceVersion = PackSourceVersion & { lineCount: number };
/** A source as stored, with its versions in the order the manifest listed them. */
export type StoredSource = Omit<PackSource, 'versions'> & { versions: StoredSourceVersion[] };

/** One pack version as the tools read it: sources without their texts, assertions with evidence, insights. */
export interface StoredPack {
  info: PackVersionInfo;
  sources: StoredSource[];
  assertions: PackAssertion[];
  insights: PackInsight[];
}

/** A pack version as the answers name it. */
export interface PackRef {
  product: string;
  pack: string;
  title: string;
  version: number;
  publishedAt: string;
}

/** A piece of evidence as answered: where it points, with the source's title and citation. */
export interface EvidenceAnswer {
  source: string;
  sourceTitle: string;
  citation: string;
  version: string;
  extraction: number;
  lines: [number, number];
  quote: string;
}

/** An accepted assertion available at the cutoff. `supersedes` names only assertions it supersedes at the cutoff. */
export interface AssertionAnswer {
  id: string;
  statement: string;
  accepted: CalendarDate;
  /** The date from which it is available: its accepted date, or later if a cited source version became available later. */
  availableFrom: CalendarDate;
  supersedes: string[];
  evidence: EvidenceAnswer[];
}

/** search_published_intelligence. */
export interface SearchAnswer {
  pack: PackRef;
  asOf: CalendarDate;
  question: string;
  results: (AssertionAnswer & { score: number })[];
}

/** get_published_intelligence_state: a page of the accepted assertions available at the cutoff, in pack order. */
export interface StateAnswer {
  pack: PackRef;
  asOf: CalendarDate;
  /** How many assertions are available at the cutoff in all. */
  total: number;
  assertions: AssertionAnswer[];
  /** Pass it back as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** get_published_intelligence_changes: what changed in the interval (from, asOf]. */
export interface ChangesAnswer {
  pack: PackRef;
  from: CalendarDate;
  asOf: CalendarDate;
  /** Assertions that became available in the interval. */
  added: AssertionAnswer[];
  /** Assertions available at `from` and superseded in the interval, with what superseded them. */
  superseded: { id: string; statement: string; on: CalendarDate; by: string[] }[];
  /** Assertions available at `from` and retracted in the interval. */
  retracted: { id: string; statement: string; on: CalendarDate }[];
  /** Source versions that became available in the interval. */
  sourceVersionsAdded: { source: string; title: string; version: string; on: CalendarDate }[];
  /** Insights that became available, or stopped being available (an assertion they derive from went), in the interval. */
  insightsAdded: { id: string; statement: string; on: CalendarDate }[];
  insightsWithdrawn: { id: string; statement: string; on: CalendarDate }[];
  /** True when a list was cut at the limit. */
  truncated: boolean;
}

/** get_published_intelligence_timeline: a page of the dates of the source versions available at the cutoff, oldest first. */
export interface TimelineAnswer {
  pack: PackRef;
  asOf: CalendarDate;
  /** How many events there are at the cutoff in all. */
  total: number;
  nextCursor?: string;
  events: { date: CalendarDate; kind: 'published' | 'reported'; source: string; title: string; version: string }[];
}

/** list_published_intelligence_sources: the sources with a version available at the cutoff. */
export interface SourcesAnswer {
  pack: PackRef;
  asOf: CalendarDate;
  total: number;
  sources: {
    id: string;
    title: string;
    citation: string;
    /** The latest available version's label (by publication date). */
    current: string;
    versions: { version: string; published: CalendarDate; reported: CalendarDate; extraction: number }[];
  }[];
  nextCursor?: string;
}

/** get_published_intelligence_insights: a page of the derived insights available at the cutoff, in pack order. */
export interface InsightsAnswer {
  pack: PackRef;
  asOf: CalendarDate;
  total: number;
  nextCursor?: string;
  insights: { id: string; statement: string; availableFrom: CalendarDate; derivedFrom: string[] }[];
}

/** Who published a pack version: the operator (the command line on the server) or an admin of the product's organization. */
export type PackPublisher = { kind: 'operator' } | { kind: 'account'; accountId: string };

/** The outcome of a publication: the version that holds the content, and whether this publication made it. */
export interface PublishOutcome {
  info: PackVersionInfo;
  /** False when the latest version already held exactly this content: nothing new was stored. */
  created: boolean;
  counts: { sources: number; assertions: number; insights: number };
}

/** A pack a caller is entitled to, with its versions newest first. */
export interface PackListing {
  product: string;
  productName: string;
  pack: string;
  title: string;
  /** How the caller is entitled: as a customer with an active installation, or as an admin of the product's organization. */
  entitledAs: 'customer' | 'admin';
  versions: { version: number; title: string; publishedAt: Date; publishedBy: string; sources: number; assertions: number; insights: number }[];
}

/**
 * Which pack a call reads: the product slug, the pack slug when the product has several, and a pack version when a
 * caller pins one (the latest otherwise).
 */
export interface PackSelector {
  product: string;
  pack?: string | undefined;
  packVersion?: number | undefined;
}

/** Paging of the long answers: at most `limit` items after `cursor`. */
export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * Published intelligence: publishing packs, and the six tools' answers for an account, each checking on every call
 * that the account is entitled to the product (an unentitled caller gets `not_found`, as for an unknown product).
 */
export interface PacksService {
  /**
   * Stores a pack the folder format validated as the product's next pack version, unless the latest holds the same
   * content; refuses an unknown product or a publisher who is not the operator or an admin of its organization
   * (`not_found`), and a pack whose references name nothing (`pack_invalid`).
   */
  publish(pack: ParsedPack, publisher: PackPublisher): Promise<PublishOutcome>;
  /** The packs the account is entitled to, by product and slug. */
  listPacks(accountId: string): Promise<PackListing[]>;
  search(accountId: string, selector: PackSelector, input: { asOf: CalendarDate; question: string; limit?: number | undefined }): Promise<SearchAnswer>;
  state(accountId: string, selector: PackSelector, input: { asOf: CalendarDate } & PageRequest): Promise<StateAnswer>;
  changes(accountId: string, selector: PackSelector, input: { from: CalendarDate; asOf: CalendarDate; limit?: number | undefined }): Promise<ChangesAnswer>;
  timeline(accountId: string, selector: PackSelector, input: { asOf: CalendarDate } & PageRequest): Promise<TimelineAnswer>;
  sources(accountId: string, selector: PackSelector, input: { asOf: CalendarDate } & PageRequest): Promise<SourcesAnswer>;
  insights(accountId: string, selector: PackSelector, input: { asOf: CalendarDate } & PageRequest): Promise<InsightsAnswer>;
}
