import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SearchIndexSnapshots } from '../domains/search/index.ts';
import { isUuid } from '../kernel/ids.ts';

/** The folder of the data directory that holds search index snapshots (beside `pglite/`, backed up with it). */
export function searchSnapshotDirOf(dataDir: string): string {
  return join(dataDir, 'search-index');
}

/**
 * Search index snapshots as files, one per vault (`<vault id>.idx`), readable by the owner only. A write goes to a
 * temporary file that is renamed over the old one, so a crash leaves the old snapshot or the new one, never half.
 */
export function searchSnapshotFiles(dir: string): SearchIndexSnapshots {
  const fileOf = (vaultId: string) => {
    // Vault ids come from the database; anything else never names a file.
    if (!isUuid(vaultId)) throw new Error('not a vault id');
    return join(dir, `${vaultId}.idx`);
  };
  return {
    async read(vaultId) {
      try {
        return await readFile(fileOf(vaultId));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async write(vaultId, parts) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = fileOf(vaultId);
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        // The parts in order, without joining them into one buffer first (they are tens of megabytes).
        await writeFile(temporary, parts, { mode: 0o600 });
        await rename(temporary, file);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
  };
}
