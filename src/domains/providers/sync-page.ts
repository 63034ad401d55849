import { contentHash } from '../../kernel/hashing.ts';
import type { MirrorChange } from '../notes/index.ts';
import { MAX_REMOTE_FILES, MAX_REMOTE_NOTE_BYTES } from './contract.ts';
import { ProviderError, type RemoteEntry } from './port.ts';
import { countRemoteFiles, deleteRemoteFiles, findKeysBelow, findRemoteFiles, markSeen, upsertRemoteFiles, type RemoteFileRow, type RemoteFileStatus } from './remote-files-store.ts';
import { applyToMirror, commitUnit, countMirrored } from './sync-commit.ts';
import { FileLimitError, type StepContext } from './sync-deps.ts';
import { classifyEntry, decodeNote, remotePathKey, type ClassifiedEntry } from './sync-entries.ts';
import { saveProgress, type SyncProgress } from './sync-store.ts';
import { turnOnEncryption } from './sync-sweeps.ts';

// Most files one page removes as the contents of removed folders; beyond, a listing decides (the caller relists).
const FOLDER_REMOVAL_LIMIT = 1000;

/** One page as the engine applies it: files changed or listed, and paths gone (change pages only). */
export interface SyncPage {
  changed: readonly RemoteEntry[];
  removed: readonly string[];
}

/** What a page's transaction writes: rows by path key (null: delete), keys only seen, and the copy's changes. */
interface PagePlan {
  rows: Map<string, RemoteFileRow | null>;
  seen: Set<string>;
  mirror: Map<string, MirrorChange>;
}

/** A note to download, with the row it replaces. */
interface Download {
  item: ClassifiedEntry;
  before: RemoteFileRow | undefined;
}

function rowOf(item: ClassifiedEntry, state: RemoteFileStatus, generation: number, extra: Partial<RemoteFileRow> = {}): RemoteFileRow {
  const { entry } = item;
  return {
    pathKey: item.key,
    path: item.path,
    fileIds: [entry.fileId],
    revision: entry.revision,
    size: entry.size,
    modifiedAt: entry.modifiedAt === null ? null : new Date(entry.modifiedAt),
    contentHash: null,
    state,
    seenGeneration: generation,
    ...extra,
  };
}

/** Sets a row that keeps no copy; the copy loses the note the row had. */
function keepNoCopy(plan: PagePlan, row: RemoteFileRow, before: RemoteFileRow | undefined): void {
  plan.rows.set(row.pathKey, row);
  if (before?.state === 'synced') plan.mirror.set(row.pathKey, { path: before.path, content: null, providerRevision: row.revision });
}

/**
 * Applies one page of a listing or of changes, and stores `next` as the progress with it, in one database
 * transaction: a crash before it commits redoes the page, and nothing is applied twice (a file whose row already
 * holds its revision is only marked seen). Returns 'relist' without applying anything when the page cannot be placed
 * (a change at a path another live file holds, a removal of a path two files share): the caller lists everything
 * again. A provider failure during the downloads commits what was done (without `next`, so that the page is redone,
 * skipping it) and is then thrown.
 */
