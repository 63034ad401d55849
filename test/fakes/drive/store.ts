/**
 * The fake Drive's files and change log, in memory. It keeps Drive's rules that the adapter depends on: a file has
 * one id for life and any number of siblings with the same name; `version` grows on every change of content or
 * metadata (by more than one at a time, as Drive's does); trashing is a flag, not a removal; every change is
 * appended to an account-wide log that names file ids, which `changes.list` reads from a numeric page token.
 */
import { randomBytes } from 'node:crypto';

/** Drive's MIME type of folders. */
export const FOLDER_MIME = 'application/vnd.google-apps.folder';

/** One file or folder as the fake keeps it. */
export interface FakeFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  /** True when the file or one of its folders is in the trash. */
  trashed: boolean;
  /** True when the file itself was trashed (not only a folder above it). */
  explicitlyTrashed: boolean;
  version: number;
  content: Buffer;
  createdTime: string;
  modifiedTime: string;
}

/** One entry of the account-wide change log. */
interface LoggedChange {
  fileId: string;
  /** Deleted for good (or no longer visible): Drive sends no file resource then. */
  removed: boolean;
  time: string;
}

/** A file as the Drive API presents it (the full resource; `fields` selects from it). */
export type FileResource = Record<string, unknown>;

/** The files of one Drive account and their change log. */
export class DriveStore {
  /** My Drive's own id; the API also accepts the alias `root`. */
  readonly rootId = `0A${randomBytes(12).toString('base64url')}Uk9PVA`;
  private readonly files = new Map<string, FakeFile>();
  private readonly log: LoggedChange[] = [];
  /** What the app may see with only drive.file: the files it created and those the user picked in Google Picker. */
  private readonly appFiles = new Set<string>();
  /** Ids handed out by files.generateIds and not used yet. */
  private readonly generatedIds = new Set<string>();
  private clock = 1000;

  constructor(private readonly now: () => Date = () => new Date()) {
    const time = this.now().toISOString();
    this.files.set(this.rootId, {
      id: this.rootId, name: 'My Drive', mimeType: FOLDER_MIME, parents: [], trashed: false, explicitlyTrashed: false,
      version: this.tick(), content: Buffer.alloc(0), createdTime: time, modifiedTime: time,
    });
  }

  /** The id behind an id or the `root` alias. */
  resolveId(id: string): string {
    return id === 'root' ? this.rootId : id;
  }

  get(id: string): FakeFile | undefined {
    return this.files.get(this.resolveId(id));
  }

  /** Children of a folder in creation order (Drive's order is unspecified; a stable one makes pages stable). */
  children(folderId: string): FakeFile[] {
    const parent = this.resolveId(folderId);
    return [...this.files.values()].filter((file) => file.parents.includes(parent));
  }

  /** Every file and folder but My Drive itself. */
  all(): FakeFile[] {
    return [...this.files.values()].filter((file) => file.id !== this.rootId);
  }

  create(input: { name: string; mimeType: string; parents: string[]; content?: Buffer; id?: string }): FakeFile {
    const time = this.stamp();
    if (input.id !== undefined) this.generatedIds.delete(input.id);
    const file: FakeFile = {
      id: input.id ?? randomBytes(24).toString('base64url'),
      name: input.name,
      mimeType: input.mimeType,
      parents: input.parents.map((id) => this.resolveId(id)),
      trashed: false,
      explicitlyTrashed: false,
      version: this.tick(),
      content: input.content ?? Buffer.alloc(0),
      createdTime: time,
      modifiedTime: time,
    };
    this.files.set(file.id, file);
    this.record(file.id, false);
    return file;
  }

  updateContent(file: FakeFile, content: Buffer): void {
    file.content = content;
    file.modifiedTime = this.stamp();
    file.version = this.tick();
    this.record(file.id, false);
  }

  /** A metadata change: rename, move, trash or restore. Each bumps the version, as Drive's does. */
  updateMetadata(file: FakeFile, change: { name?: string; addParents?: string[]; removeParents?: string[]; trashed?: boolean }): void {
    if (change.name !== undefined) file.name = change.name;
    if (change.removeParents) {
      const gone = new Set(change.removeParents.map((id) => this.resolveId(id)));
      file.parents = file.parents.filter((id) => !gone.has(id));
    }
    if (change.addParents) {
      for (const id of change.addParents.map((each) => this.resolveId(each))) if (!file.parents.includes(id)) file.parents.push(id);
    }
    if (change.trashed !== undefined && change.trashed !== file.explicitlyTrashed) {
      file.explicitlyTrashed = change.trashed;
      this.setTrashedBelow(file, change.trashed);
    }
    file.version = this.tick();
    this.record(file.id, false);
  }

  /** A new id for files.generateIds (Drive's own ids are 33 characters of this alphabet). */
  generateId(): string {
    const id = `1${randomBytes(24).toString('base64url')}`;
    this.generatedIds.add(id);
    return id;
  }

  /** Whether an id was handed out by files.generateIds and is not used yet. */
  isGeneratedId(id: string): boolean {
    return this.generatedIds.has(id);
  }

  /** The app may see this file with drive.file from now on (it created it, or the user picked it). */
  grantApp(id: string): void {
    this.appFiles.add(this.resolveId(id));
  }

  /** Whether the app sees a file with drive.file alone (My Drive itself is always there to create in). */
  appMaySee(file: FakeFile): boolean {
    return file.id === this.rootId || this.appFiles.has(file.id);
  }

  /** Deletes a file and everything below it for good (no trash): the log says `removed`. */
  deleteForever(file: FakeFile): void {
    for (const child of this.children(file.id)) this.deleteForever(child);
    this.files.delete(file.id);
    this.record(file.id, true);
  }

  /** The page token of the next change to be logged. */
  startPageToken(): string {
    return String(this.log.length + 1);
  }

  /** Changes from a page token on, or null when the token is not one this account issued. */
  changesFrom(token: string): Array<{ fileId: string; removed: boolean; time: string; file: FakeFile | undefined }> | null {
    if (!/^\d{1,9}$/.test(token)) return null;
    const start = Number(token) - 1;
    if (start < 0 || start > this.log.length) return null;
    return this.log.slice(start).map((change) => ({ ...change, file: change.removed ? undefined : this.files.get(change.fileId) }));
  }

  /** The full resource the API presents for a file. */
  present(file: FakeFile): FileResource {
    return {
      kind: 'drive#file',
      id: file.id,
      name: file.name,
      mimeType: file.mimeType,
      parents: [...file.parents],
      trashed: file.trashed,
      explicitlyTrashed: file.explicitlyTrashed,
      // int64 fields are strings in Google's JSON.
      version: String(file.version),
      ...(file.mimeType === FOLDER_MIME ? {} : { size: String(file.content.length) }),
      createdTime: file.createdTime,
      modifiedTime: file.modifiedTime,
    };
  }

  private setTrashedBelow(file: FakeFile, trashed: boolean): void {
    file.trashed = trashed || file.explicitlyTrashed;
    for (const child of this.children(file.id)) {
      if (!child.explicitlyTrashed) this.setTrashedBelow(child, trashed);
    }
  }

  private record(fileId: string, removed: boolean): void {
    this.log.push({ fileId, removed, time: this.stamp() });
  }

  // Versions are account-wide ticks, so one file's version jumps by more than one between its own changes, as
  // Drive's do: nothing may assume `version + 1`.
  private tick(): number {
    this.clock += 1 + (this.clock % 3);
    return this.clock;
  }

  private stamp(): string {
    return this.now().toISOString();
  }
}
