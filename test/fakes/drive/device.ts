/**
 * "Another device": a person editing the same Drive through Google's own apps. It works on the fake's store by path
 * from My Drive, and every change it makes is versioned and logged exactly as the API's own writes are, so the
 * adapter's change cursor sees it.
 */
import { FOLDER_MIME, type DriveStore, type FakeFile } from './store.ts';

function segments(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/** Path-based edits and reads of the fake Drive, as another device makes them. */
export class DriveDevice {
  constructor(private readonly store: DriveStore) {}

  /** The folder at a path, created (with the folders above it) when missing. */
  folder(path: string): FakeFile {
    let parent = this.store.get('root')!;
    for (const name of segments(path)) {
      const existing = this.store.children(parent.id).find((child) => child.name === name && child.mimeType === FOLDER_MIME && !child.trashed);
      parent = existing ?? this.store.create({ name, mimeType: FOLDER_MIME, parents: [parent.id] });
    }
    return parent;
  }

  /** Writes a file: a new revision of the one file at the path, or a new file there. */
  put(path: string, content: string | Buffer): FakeFile {
    const found = this.find(path);
    if (found.length > 1) throw new Error(`${path} names ${found.length} files`);
    if (found[0]) {
      this.store.updateContent(found[0], Buffer.from(content));
      return found[0];
    }
    return this.add(path, content);
  }

  /** Creates a new file at the path even when one exists there (Drive allows two files with one name). */
  add(path: string, content: string | Buffer): FakeFile {
    const names = segments(path);
    const parent = this.folder(names.slice(0, -1).join('/'));
    return this.store.create({ name: names.at(-1)!, mimeType: 'text/markdown', parents: [parent.id], content: Buffer.from(content) });
  }

  /** Renames and/or moves the file or folder at `from` to `to` (folders on the way created). */
  move(from: string, to: string): FakeFile {
    const file = this.one(from);
    const names = segments(to);
    const parent = this.folder(names.slice(0, -1).join('/'));
    this.store.updateMetadata(file, { name: names.at(-1)!, addParents: [parent.id], removeParents: file.parents.filter((id) => id !== parent.id) });
    return file;
  }

  /** Moves the file or folder at a path to the trash. */
  trash(path: string): FakeFile {
    const file = this.one(path);
    this.store.updateMetadata(file, { trashed: true });
    return file;
  }

  /** Deletes the file or folder at a path for good (emptied from the trash). */
  deleteForever(path: string): void {
    this.store.deleteForever(this.one(path));
  }

  /** Every file or folder outside the trash at a path. */
  find(path: string): FakeFile[] {
    return this.at(path, false);
  }

  /** The one file outside the trash at a path, or undefined; throws when the path names two. */
  file(path: string): FakeFile | undefined {
    const found = this.find(path);
    if (found.length > 1) throw new Error(`${path} names ${found.length} files`);
    return found[0];
  }

  /** The trashed files at a path (the folders on the way are matched by name, in the trash or not). */
  trashed(path: string): FakeFile[] {
    return this.at(path, true);
  }

  private one(path: string): FakeFile {
    const file = this.file(path);
    if (!file) throw new Error(`nothing at ${path}`);
    return file;
  }

  private at(path: string, trashed: boolean): FakeFile[] {
    const names = segments(path);
    let level = [this.store.get('root')!];
    for (const [index, name] of names.entries()) {
      const last = index === names.length - 1;
      level = level.flatMap((folder) =>
        this.store
          .children(folder.id)
          .filter((child) => child.name === name && (last ? child.trashed === trashed : child.mimeType === FOLDER_MIME && (trashed || !child.trashed))),
      );
    }
    return level;
  }
}
