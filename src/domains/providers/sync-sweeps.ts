import type { MirrorChange } from '../notes/index.ts';
import { deleteRemoteFiles, findOrphanNotes, findUnseen, markEncrypted } from './remote-files-store.ts';
import { applyToMirror, commitUnit, countMirrored } from './sync-commit.ts';
import type { StepContext } from './sync-deps.ts';
import { saveProgress, turnOnDeviceEncryption } from './sync-store.ts';

// Rows and notes removed per transaction by a sweep: small enough to hold the vault's lock briefly.
const SWEEP_BATCH = 500;

/**
 * Removes, in batches, the files a finished listing did not see (gone from the provider) and their copies; a crash
 * in between redoes what is left, since only unseen rows are taken.
 */
async function sweepUnseen(ctx: StepContext): Promise<void> {
  for (;;) {
    const [taken, outcome] = await commitUnit(ctx, async (tx) => {
      const rows = await findUnseen(tx, ctx.mapping.id, ctx.progress.generation, SWEEP_BATCH);
      const removals: MirrorChange[] = rows.filter((row) => row.state === 'synced').map((row) => ({ path: row.path, content: null, providerRevision: null }));
      const mirrored = await applyToMirror(ctx, tx, removals);
      await deleteRemoteFiles(tx, ctx.mapping.id, rows.map((row) => row.pathKey));
      return [rows.length, mirrored] as const;
    });
    countMirrored(ctx, outcome);
    if (taken < SWEEP_BATCH) return;
  }
}

/**
 * Removes from the copy, in batches, every note no synced remote file accounts for: the copy holds exactly what the
 * provider holds, and a device-encrypted mapping's copy holds nothing.
 */
export async function sweepOrphans(ctx: StepContext): Promise<void> {
  for (;;) {
    const [taken, outcome] = await commitUnit(ctx, async (tx) => {
      const paths = await findOrphanNotes(tx, ctx.mapping.id, ctx.mapping.vaultId, SWEEP_BATCH);
      const mirrored = await applyToMirror(ctx, tx, paths.map((path) => ({ path, content: null, providerRevision: null })));
      return [paths.length, mirrored] as const;
    });
    countMirrored(ctx, outcome);
    if (taken < SWEEP_BATCH) return;
  }
}

/**
 * The encryption marker was found: the mapping's flag goes on for good, no remote file keeps a copy any more, and
 * the copy is emptied (with the records derived from it). From here on the step downloads nothing.
 */
export async function turnOnEncryption(ctx: StepContext): Promise<void> {
  const turned = await commitUnit(ctx, async (tx) => {
    const changed = await turnOnDeviceEncryption(tx, ctx.mapping.id);
    await markEncrypted(tx, ctx.mapping.id);
    return changed;
  });
  ctx.mapping = { ...ctx.mapping, deviceEncrypted: true };
  if (turned) ctx.deps.onMappingChanged?.(ctx.mapping.id);
  await sweepOrphans(ctx);
}

/** A listing's pages are all applied: removes what it did not see, then follows the change cursor. */
export async function finishListing(ctx: StepContext): Promise<void> {
  await sweepUnseen(ctx);
  await sweepOrphans(ctx);
  const next = { ...ctx.progress, phase: 'incremental' as const, listPage: null };
  await commitUnit(ctx, (tx) => saveProgress(tx, ctx.mapping.id, next));
  ctx.progress = next;
}
