/**
 * Baseline 1: SQLite FTS5 through better-sqlite3. The index is built from the same folder kgate imports, read with
 * the same code (`listVaultFolder` / `readNoteFiles`, batches of 250), into `fts5(title, path, body)` in an on-disk
 * WAL-mode SQLite file: title as kgate computes it, path, and the whole file as body. The searches are one prepared
 * statement each: BM25 with the title weighted 10, the path 4 and the body 1, top 20, with a snippet of the body.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { listVaultFolder, readNoteFiles } from '../../src/cli/vault-folder.ts';
import { noteTitle } from '../../src/domains/notes/title.ts';
import type { SearchSubject } from './latency.ts';
import { RESULT_LIMIT } from './queries.ts';

/** Notes read at once and inserted per transaction, as `kgate import` batches them. */
const BATCH = 250;

/** Highlight markers of the snippets; stripped before answers are checked. */
const MARK_OPEN = '<mark>';
const MARK_CLOSE = '</mark>';

/** A built FTS5 index, ready to search. */
export interface Fts5Baseline {
  subject: SearchSubject;
  /** Wall time of the build: list + read the files, compute titles, insert, commit. */
  buildMs: number;
  rows: number;
  /** e.g. "3.53.2 with FTS5 (better-sqlite3, on-disk WAL file, unicode61 tokenizer)". */
  engine: string;
  /** Closes the database and removes its folder. */
  close(): Promise<void>;
}

/** Builds the FTS5 index of the notes under `dir` in a temporary SQLite file, timed. */
export async function buildFts5Baseline(dir: string): Promise<Fts5Baseline> {
  const tmp = await mkdtemp(join(tmpdir(), 'kgate-bench-fts5-'));
  const db = new Sqlite(join(tmp, 'fts.db'));
  try {
    db.pragma('journal_mode = WAL');
    const version = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
    const started = performance.now();
    db.exec('CREATE VIRTUAL TABLE f USING fts5(title, path, body)');
    const insert = db.prepare('INSERT INTO f (title, path, body) VALUES (?, ?, ?)');
    const insertBatch = db.transaction((rows: Array<[string, string, string]>) => {
      for (const row of rows) insert.run(...row);
    });
    const paths = (await listVaultFolder(dir)).filter((e) => e.kind === 'note').map((e) => e.path);
    for (let start = 0; start < paths.length; start += BATCH) {
      const slice = paths.slice(start, start + BATCH);
      const contents = await readNoteFiles(dir, slice);
      const rows: Array<[string, string, string]> = [];
      slice.forEach((path, k) => {
        const content = contents[k];
        if (content !== undefined) rows.push([noteTitle(path, content), path, content]);
      });
      insertBatch(rows);
    }
    const buildMs = performance.now() - started;
    const rows = (db.prepare('SELECT count(*) AS n FROM f').get() as { n: number }).n;
    const select = db.prepare(
      `SELECT path, snippet(f, 2, '${MARK_OPEN}', '${MARK_CLOSE}', '…', 24) AS snippet FROM f ` +
        `WHERE f MATCH ? ORDER BY bm25(f, 10.0, 4.0, 1.0) LIMIT ${RESULT_LIMIT}`,
    );
    const subject: SearchSubject = {
      name: 'SQLite FTS5',
      kind: 'top',
      search(query) {
        const found = select.all(query.ftsMatch) as Array<{ path: string; snippet: string }>;
        return Promise.resolve({
          paths: found.map((r) => r.path),
          snippets: found.map((r) => r.snippet.split(MARK_OPEN).join('').split(MARK_CLOSE).join('')),
        });
      },
    };
    return {
      subject,
      buildMs,
      rows,
      engine: `${version} with FTS5 (better-sqlite3, on-disk WAL file, unicode61 tokenizer)`,
      async close() {
        db.close();
        await rm(tmp, { recursive: true, force: true });
      },
    };
  } catch (error) {
    db.close();
    await rm(tmp, { recursive: true, force: true });
    throw error;
  }
}
