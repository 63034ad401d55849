/**
 * The inventory of a local workspace folder: every note file under it, in byte order of path, found by a bounded
 * walk that skips hidden entries (`.trash/`, `.obsidian/`, `.git/`) and never follows a symbolic link.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isListableNotePath } from './note-paths.js';

/** At most this many folder entries are looked at for one listing; more answers a `partial` page. */
export const MAX_SCAN_ENTRIES = 100_000;

/** What a walk found. */
export interface Inventory {
  /** Note paths in byte order (UTF-8). */
  paths: string[];
  /** Markdown files left out because their names break the path rules. */
  invalidPaths: number;
  /** True when the walk stopped at MAX_SCAN_ENTRIES. */
  scanLimitReached: boolean;
}

/** Compares two paths in the byte order of their UTF-8 encodings, as the server orders an inventory. */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Walks `root` for note files whose path starts with `prefix`. */
export async function walkNotes(root: string, prefix = ''): Promise<Inventory> {
  const paths: string[] = [];
  let invalidPaths = 0;
  let seen = 0;
  const pending: string[] = [''];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    const entries = await readdir(folder === '' ? root : join(root, folder), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      seen += 1;
      if (seen > MAX_SCAN_ENTRIES) return { paths: paths.sort(byteOrder), invalidPaths, scanLimitReached: true };
      if (entry.name.startsWith('.') || entry.isSymbolicLink()) continue;
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        // A folder matters when the prefix could still match below it.
        if (prefix.startsWith(`${path}/`) || path.startsWith(prefix) || `${path}/`.startsWith(prefix)) pending.push(path);
      } else if (entry.isFile() && entry.name.endsWith('.md') && path.startsWith(prefix)) {
        if (isListableNotePath(path)) paths.push(path);
        else invalidPaths += 1;
      }
    }
  }
  return { paths: paths.sort(byteOrder), invalidPaths, scanLimitReached: false };
}
