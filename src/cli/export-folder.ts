import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { FilesService } from '../domains/files/index.ts';
import type { NotesService } from '../domains/notes/index.ts';
import type { Actor } from '../kernel/principal.ts';
import { OperatorError } from './operator-error.ts';
import { createProgress } from './progress.ts';

/** What an export wrote: notes, canvases and attachments (`files`), and their bytes together. */
export interface ExportReport {
  notes: number;
  files: number;
  bytes: number;
}

/**
 * Writes every note of a hosted vault into `dir` as `.md` files, and with `options.files` its canvases and
 * attachments byte for byte, so that exporting an imported folder gives the folder back (hidden entries aside,
 * which are never imported).
 */
export async function exportFolder(
  notes: NotesService,
  actor: Actor,
  mappingId: string,
  dir: string,
  options: { force?: boolean; progress?: boolean; files?: FilesService } = {},
): Promise<ExportReport> {
  const root = resolve(dir);
  const existing = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (existing.length > 0 && !options.force) {
    throw new OperatorError(`${root} is not empty. Choose an empty folder, or pass --force to overwrite files in it.`);
  }
  const total = await notes.countNotes(actor, mappingId);
  const progress = options.progress ? createProgress('Exporting', total) : undefined;
  let written = 0;
  let bytes = 0;
  const write = async (path: string, content: string | Buffer) => {
    const target = resolve(root, ...path.split('/'));
    // Stored paths are validated, but a file write outside the folder must be impossible, not just unlikely.
    if (!target.startsWith(root + sep)) throw new OperatorError(`Refusing to write outside ${root}: ${path}`);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  };
  for await (const page of notes.iterateNotes(actor, mappingId)) {
    for (const note of page) {
      await write(note.path, note.content);
      written += 1;
      bytes += note.size;
      progress?.update(written);
    }
  }
  progress?.finish();
  let files = 0;
  if (options.files) {
    for await (const page of options.files.iterateFiles(actor, mappingId)) {
      for (const file of page) {
        await write(file.path, file.content);
        files += 1;
        bytes += file.size;
      }
    }
  }
  await mkdir(root, { recursive: true });
  return { notes: written, files, bytes };
}

/** The line `kgate export` prints. */
export function describeExport(report: ExportReport, dir: string): string {
  return `Exported ${report.notes} notes and ${report.files} canvases and attachments (${report.bytes} bytes) to ${dir}.`;
}

