/**
 * Phases of an import, timed from outside `src/`: the benchmark wraps the database port and the notes service it
 * hands to `importFolder`, so kgate's code runs unchanged and knows nothing of the clock.
 *
 * `importFolder` reads and parses the next batch while the database writes the current one, so kgate's phases are
 * those of the writer, whose batches follow one another: the SQL statements, the rest of each `importPrepared`
 * call, and the time the writer had nothing to write (listing the folder, the first batch, waits for the reader).
 * These add up to the wall time. Parsing (`prepareImport`) runs beside the writes and is shown on its own row.
 */
import type { Database, Row, Sql } from '../../src/db/port.ts';
import type { NotesService } from '../../src/domains/notes/index.ts';

/** The phases runs are broken into, in display order. */
export const PHASES = [
  'read files',
  'prepare batches',
  'database idle: list, read, wait',
  'SQL: mapping check',
  'SQL: lock vault',
  'SQL: look up hashes',
  'SQL: upsert notes',
  'SQL: note links',
  'SQL: content version',
  'SQL: provenance events',
  'SQL: other',
  'BEGIN/COMMIT + JS while writing',
  'SQLite insert + commit',
  'parse batches, beside the writes',
] as const;

/** One of {@link PHASES}. */
export type Phase = (typeof PHASES)[number];

/** Milliseconds per phase of one run; a phase the run did not have is absent. */
export type PhaseTimes = Partial<Record<Phase, number>>;

/** What the clock accumulates: the phases, plus totals that {@link importPhases} subtracts to get the others. */
type ClockEntry = Phase | 'importPrepared' | 'statements';

/** Accumulates milliseconds per phase. */
export class PhaseClock {
  readonly totals = new Map<ClockEntry, number>();

  add(phase: ClockEntry, ms: number): void {
    this.totals.set(phase, (this.totals.get(phase) ?? 0) + ms);
  }

  get(phase: ClockEntry): number {
    return this.totals.get(phase) ?? 0;
  }

  reset(): void {
    this.totals.clear();
  }
}

/** Names a statement by what it does in an import. */
function statementPhase(text: string): Phase {
  const sql = text.replace(/\s+/g, ' ').trim();
  if (/^INSERT INTO notes\b/i.test(sql)) return 'SQL: upsert notes';
  if (/^INSERT INTO provenance_events\b/i.test(sql)) return 'SQL: provenance events';
  if (/^SELECT path_key, path, content_hash FROM notes\b/i.test(sql)) return 'SQL: look up hashes';
  if (/FROM vaults WHERE id = \$1 FOR UPDATE/i.test(sql)) return 'SQL: lock vault';
  if (/\bnote_links\b/i.test(sql)) return 'SQL: note links';
  if (/^UPDATE vaults SET content_version\b/i.test(sql)) return 'SQL: content version';
  if (/\bFROM mappings\b/i.test(sql)) return 'SQL: mapping check';
  return 'SQL: other';
}

/** Charges each query to its statement's phase, and to the total of statements. */
function timedSql(target: Sql, clock: PhaseClock): Sql {
  return {
    async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<R[]> {
      const started = performance.now();
      try {
        return await target.query<R>(text, params);
      } finally {
        const ms = performance.now() - started;
        clock.add(statementPhase(text), ms);
        clock.add('statements', ms);
      }
    },
    exec: (script: string) => target.exec(script),
    afterCommit: (callback: () => void) => target.afterCommit(callback),
  };
}

/**
 * Wraps the database port so every statement's time is charged to a phase. Costs two `performance.now()` calls
 * per statement: microseconds against statements that take milliseconds.
 */
export function timedDatabase(db: Database, clock: PhaseClock): Database {
  return {
    engine: db.engine,
    ...timedSql(db, clock),
    transaction: <T>(work: (tx: Sql) => Promise<T>): Promise<T> => db.transaction((tx) => work(timedSql(tx, clock))),
    listen: (channel, onMessage, onState) => db.listen(channel, onMessage, onState),
    close: () => db.close(),
  };
}

/** Adds the time of each call of `run` to `entry`. */
async function timed<T>(clock: PhaseClock, entry: ClockEntry, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    clock.add(entry, performance.now() - started);
  }
}

/** Wraps the two halves of an import batch: parsing (`prepareImport`) and writing (`importPrepared`). */
export function timedNotes(notes: NotesService, clock: PhaseClock): NotesService {
  return {
    ...notes,
    prepareImport: (files) => timed(clock, 'parse batches, beside the writes', () => notes.prepareImport(files)),
    importPrepared: (actor, mappingId, prepared, options) =>
      timed(clock, 'importPrepared', () => notes.importPrepared(actor, mappingId, prepared, options)),
  };
}

/** The phases of one import pass: all but "parse batches, beside the writes" (which overlaps them) sum to its wall time. */
export function importPhases(clock: PhaseClock, wallMs: number): PhaseTimes {
  const writing = clock.get('importPrepared');
  const phases: PhaseTimes = {
    'database idle: list, read, wait': wallMs - writing,
    'BEGIN/COMMIT + JS while writing': writing - clock.get('statements'),
  };
  for (const [phase, ms] of clock.totals) {
    if (phase !== 'importPrepared' && phase !== 'statements') phases[phase] = ms;
  }
  return phases;
}