export async function applyPage(ctx: StepContext, page: SyncPage, next: SyncProgress): Promise<'applied' | 'relist'> {
  const settings = ctx.deps.settings ?? {};
  const listing = ctx.progress.phase === 'listing';
  const generation = ctx.progress.generation;
  const items = page.changed.map(classifyEntry);
  if (!ctx.mapping.deviceEncrypted && items.some((item) => item.kind === 'marker')) await turnOnEncryption(ctx);

  const named = [...new Set(page.removed.map(remotePathKey))];
  // A provider reports a removed or moved-away folder once, for the folder (Dropbox): what was below it goes too.
  const below = await findKeysBelow(ctx.deps.db, ctx.mapping.id, named, FOLDER_REMOVAL_LIMIT + 1);
  if (below.length > FOLDER_REMOVAL_LIMIT) return 'relist';
  const removedKeys = [...new Set([...named, ...below])];
  const existing = await findRemoteFiles(ctx.deps.db, ctx.mapping.id, [...new Set([...items.map((i) => i.key), ...removedKeys])]);
  const plan: PagePlan = { rows: new Map(), seen: new Set(), mirror: new Map() };

  for (const key of removedKeys) {
    const before = existing.get(key);
    if (!before) continue;
    // Which of two files at one path went away, a path says not: a listing tells.
    if (before.state === 'duplicate') return 'relist';
    plan.rows.set(key, null);
    if (before.state === 'synced') plan.mirror.set(key, { path: before.path, content: null, providerRevision: null });
    existing.delete(key);
  }

  const groups = new Map<string, ClassifiedEntry[]>();
  for (const item of items) groups.set(item.key, [...(groups.get(item.key) ?? []), item]);
  const downloads: Download[] = [];
  for (const [key, group] of groups) {
    const before = existing.get(key);
    // A row is of a file that still exists when this listing saw it, or (following changes) when it has not gone.
    const live = before !== undefined && (!listing || before.seenGeneration === generation);
    const ids = new Set(group.map((item) => item.entry.fileId));
    if (live) {
      // Another file at a path a live file holds: two files at once in a listing; in changes, a replacement or a new
      // duplicate, which the change alone cannot tell apart.
      const another = [...ids].some((id) => !before.fileIds.includes(id));
      if (another && !listing) return 'relist';
      if (another || before.state === 'duplicate') for (const id of before.fileIds) ids.add(id);
    }
    const item = group[group.length - 1]!;
    if (ids.size > 1) {
      // Paths differing only in case, or two Drive files of one name: no copy of either, reported to the owner.
      keepNoCopy(plan, rowOf(item, 'duplicate', generation, { fileIds: [...ids] }), before);
      continue;
    }
    if (item.kind !== 'note') {
      keepNoCopy(plan, rowOf(item, item.kind === 'invalid_path' ? 'invalid_path' : 'not_a_note', generation), before);
      continue;
    }
    if (ctx.mapping.deviceEncrypted) {
      keepNoCopy(plan, rowOf(item, 'encrypted', generation), before);
      continue;
    }
    if (item.entry.size > (settings.maxNoteBytes ?? MAX_REMOTE_NOTE_BYTES)) {
      keepNoCopy(plan, rowOf(item, 'too_large', generation), before);
      continue;
    }
    const same = before !== undefined && before.fileIds[0] === item.entry.fileId && before.revision === item.entry.revision && before.path === item.path;
    if (same && (before.state === 'synced' || before.state === 'too_large')) {
      plan.seen.add(key);
      continue;
    }
    downloads.push({ item, before });
  }

  let failure: ProviderError | undefined;
  for (const download of downloads) {
    try {
      await fetchNote(ctx, plan, download, generation);
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      failure = error;
      break;
    }
  }
  const complete = failure === undefined;
  if (failure && plan.rows.size + plan.seen.size === 0) throw failure;

  const outcome = await commitUnit(ctx, async (tx) => {
    const mirrored = await applyToMirror(ctx, tx, [...plan.mirror.values()]);
    const rows = [...plan.rows.values()].filter((row): row is RemoteFileRow => row !== null);
    await deleteRemoteFiles(tx, ctx.mapping.id, [...plan.rows].flatMap(([key, row]) => (row === null ? [key] : [])));
    await upsertRemoteFiles(tx, ctx.mapping.id, rows);
    await markSeen(tx, ctx.mapping.id, [...plan.seen], generation);
    if (rows.length > 0) {
      const count = await countRemoteFiles(tx, ctx.mapping.id, listing ? generation : undefined);
      const max = settings.maxFiles ?? MAX_REMOTE_FILES;
      if (count > max) throw new FileLimitError(`This mapping holds more than ${max} files; kgate synchronizes at most ${max}.`);
    }
    if (complete) await saveProgress(tx, ctx.mapping.id, next);
    return mirrored;
  });
  countMirrored(ctx, outcome);
  if (failure) throw failure;
  ctx.progress = next;
  ctx.counters.pages += 1;
  return 'applied';
}

/** Downloads one note into the plan: its copy and row, or its row alone when it cannot be kept. */
async function fetchNote(ctx: StepContext, plan: PagePlan, { item, before }: Download, generation: number): Promise<void> {
  const maxBytes = ctx.deps.settings?.maxNoteBytes ?? MAX_REMOTE_NOTE_BYTES;
  let read: { entry: RemoteEntry; content: Buffer };
  try {
    read = await ctx.adapter.read(ctx.call, ctx.mapping.root, item.entry.path, maxBytes);
  } catch (error) {
    if (error instanceof ProviderError && error.code === 'too_large') {
      keepNoCopy(plan, rowOf(item, 'too_large', generation), before);
      return;
    }
    // Gone since it was listed: its removal follows in the changes, or the listing's end finds it unseen.
    if (error instanceof ProviderError && error.code === 'not_found') return;
    throw error;
  }
  ctx.counters.downloads += 1;
  // The row takes what the read saw (it may be newer than the listing); the path stays the listed one.
  const seen = { ...item, entry: { ...read.entry, path: item.entry.path } };
  const text = read.content.length > maxBytes ? undefined : decodeNote(read.content);
  if (text === undefined) {
    keepNoCopy(plan, rowOf(seen, read.content.length > maxBytes ? 'too_large' : 'not_a_note', generation), before);
    return;
  }
  plan.rows.set(item.key, rowOf(seen, 'synced', generation, { contentHash: contentHash(text), size: read.content.length }));
  plan.mirror.set(item.key, { path: item.path, content: text, providerRevision: read.entry.revision });
}
