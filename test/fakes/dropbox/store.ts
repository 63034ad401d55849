/**
 * The fake Dropbox's namespace: files and folders by lower-case path (Dropbox paths are case-insensitive), the
 * journal that `list_folder/continue` reads changes from, and "deleted files" (Dropbox's recoverable trash).
 * Every content write mints a new `rev`, as Dropbox does.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Json } from './wire.ts';

/** A file as the fake holds it. */
export interface StoredFile {
  tag: 'file';
  id: string;
  pathDisplay: string;
  rev: string;
  content: Buffer;
  serverModified: string;
  clientModified: string;
}

/** A folder as the fake holds it. */
export interface StoredFolder {
  tag: 'folder';
  id: string;
  pathDisplay: string;
}

/** A file or a folder. */
export type StoredNode = StoredFile | StoredFolder;

/** A file in Dropbox's deleted files: restorable, with the rev it had when deleted. */
export interface TrashedFile {
  id: string;
  pathDisplay: string;
  rev: string;
  content: Buffer;
  deletedAt: string;
}

/** One change: the path touched and the sequence number of the change (a cursor is a position in this journal). */
export interface JournalEntry {
  seq: number;
  pathLower: string;
  pathDisplay: string;
}

/** Dropbox timestamps have whole seconds: `2015-05-12T15:50:38Z`. */
export function dropboxTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Dropbox's content hash: SHA-256 over the concatenated SHA-256 digests of each 4 MiB block. */
export function dropboxContentHash(content: Buffer): string {
  const block = 4 * 1024 * 1024;
  const digests: Buffer[] = [];
  for (let offset = 0; offset < content.length; offset += block) {
    digests.push(createHash('sha256').update(content.subarray(offset, offset + block)).digest());
  }
  return createHash('sha256').update(Buffer.concat(digests)).digest('hex');
}

/** The last component of a path. */
export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The parent of a path ('' for a top-level entry). */
export function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

/** Whether `pathLower` is `rootLower` or below it ('' is the root of everything). */
export function isUnder(pathLower: string, rootLower: string): boolean {
  return rootLower === '' || pathLower === rootLower || pathLower.startsWith(`${rootLower}/`);
}

/** The namespace of one fake Dropbox account. */
export class DropboxStore {
  private readonly nodes = new Map<string, StoredNode>();
  private readonly journal: JournalEntry[] = [];
  private readonly deleted: TrashedFile[] = [];
  private sequence = 0;
  private revisions = 0;
  private readonly salt = randomBytes(2).toString('hex');
  /** Bumped by `resetCursors`: cursors of an earlier epoch answer `reset`. */
  epoch = 1;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  /** The position after the last change. */
  get position(): number {
    return this.sequence;
  }

  get(pathLower: string): StoredNode | undefined {
    return this.nodes.get(pathLower);
  }

  byId(id: string): StoredNode | undefined {
    for (const node of this.nodes.values()) if (node.id === id) return node;
    return undefined;
  }

  /** The newest deleted-files entry at a path. */
  trashed(pathLower: string): TrashedFile | undefined {
    for (let i = this.deleted.length - 1; i >= 0; i -= 1) {
      const entry = this.deleted[i]!;
      if (entry.pathDisplay.toLowerCase() === pathLower) return entry;
    }
    return undefined;
  }

