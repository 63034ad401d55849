import { MAX_IMPORT_BATCH, type ImportBatchResult, type ImportedFile, type NotesService, type PreparedImport } from '../domains/notes/index.ts';
import type { Actor } from '../kernel/principal.ts';
import { createProgress } from './progress.ts';
import { listVaultFolder, readNoteFiles } from './vault-folder.ts';

/** Everything an import did, including what it did not import and why. */
export interface ImportReport extends ImportBatchResult {
  notes: number;
  canvases: number;
  attachments: number;
  hidden: number;
  symlinks: number;
  dryRun: boolean;
}

// Inside a gateway, small enough to keep each transaction short (it holds the vault lock, and PGlite runs one
// transaction at a time, so the gateway's requests wait for it), large enough to amortize. A command with the
// database to itself takes the notes service's largest batch: a 20,000-note first import on PGlite took 8.4 s
// with 500 notes per batch against 9.1 s with 250 (2026-11-25).
const SHARED_BATCH_SIZE = 250;
// After a bulk load the planner has no statistics for the new rows and scans instead of using the path index:
// statistics are refreshed once this many notes have been written, and again at the end. Without the refresh
// along the way, each batch's hash lookups scanned the growing table: a 20,000-note first import on PGlite took
// 8.0-8.3 s, against 7.7 s with it (2026-11-25).
const ANALYZE_AFTER_CHANGES = 1_000;

/**
 * Imports the notes of an Obsidian-style folder into a hosted vault, batch by batch. Canvases, attachments,
 * hidden entries and symbolic links are counted and reported, not imported. Re-running with the same folder
 * reports every note unchanged.
 */
export async function importFolder(
  notes: NotesService,
  actor: Actor,
  mappingId: string,
  dir: string,
  options: { dryRun?: boolean; progress?: boolean; ownDatabase?: boolean } = {},
): Promise<ImportReport> {
  const batchSize = options.ownDatabase ? MAX_IMPORT_BATCH : SHARED_BATCH_SIZE;
  const entries = await listVaultFolder(dir);
  const count = (kind: string) => entries.filter((e) => e.kind === kind).length;
  const notePaths = entries.filter((e) => e.kind === 'note').map((e) => e.path);
  const report: ImportReport = {
    notes: notePaths.length,
    created: 0,
    updated: 0,
    unchanged: 0,
    rejected: [],
    canvases: count('canvas'),
    attachments: count('attachment'),
    hidden: count('hidden'),
    symlinks: count('symlink'),
    dryRun: options.dryRun ?? false,
  };
  const progress = options.progress ? createProgress('Importing', notePaths.length) : undefined;
  // Reads and parses a batch: the request thread's share of the work.
  const readBatch = async (start: number): Promise<PreparedImport> => {
    const paths = notePaths.slice(start, start + batchSize);
    const contents = await readNoteFiles(dir, paths);
    const batch: ImportedFile[] = [];
    const unreadable: ImportBatchResult['rejected'] = [];
    paths.forEach((path, i) => {
      const content = contents[i];
      if (content === undefined) unreadable.push({ path, code: 'invalid_request', reason: 'not valid UTF-8' });
      else batch.push({ path, content });
    });
    const prepared = await notes.prepareImport(batch);
    return { files: prepared.files, rejected: [...unreadable, ...prepared.rejected] };
  };
  // The database writes one batch while the next is read and parsed: batches are still written one after the
  // other, in folder order, so the outcome is exactly that of a plain loop.
  let next = notePaths.length > 0 ? await readBatch(0) : undefined;
  for (let start = 0; next !== undefined; start += batchSize) {
    const following = start + batchSize < notePaths.length ? start + batchSize : undefined;
    const [result, afterThat] = await Promise.all([
      notes.importPrepared(actor, mappingId, next, { dryRun: report.dryRun }),
      following === undefined ? undefined : readBatch(following),
    ]);
    const changedBefore = report.created + report.updated;
    report.created += result.created;
    report.updated += result.updated;
    if (!report.dryRun && changedBefore < ANALYZE_AFTER_CHANGES && report.created + report.updated >= ANALYZE_AFTER_CHANGES && afterThat) {
      await notes.refreshStatistics();
    }
    report.unchanged += result.unchanged;
    report.rejected.push(...result.rejected);
    progress?.update(Math.min(start + batchSize, notePaths.length));
    next = afterThat;
  }
  progress?.finish();
  if (!report.dryRun && report.created + report.updated >= ANALYZE_AFTER_CHANGES) await notes.refreshStatistics();
  return report;
}
