/**
 * What kgate's import is compared with, measured on the same folder in the same run:
 *
 * - baseline A: listing and reading the folder only, with the same `listVaultFolder` / `readNoteFiles` code
 *   (batches of 250 read concurrently) that the import uses;
 * - baseline B: the same listing and reads, plus a SHA-256 per note and better-sqlite3 inserts of (path, content,
 *   hash) in transactions of 250 rows into an on-disk WAL-mode SQLite file: a minimal "store the files" job;
 * - a reference that reads the same files with `readFileSync` (not the import's code), to show how much of the
 *   reading cost is the file system and how much is the way the files are read.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { listVaultFolder, readNoteFiles } from '../../src/cli/vault-folder.ts';
import { count } from '../support/format.ts';
import type { Sample } from './result.ts';

/** Notes per batch in the baselines (files read at once, rows per SQLite transaction): the same as `kgate import`. */
const BATCH = 250;

/** Baseline A: list the folder and read every note, as `importFolder` does, with no database. */
export async function readOnlyBaseline(dir: string): Promise<Sample> {
  const started = performance.now();
  const paths = (await listVaultFolder(dir)).filter((e) => e.kind === 'note').map((e) => e.path);
  let read = 0;
  for (let start = 0; start < paths.length; start += BATCH) {
    const contents = await readNoteFiles(dir, paths.slice(start, start + BATCH));
    read += contents.filter((content) => content !== undefined).length;
  }
  const ms = performance.now() - started;
  return { label: 'Baseline A: list + read files, no database', system: 'baseline', notes: read, ms, outcome: `${count(read)} read` };
}

/** Reference: the same files read with `readFileSync` and decoded, to show what reading costs the file system. */
export async function syncReadReference(dir: string): Promise<Sample> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const started = performance.now();
  const entries = await listVaultFolder(dir);
  let read = 0;
  for (const entry of entries) {
    if (entry.kind !== 'note') continue;
    decoder.decode(readFileSync(join(dir, ...entry.path.split('/'))));
    read++;
  }
  const ms = performance.now() - started;
  return {
    label: 'Reference: list + readFileSync (not the import’s code)',
    system: 'reference',
    notes: read,
    ms,
    outcome: `${count(read)} read`,
  };
}

/**
 * Baseline B: the same reads, a SHA-256 each, and better-sqlite3 inserts in transactions of 250 (WAL mode), in a
 * temporary SQLite file. Also returns the SQLite version and durability settings, for the report.
 */
export async function sqliteBaseline(dir: string): Promise<{ sample: Sample; engine: string }> {
  const tmp = await mkdtemp(join(tmpdir(), 'kgate-bench-sqlite-'));
  try {
    const db = new Sqlite(join(tmp, 'notes.db'));
    try {
      db.pragma('journal_mode = WAL');
      const synchronous = db.pragma('synchronous', { simple: true }) as number;
      const version = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
      db.exec('CREATE TABLE notes (path TEXT PRIMARY KEY, content TEXT NOT NULL, content_hash TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO notes (path, content, content_hash) VALUES (?, ?, ?)');
      const insertBatch = db.transaction((batch: Array<[string, string, string]>) => {
        for (const values of batch) insert.run(...values);
      });
      let hashMs = 0;
      let insertMs = 0;
      const started = performance.now();
      const paths = (await listVaultFolder(dir)).filter((e) => e.kind === 'note').map((e) => e.path);
      for (let start = 0; start < paths.length; start += BATCH) {
        const batch: Array<[string, string, string]> = [];
        const slice = paths.slice(start, start + BATCH);
        const contents = await readNoteFiles(dir, slice);
        for (const [i, path] of slice.entries()) {
          const content = contents[i];
          if (content === undefined) continue;
          const t0 = performance.now();
          batch.push([path, content, `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`]);
          hashMs += performance.now() - t0;
        }
        const t1 = performance.now();
        insertBatch(batch);
        insertMs += performance.now() - t1;
      }
      const ms = performance.now() - started;
      const stored = (db.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n;
      const mode = ['OFF', 'NORMAL', 'FULL', 'EXTRA'][synchronous] ?? String(synchronous);
      return {
        sample: {
          label: 'Baseline B: read + SHA-256 + better-sqlite3 insert',
          system: 'baseline',
          notes: stored,
          ms,
          outcome: `${count(stored)} rows stored`,
          phases: { 'read files': ms - hashMs - insertMs, 'prepare batches': hashMs, 'SQLite insert + commit': insertMs },
        },
        engine: `${version} (better-sqlite3, WAL, synchronous=${mode})`,
      };
    } finally {
      db.close();
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
