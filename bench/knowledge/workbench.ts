/**
 * What the knowledge compilation benchmark runs on: a fresh database of one engine (PGlite in a temporary data
 * directory, or a scratch PostgreSQL database), kgate's services over it, and a second notes service over the same
 * database that is not told of changes, so that the same governed writes can be measured with compilation and
 * without it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openDatabase, type OpenedDatabase } from '../../src/app/database.ts';
import { createServices, type Services } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/port.ts';
import { createNoteBodyCache, createNotesService, MAX_IMPORT_BATCH, type NotesService } from '../../src/domains/notes/index.ts';
import type { Actor } from '../../src/kernel/principal.ts';
import { describePglite } from '../support/pglite-version.ts';
import { createScratchDatabase, type ScratchDatabaseSkipped } from '../support/scratch-postgres.ts';

/** The databases kgate runs on. */
export type EngineName = 'PGlite' | 'PostgreSQL';

/** kgate on a fresh database of one engine. */
export interface Workbench {
  engine: EngineName;
  /** e.g. "0.5.16 (PostgreSQL 18.6 in WebAssembly, ...)" or the server's version line. */
  version: string;
  db: Database;
  /** kgate's services, wired as the gateway wires them: every applied change compiles knowledge. */
  services: Services;
  /** The same notes service, not told of changes: applies and imports compile nothing. */
  unobserved: NotesService;
  close(): Promise<void>;
}

function workbench(engine: EngineName, version: string, opened: OpenedDatabase, close: () => Promise<void>): Workbench {
  const services = createServices(opened.db);
  const unobserved = createNotesService(opened.db, services.vaults, {
    bodies: createNoteBodyCache(),
    onContentChanged: (vaultId) => services.authorityCache.forgetVault(vaultId),
  });
  return { engine, version, db: opened.db, services, unobserved, close };
}

/** kgate on PGlite in a fresh data directory under `root`, removed on close. */
export async function openPgliteWorkbench(root: string): Promise<Workbench> {
  const dataDir = await mkdtemp(join(root, 'pglite-'));
  const opened = await openDatabase(loadConfig({ KGATE_DATA_DIR: dataDir }), 'kgate-bench');
  return workbench('PGlite', await describePglite(opened.db), opened, async () => {
    await opened.close();
    await rm(dataDir, { recursive: true, force: true });
  });
}

/** kgate on a scratch PostgreSQL database of the server, dropped on close; the reason when there is none. */
export async function openPostgresWorkbench(serverUrl: string): Promise<Workbench | ScratchDatabaseSkipped> {
  const scratch = await createScratchDatabase(serverUrl);
  if ('skipped' in scratch) return scratch;
  try {
    const opened = await openDatabase(loadConfig({ DATABASE_URL: scratch.url }), 'kgate-bench');
    return workbench('PostgreSQL', scratch.version.replace(/^PostgreSQL /, ''), opened, async () => {
      try {
        await opened.close();
      } finally {
        await scratch.drop();
      }
    });
  } catch (error) {
    await scratch.drop();
    throw error;
  }
}

/** An owner with a vault of their own, acting as the operator does on an import. */
export interface BenchOwner {
  actor: Actor;
  mappingId: string;
  vaultId: string;
}

/** Bootstraps an owner (a new account, workspace and empty vault). */
export async function benchOwner(services: Services, label: string): Promise<BenchOwner> {
  const owner = await services.onboarding.bootstrapOwner({ email: `${label}@kgate.invalid` });
  return {
    actor: { accountId: owner.accountId, credentialKind: 'operator', client: 'kgate-bench' },
    mappingId: owner.mapping.id,
    vaultId: owner.mapping.vaultId,
  };
}

/** Imports notes through `notes` in the largest batches; returns how many it created. */
export async function importAll(notes: NotesService, owner: BenchOwner, files: ReadonlyArray<{ path: string; content: string }>): Promise<number> {
  let created = 0;
  for (let start = 0; start < files.length; start += MAX_IMPORT_BATCH) {
    const result = await notes.importNotes(owner.actor, owner.mappingId, files.slice(start, start + MAX_IMPORT_BATCH));
    created += result.created;
  }
  return created;
}
