/**
 * What the import throughput benchmark measures: one sample per repetition of each run, collapsed into one row
 * per run (the median repetition), and the whole result the report is rendered from.
 */
import type { PhaseTimes } from './phases.ts';

/** One repetition of one run. */
export interface Sample {
  /** Names the run; the repetitions of a run share it. */
  label: string;
  /** Which system ran: "baseline", "reference", "PGlite" or "PostgreSQL". */
  system: string;
  notes: number;
  /** Wall time of this repetition, in milliseconds. */
  ms: number;
  /** What was checked about the outcome, e.g. "20,000 created". */
  outcome: string;
  phases?: PhaseTimes;
}

/** One measured run (the median of its repetitions): what ran, how many notes, how long. */
export interface ThroughputRow {
  /** Short name of the run, e.g. "kgate on PGlite, first import". */
  label: string;
  /** Which system ran: "baseline", "reference", "PGlite" or "PostgreSQL". */
  system: string;
  notes: number;
  /** Median wall time over the repetitions. */
  seconds: number;
  notesPerSecond: number;
  /** Fastest and slowest repetition, in seconds. */
  range: [number, number];
  /** What was checked about the outcome, e.g. "20,000 created". */
  outcome: string;
  /** Milliseconds per phase of the median repetition (only for runs timed by phase). */
  phases?: PhaseTimes;
}

/** Everything the import throughput benchmark measured. */
export interface ImportThroughputResult {
  notes: number;
  seed: number;
  repeat: number;
  /** Total UTF-8 bytes of the generated notes. */
  bytes: number;
  rows: ThroughputRow[];
  /** Versions of the engines measured, e.g. { PGlite: "0.5.16 (PostgreSQL 18.6)" }. */
  engines: Record<string, string>;
  /** Median seconds spent opening (creating + migrating) each kgate database; not part of the import timings. */
  openSeconds: Record<string, number>;
  /** Engines that were not measured, with the reason. */
  skipped: Array<{ engine: string; reason: string }>;
  /** Wrong counts; a non-empty list means the import is broken and the numbers are meaningless. */
  failures: string[];
}

/**
 * Collapses the repetitions of each run (same label) into one row: the median repetition, with the range. The
 * median is a whole repetition, not per-field medians, so its phases still add up to its time.
 */
export function toRows(samples: readonly Sample[]): ThroughputRow[] {
  const byLabel = new Map<string, Sample[]>();
  for (const s of samples) byLabel.set(s.label, [...(byLabel.get(s.label) ?? []), s]);
  return [...byLabel.values()].map((reps) => {
    const sorted = [...reps].sort((a, b) => a.ms - b.ms);
    const mid = sorted[Math.floor((sorted.length - 1) / 2)] as Sample;
    const seconds = mid.ms / 1000;
    return {
      label: mid.label,
      system: mid.system,
      notes: mid.notes,
      seconds,
      notesPerSecond: mid.notes / seconds,
      range: [(sorted[0] as Sample).ms / 1000, (sorted[sorted.length - 1] as Sample).ms / 1000],
      outcome: mid.outcome,
      ...(mid.phases ? { phases: mid.phases } : {}),
    };
  });
}
