import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Services } from '../app/services.ts';
import type { NoteAction } from '../domains/notes/index.ts';
import { KgateError } from '../kernel/errors.ts';
import { packageFile } from '../kernel/package-files.ts';
import type { Actor } from '../kernel/principal.ts';
import { listVaultFolder, readNoteFiles } from './vault-folder.ts';

/** The demo vault's later edits (examples/history/README.md): one folder per step, applied in name order. */
export const EXAMPLE_HISTORY_DIR = packageFile('examples', 'history');

/** The write-note actions of one step: each note's new content, with the hash of the content it replaces. */
async function stepActions(services: Services, actor: Actor, mappingId: string, dir: string): Promise<NoteAction[]> {
  const paths = (await listVaultFolder(dir)).filter((e) => e.kind === 'note').map((e) => e.path);
  const contents = await readNoteFiles(dir, paths);
  return Promise.all(
    paths.map(async (path, index) => {
      const content = contents[index];
      if (content === undefined) throw new Error(`${join(dir, path)} is not UTF-8`);
      const current = await services.notes.readNote(actor, mappingId, path).catch((error: unknown) => {
        if (error instanceof KgateError && error.code === 'not_found') return undefined;
        throw error;
      });
      return { type: 'write-note' as const, path, content, ...(current ? { expectedHash: current.contentHash } : {}) };
    }),
  );
}

/**
 * Applies the demo vault's later edits after its import, each step as a governed write like a client's: one
 * transaction of write-note actions with the current hash of every note it replaces, under a fresh idempotency key.
 * So the demo's knowledge has a history this replica observed (versions, change events, receipts). Returns the
 * number of steps applied.
 */
export async function applyDemoHistory(services: Services, actor: Actor, mappingId: string, dir: string = EXAMPLE_HISTORY_DIR): Promise<number> {
  const steps = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  let applied = 0;
  for (const step of steps) {
    const actions = await stepActions(services, actor, mappingId, join(dir, step));
    if (actions.length === 0) continue;
    // A fresh key per step: a vault emptied and seeded again must apply the steps again, not replay the first time.
    const request = { accountId: actor.accountId, key: randomUUID(), operation: 'applyDemoHistory', input: actions };
    await services.idempotency.run(request, (commit) =>
      services.notes.runTransaction({ actor, mappingId, dryRun: false, actions, capability: 'direct', commit }),
    );
    applied += 1;
  }
  return applied;
}
