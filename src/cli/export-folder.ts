import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { NotesService } from '../domains/notes/index.ts';
import type { Actor } from '../kernel/principal.ts';
import { OperatorError } from './operator-error.ts';
import { createProgress } from './progress.ts';

/** Writes every note of a hosted vault into `dir` as `.md` files; returns how many. */
export async function exportFolder(
  notes: NotesService,
  actor: Actor,
  mappingId: string,
  dir: string,
  options: { force?: boolean; progress?: boolean } = {},
): Promise<{ notes: number; bytes: number }> {
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
  for await (const page of notes.iterateNotes(actor, mappingId)) {
    for (const note of page) {
      const target = resolve(root, ...note.path.split('/'));
      // Stored paths are validated, but a file write outside the folder must be impossible, not just unlikely.
      if (!target.startsWith(root + sep)) throw new OperatorError(`Refusing to write outside ${root}: ${note.path}`);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, note.content, 'utf8');
      written += 1;
      bytes += note.size;
      progress?.update(written);
    }
  }
  progress?.finish();
  await mkdir(root, { recursive: true });
  return { notes: written, bytes };
}

