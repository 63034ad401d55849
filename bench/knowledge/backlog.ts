/**
 * The background compiler over a whole vault: the synthetic vault stored without knowledge (imported through the
 * notes service that is not told of changes), then `compileBacklog` from nothing, beside three baselines on the same
 * database in the same run: reading every note's content from the database (what any pass over the vault must do),
 * compiling those contents in memory (the compiler's CPU alone), and re-deriving every note's Markdown model (the
 * reindex the gateway runs at start, the nearest comparable pass that also writes).
 */
import type { Database } from '../../src/db/port.ts';
import { compileNote } from '../../src/domains/knowledge/index.ts';
import { contentHash } from '../../src/kernel/hashing.ts';
import { count } from '../support/format.ts';
import { benchOwner, importAll, type Workbench } from './workbench.ts';

/** One pass over the vault: its median time and what it went through. */
export interface BacklogPass {
  key: 'read' | 'compile-in-memory' | 'backlog' | 'reindex';
  ms: number;
  notes: number;
  /** Records compiled (the passes that compile). */
  records?: number;
  /**
   * Of `compileBacklog`'s time, what its statements outside the batch transactions took: finding the next batch of
   * pending notes (its one query that is not in a batch's transaction).
   */
  findingMs?: number;
}

/** The passes on one engine. */
export interface BacklogResult {
  engine: Workbench['engine'];
  /** The import that stored the vault without knowledge (not part of any pass). */
  importMs: number;
  passes: BacklogPass[];
  failures: string[];
}

const VACUUM = 'VACUUM ANALYZE notes, note_links, knowledge_notes, knowledge_records, knowledge_record_versions, knowledge_changes';

/** `db` with the time of its statements outside transactions summed (a batch's own statements run in `transaction`). */
function meteredOutsideTransactions(db: Database): { db: Database; ms: () => number } {
  let ms = 0;
  const metered = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return async (...args: Parameters<Database['query']>) => {
          const started = performance.now();
          try {
            return await target.query(...args);
          } finally {
            ms += performance.now() - started;
          }
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: metered, ms: () => ms };
}

const timed = async <T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
};

/** Measures the passes `repeat` times over `notes` on one engine; the median of each is reported. */
export async function measureBacklog(
  bench: Workbench,
  notes: ReadonlyArray<{ path: string; content: string }>,
  repeat: number,
  log: (line: string) => void,
): Promise<BacklogResult> {
  const failures: string[] = [];
  const owner = await benchOwner(bench.services, 'knowledge-backlog');
  const imported = await timed(() => importAll(bench.unobserved, owner, notes));
  if (imported.value !== notes.length) failures.push(`${bench.engine}: imported ${count(imported.value)} notes, expected ${count(notes.length)}`);
  log(`  ${bench.engine}: stored ${count(imported.value)} notes without knowledge in ${(imported.ms / 1000).toFixed(1)} s`);
  const expected = notes.reduce((sum, n) => sum + compileNote(n.path, contentHash(n.content), n.content).length, 0);
  const samples = new Map<BacklogPass['key'], BacklogPass[]>();
  const record = (pass: BacklogPass) => {
    samples.set(pass.key, [...(samples.get(pass.key) ?? []), pass]);
    log(`  ${bench.engine}: ${pass.key} ${(pass.ms / 1000).toFixed(2)} s (${count(pass.notes)} notes${pass.records === undefined ? '' : `, ${count(pass.records)} records`})`);
  };
  for (let rep = 1; rep <= repeat; rep++) {
    const read = await timed(async () => {
      const contents: Array<{ path: string; content: string; contentHash: string }> = [];
      for await (const page of bench.services.notes.iterateNotes(owner.actor, owner.mappingId, 1000)) contents.push(...page);
      return contents;
    });
    record({ key: 'read', ms: read.ms, notes: read.value.length });
    const inMemory = await timed(() => Promise.resolve(read.value.reduce((sum, n) => sum + compileNote(n.path, n.contentHash, n.content).length, 0)));
    record({ key: 'compile-in-memory', ms: inMemory.ms, notes: read.value.length, records: inMemory.value });

    await bench.db.exec('DELETE FROM knowledge_notes; DELETE FROM knowledge_records; DELETE FROM knowledge_record_versions; DELETE FROM knowledge_changes');
    // PGlite has no autovacuum: without this, each repetition would meet the dead rows of the ones before it.
    await bench.db.exec(VACUUM);
    const meter = meteredOutsideTransactions(bench.db);
    const backlog = await timed(() => bench.services.knowledge.compileBacklog(meter.db));
    record({ key: 'backlog', ms: backlog.ms, notes: backlog.value.notes, records: backlog.value.records, findingMs: meter.ms() });
    if (backlog.value.notes !== notes.length || backlog.value.records !== expected) {
      failures.push(`${bench.engine}: compileBacklog compiled ${count(backlog.value.notes)} notes and ${count(backlog.value.records)} records, expected ${count(notes.length)} and ${count(expected)}`);
    }

    await bench.db.query('UPDATE notes SET model_version = 0 WHERE vault_id = $1', [owner.vaultId]);
    await bench.db.exec(VACUUM);
    const reindex = await timed(() => bench.services.notes.reindexStale());
    record({ key: 'reindex', ms: reindex.ms, notes: reindex.value });
    if (reindex.value !== notes.length) failures.push(`${bench.engine}: the reindex re-derived ${count(reindex.value)} notes, expected ${count(notes.length)}`);
  }
  // The median run of each pass, whole (its parts belong to it).
  const passes = [...samples.values()].map((runs) => [...runs].sort((a, b) => a.ms - b.ms)[Math.floor((runs.length - 1) / 2)]!);
  return { engine: bench.engine, importMs: imported.ms, passes, failures };
}
