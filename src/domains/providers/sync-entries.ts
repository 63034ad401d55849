import { KgateError } from '../../kernel/errors.ts';
import { normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import type { RemoteEntry } from './port.ts';

/**
 * The file whose presence at a mapping's root declares device-held encryption (docs/providers.md, "Device-held
 * encryption"): the sync that finds it turns the mapping's flag on, for good.
 */
export const DEVICE_ENCRYPTION_MARKER = '.kgate-device-encrypted';

/** What synchronization does with a remote file. */
export type EntryKind = 'note' | 'not_a_note' | 'invalid_path' | 'marker';

/** A remote file with its canonical path (NFC; checked when it is a note) and its path key. */
export interface ClassifiedEntry {
  entry: RemoteEntry;
  path: string;
  key: string;
  kind: EntryKind;
}

/** A provider path below the root in the form rows keep: NFC, without a leading '/'. */
function plainPath(path: string): string {
  return path.normalize('NFC').replace(/^\/+/, '');
}

/** The remote_files key of a path below the root (case-folded, as note path keys are). */
export function remotePathKey(path: string): string {
  return notePathKey(plainPath(path));
}

/** True for the device-held encryption marker at the mapping's root. */
export function isEncryptionMarker(path: string): boolean {
  return remotePathKey(path) === DEVICE_ENCRYPTION_MARKER;
}

/**
 * Sorts a remote file: a note is a file whose name ends in `.md` (in any case) and whose path is a valid note path
 * (kernel/vault-path.ts, normalizeNotePath: `.MD` is not, as for hosted notes); other `.md` files are invalid paths;
 * anything else is not a note, the encryption marker aside.
 */
export function classifyEntry(entry: RemoteEntry): ClassifiedEntry {
  const plain = plainPath(entry.path);
  const key = notePathKey(plain);
  if (key === DEVICE_ENCRYPTION_MARKER) return { entry, path: plain, key, kind: 'marker' };
  if (!key.endsWith('.md')) return { entry, path: plain, key, kind: 'not_a_note' };
  try {
    const path = normalizeNotePath(plain);
    return { entry, path, key: notePathKey(path), kind: 'note' };
  } catch (error) {
    if (error instanceof KgateError) return { entry, path: plain, key, kind: 'invalid_path' };
    throw error;
  }
}

/** Decodes a downloaded note as UTF-8 text; undefined when it is not (such a file is kept as not a note). */
export function decodeNote(content: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(content);
  } catch {
    return undefined;
  }
}