  /** Every node at or below `rootLower`, parents before children. */
  nodesUnder(rootLower: string, recursive: boolean): StoredNode[] {
    const depth = rootLower === '' ? 0 : rootLower.split('/').length - 1;
    return [...this.nodes.entries()]
      .filter(([key]) => isUnder(key, rootLower) && (recursive || key.split('/').length - 1 <= depth + 1))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, node]) => node);
  }

  /** Journal entries after `position` at or below `rootLower`. */
  changesAfter(position: number, rootLower: string): JournalEntry[] {
    return this.journal.filter((entry) => entry.seq > position && isUnder(entry.pathLower, rootLower));
  }

  /**
   * Makes the parents of a path exist. Returns their display path (existing folders keep their case), or
   * 'file_ancestor' when a file is in the way, as Dropbox's WriteConflictError names it.
   */
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the literal documents the sentinel.
  ensureParents(pathDisplay: string): string | 'file_ancestor' {
    const parts = pathDisplay.split('/').slice(1, -1);
    let display = '';
    for (const part of parts) {
      const candidate = `${display}/${part}`;
      const existing = this.nodes.get(candidate.toLowerCase());
      if (existing?.tag === 'file') return 'file_ancestor';
      if (existing) {
        display = existing.pathDisplay;
        continue;
      }
      const folder: StoredFolder = { tag: 'folder', id: this.newId(), pathDisplay: candidate };
      this.nodes.set(candidate.toLowerCase(), folder);
      this.record(folder.pathDisplay);
      display = candidate;
    }
    return display;
  }

  /** Writes content at a path (parents must exist): a new file, or a new revision of the file there (same id). */
  writeFile(pathDisplay: string, content: Buffer, clientModified?: string): StoredFile {
    const key = pathDisplay.toLowerCase();
    const previous = this.nodes.get(key);
    const now = dropboxTimestamp(this.clock());
    const file: StoredFile = {
      tag: 'file',
      id: previous?.tag === 'file' ? previous.id : this.newId(),
      pathDisplay: previous?.tag === 'file' ? previous.pathDisplay : pathDisplay,
      rev: this.newRev(),
      content: Buffer.from(content),
      serverModified: now,
      clientModified: clientModified ?? now,
    };
    this.nodes.set(key, file);
    this.record(file.pathDisplay);
    return file;
  }

  /** Deletes a file or a folder with everything below it; files go to deleted files. One journal entry, at the path. */
  remove(pathLower: string): StoredNode | undefined {
    const node = this.nodes.get(pathLower);
    if (!node) return undefined;
    const deletedAt = dropboxTimestamp(this.clock());
    for (const [key, below] of [...this.nodes.entries()]) {
      if (!isUnder(key, pathLower)) continue;
      if (below.tag === 'file') {
        this.deleted.push({ id: below.id, pathDisplay: below.pathDisplay, rev: below.rev, content: below.content, deletedAt });
      }
      this.nodes.delete(key);
    }
    this.record(node.pathDisplay);
    return node;
  }

  /**
   * Moves a file or folder (ids are kept; a moved file gets a new rev). The journal records the old path (now
   * deleted) and every entry at the new place, as list_folder/continue reports a move.
   */
  move(fromLower: string, toDisplay: string): StoredNode | 'not_found' | 'conflict' | 'file_ancestor' {
    const node = this.nodes.get(fromLower);
    if (!node) return 'not_found';
    const toLower = toDisplay.toLowerCase();
    if (this.nodes.has(toLower) || isUnder(toLower, fromLower)) return 'conflict';
    const parent = this.ensureParents(toDisplay);
    if (parent === 'file_ancestor') return 'file_ancestor';
    const target = `${parent}/${nameOf(toDisplay)}`;
    const moved: Array<[string, StoredNode]> = [];
    for (const [key, below] of [...this.nodes.entries()]) {
      if (!isUnder(key, fromLower)) continue;
      this.nodes.delete(key);
      const display = target + below.pathDisplay.slice(node.pathDisplay.length);
      moved.push([display.toLowerCase(), below.tag === 'file' ? { ...below, pathDisplay: display, rev: this.newRev() } : { ...below, pathDisplay: display }]);
    }
    this.record(node.pathDisplay);
    for (const [key, below] of moved.sort(([a], [b]) => (a < b ? -1 : 1))) {
      this.nodes.set(key, below);
      this.record(below.pathDisplay);
    }
    return this.nodes.get(toLower)!;
  }

  /** Metadata JSON of a node, as `get_metadata`, `list_folder` and `upload` answer it. */
  metadata(node: StoredNode): { [key: string]: Json } {
    const common = { name: nameOf(node.pathDisplay), path_lower: node.pathDisplay.toLowerCase(), path_display: node.pathDisplay, id: node.id };
    if (node.tag === 'folder') return { '.tag': 'folder', ...common };
    return {
      '.tag': 'file',
      ...common,
      client_modified: node.clientModified,
      server_modified: node.serverModified,
      rev: node.rev,
      size: node.content.length,
      is_downloadable: true,
      content_hash: dropboxContentHash(node.content),
    };
  }

  /** DeletedMetadata: a path where something used to be (no id, no rev). */
  deletedMetadata(pathDisplay: string): { [key: string]: Json } {
    return { '.tag': 'deleted', name: nameOf(pathDisplay), path_lower: pathDisplay.toLowerCase(), path_display: pathDisplay };
  }

  private record(pathDisplay: string): void {
    this.sequence += 1;
    this.journal.push({ seq: this.sequence, pathLower: pathDisplay.toLowerCase(), pathDisplay });
  }

  private newId(): string {
    return `id:${randomBytes(12).toString('base64url')}`;
  }

  // Revs are lower-case hex of at least 9 digits, unique per file version.
  private newRev(): string {
    this.revisions += 1;
    return `${(0x100000000 + this.revisions).toString(16)}${this.salt}`;
  }
}
