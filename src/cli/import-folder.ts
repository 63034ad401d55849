import { MAX_FILE_BYTES, MAX_FILE_IMPORT_BATCH, type FilesService, type ImportedVaultFile } from '../domains/files/index.ts';
import { MAX_IMPORT_BATCH, type ImportBatchResult, type ImportedFile, type NotesService, type PreparedImport } from '../domains/notes/index.ts';
import type { Actor } from '../kernel/principal.ts';
import { createProgress } from './progress.ts';
import { fileSizes, listVaultFolder, readNoteFiles, readVaultFiles, type FolderEntry } from './vault-folder.ts';

/** What an import did with the folder's canvases and attachments (stored when the files service is given). */
export interface FileImportReport {
  /** Whether canvases and attachments were stored (false: counted only). */
  stored: boolean;
  created: number;
  updated: number;
  unchanged: number;
}

/**
 * Everything an import did, including what it did not import and why. `created`, `updated` and `unchanged` count
 * notes; `files` counts canvases and attachments; `rejected` lists both. Hidden entries (`.obsidian/`, `.trash/`,
 * `.git/`, dot files) and symbolic links are skipped on purpose and counted, with their paths in `skipped`.
 */
export interface ImportReport extends ImportBatchResult {
  notes: number;
  canvases: number;
  attachments: number;
  hidden: number;
  symlinks: number;
  files: FileImportReport;
  /** The hidden entries and symbolic links skipped, in folder order (at most MAX_LISTED_SKIPS). */
  skipped: string[];
  dryRun: boolean;
}

/** How many skipped paths a report lists by name (all are counted). */
export const MAX_LISTED_SKIPS = 100;
// A batch of canvases and attachments holds at most this many bytes (and MAX_FILE_IMPORT_BATCH files): one
// transaction, kept short, and a bounded amount of memory.
const FILE_BATCH_BYTES = 64 * 1024 * 1024;

/** The lines `kgate import` prints for a report. */
export function describeImport(report: ImportReport): string[] {
  const verb = report.dryRun ? 'Would import' : 'Imported';
  const fileCount = report.canvases + report.attachments;
  return [
    `${verb} ${report.notes} notes: ${report.created} created, ${report.updated} updated, ${report.unchanged} unchanged.`,
    report.files.stored
      ? `${verb} ${fileCount} canvases and attachments (${report.canvases} canvases): ${report.files.created} created, ${report.files.updated} updated, ${report.files.unchanged} unchanged.`
      : `Not imported: ${report.canvases} canvases, ${report.attachments} attachments.`,
    `Skipped on purpose: ${report.hidden} hidden entries (such as .obsidian/, the app's settings), ${report.symlinks} symbolic links.`,
    `${report.rejected.length} rejected.`,
    ...report.rejected.map((r) => `  rejected ${r.path}: ${r.reason} (${r.code})`),
  ];
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
 * Imports an Obsidian-style folder into a hosted vault, batch by batch: its notes, and with `options.files` its
 * canvases and attachments byte for byte (without it they are counted, not imported). Hidden entries and symbolic
 * links are skipped on purpose and reported. Re-running with the same folder reports everything unchanged.
 */
export async function importFolder(
  notes: NotesService,
  actor: Actor,
  mappingId: string,
  dir: string,
  options: { dryRun?: boolean; progress?: boolean; ownDatabase?: boolean; files?: FilesService } = {},
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
    files: { stored: options.files !== undefined, created: 0, updated: 0, unchanged: 0 },
    skipped: entries.filter((e) => e.kind === 'hidden' || e.kind === 'symlink').slice(0, MAX_LISTED_SKIPS).map((e) => e.path),
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
  if (options.files) await importVaultFiles(options.files, actor, mappingId, dir, entries, report);
  return report;
}

/** Stores the folder's canvases and attachments in batches bounded by count and bytes; adds to `report`. */
async function importVaultFiles(files: FilesService, actor: Actor, mappingId: string, dir: string, entries: readonly FolderEntry[], report: ImportReport): Promise<void> {
  const paths = entries.filter((e) => e.kind === 'canvas' || e.kind === 'attachment').map((e) => e.path);
  const sizes = await fileSizes(dir, paths);
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const contents = await readVaultFiles(dir, batch);
    const imported: ImportedVaultFile[] = batch.map((path, i) => ({ path, content: contents[i]! }));
    const result = await files.importFiles(actor, mappingId, imported, { dryRun: report.dryRun });
    report.files.created += result.created;
    report.files.updated += result.updated;
    report.files.unchanged += result.unchanged;
    report.rejected.push(...result.rejected);
    batch = [];
    bytes = 0;
  };
  for (const [i, path] of paths.entries()) {
    const size = sizes[i]!;
    // Never read a file that cannot be stored: reported by its size alone.
    if (size > MAX_FILE_BYTES) {
      report.rejected.push({ path, code: 'payload_too_large', reason: `larger than ${MAX_FILE_BYTES} bytes` });
      continue;
    }
    if (batch.length >= MAX_FILE_IMPORT_BATCH || (batch.length > 0 && bytes + size > FILE_BATCH_BYTES)) await flush();
    batch.push(path);
    bytes += size;
  }
  await flush();
}
