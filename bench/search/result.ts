/** Everything the vault search benchmark measured, as the report is rendered from it. */
import type { GraphOutcome } from './graph.ts';
import type { EngineName } from './kgate-engine.ts';
import type { Latency } from './latency.ts';
import type { BenchQuery } from './queries.ts';

/** What was measured of kgate on one database. */
export interface EngineResult {
  name: EngineName;
  /** Wall time of the import (every note stored with its Markdown model). */
  importSeconds: number;
  importOutcome: string;
  /** Milliseconds of the first search on each fresh (cold) set of services. */
  coldMs: number[];
  /** Mean statements and milliseconds in the database per search, by query (all calls, warm-up included). */
  database: Partial<Record<BenchQuery['key'], { statements: number; ms: number }>>;
  /** Graph relations latency; absent until measured. */
  graph?: GraphOutcome;
}

/** The whole result of one run. */
export interface VaultSearchResult {
  notes: number;
  seed: number;
  /** Fresh services per first-search measurement (`--repeat`). */
  repeat: number;
  /** Total UTF-8 bytes of the generated notes. */
  bytes: number;
  /** Notes that contain each query's text. */
  matching: Partial<Record<BenchQuery['key'], number>>;
  /** Versions of what was measured, by name: PGlite, PostgreSQL, SQLite, ripgrep. */
  engines: Record<string, string>;
  /** Seconds spent opening (creating + migrating) each kgate database; not part of any timing. */
  openSeconds: Record<string, number>;
  /** Wall time of the FTS5 build, and rows indexed. */
  fts5?: { buildSeconds: number; rows: number };
  kgate: EngineResult[];
  /** Search latencies by subject name ("kgate on PGlite", "SQLite FTS5", "ripgrep"), then by query. */
  latency: Map<string, Map<BenchQuery['key'], Latency>>;
  /** Graph sample size. */
  graphSample: number;
  /** 1-minute load average before and after the run: how busy the shared machine was. */
  load: { before: number; after: number };
  /** Why nothing was measured (a missing tool), when so. */
  notRun?: string;
  /** Engines not measured, with the reason. */
  skipped: Array<{ engine: string; reason: string }>;
  /** Wrong answers, wrong counts, missing tools: a non-empty list invalidates the numbers. */
  failures: string[];
}
