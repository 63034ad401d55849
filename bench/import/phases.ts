/**
 * Phases of an import, timed from outside `src/`: the benchmark wraps the database port and the notes service it
 * hands to `importFolder`, so kgate's code runs unchanged and knows nothing of the clock.
 */
import type { Database, Row, Sql } from '../../src/db/port.ts';
import type { NotesService } from '../../src/domains/notes/index.ts';

/** The phases runs are broken into, in display order. */
export const PHASES = [
  'read files',
  'prepare batches',
  'SQL: mapping check',
  'SQL: lock vault',
  'SQL: look up hashes',
  'SQL: upsert notes',
  'SQL: note links',
  'SQL: content version',
  'SQL: provenance events',
  'SQL: other',
  'BEGIN/COMMIT + JS in transaction',
  'SQLite insert + commit',
] as const;

/** One of {@link PHASES}. */
export type Phase = (typeof PHASES)[number];

/** Milliseconds per phase of one run; a phase the run did not have is absent. */
export type PhaseTimes = Partial<Record<Phase, number>>;

/** What the clock accumulates: the phases, plus two totals that {@link importPhases} subtracts to get the others. */
type ClockEntry = Phase | 'importNotes' | 'in transaction';

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

/** Charges each query to its statement's phase and, inside a transaction, to the transaction's statement time. */
function timedSql(target: Sql, clock: PhaseClock, inTransaction: { ms: number } | undefined): Sql {
  return {
    async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<R[]> {
      const started = performance.now();
      try {
        return await target.query<R>(text, params);
      } finally {
        const ms = performance.now() - started;
        clock.add(statementPhase(text), ms);
        if (inTransaction) inTransaction.ms += ms;
      }
    },
    exec: (script: string) => target.exec(script),
    afterCommit: (callback: () => void) => target.afterCommit(callback),
  };
}

/**
 * Wraps the database port so every statement's time is charged to a phase, and the rest of each transaction
 * (BEGIN, COMMIT, JavaScript between statements) to "BEGIN/COMMIT + JS in transaction". Costs two
 * `performance.now()` calls per statement: microseconds against statements that take milliseconds.
 */
export function timedDatabase(db: Database, clock: PhaseClock): Database {
  return {
    engine: db.engine,
    ...timedSql(db, clock, undefined),
    async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
      const inside = { ms: 0 };
      const started = performance.now();
      try {
        return await db.transaction((tx) => work(timedSql(tx, clock, inside)));
      } finally {
        clock.add('in transaction', performance.now() - started);
        clock.add('BEGIN/COMMIT + JS in transaction', performance.now() - started - inside.ms);
      }
    },
    listen: (channel, onMessage, onState) => db.listen(channel, onMessage, onState),
    close: () => db.close(),
  };
}

/** Wraps `importNotes` to time each batch, so that the rest of `importFolder` is listing and reading files. */
export function timedNotes(notes: NotesService, clock: PhaseClock): NotesService {
  return {
    ...notes,
    async importNotes(actor, mappingId, files, options) {
      const started = performance.now();
      try {
        return await notes.importNotes(actor, mappingId, files, options);
      } finally {
        clock.add('importNotes', performance.now() - started);
      }
    },
  };
}

/** The phases of one import pass, summing to its wall time. */
export function importPhases(clock: PhaseClock, wallMs: number): PhaseTimes {
  const phases: PhaseTimes = {
    'read files': wallMs - clock.get('importNotes'),
    'prepare batches': clock.get('importNotes') - clock.get('in transaction'),
  };
  for (const [phase, ms] of clock.totals) {
    if (phase !== 'importNotes' && phase !== 'in transaction') phases[phase] = ms;
  }
  return phases;
}
