import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../kernel/hashing.ts';
import { packageFile } from '../kernel/package-files.ts';
import { loadMigrations, migrate, type Migration } from './migrate.ts';
import { openPglite } from './pglite.ts';

/**
 * A migrated, empty embedded database kept beside the code, copied into each new data directory instead of
 * running initdb there. initdb in WebAssembly takes about 5 s on a small machine, a copy of its result about
 * 0.2 s (docs/architecture.md, "A migrated template for new data directories"). `npm ci` makes it (the build
 * script); a first start that finds none makes it then. It holds no account and no secret: only what initdb and
 * the migrations create, identical for every installation of this version.
 */

/** Bumped when what a template holds changes in a way the key below does not see. */
const TEMPLATE_FORMAT = 1;

/** Where templates live: one folder per key, inside the build output (never committed). */
export const TEMPLATE_ROOT = packageFile('dist', 'pglite-template');

/** The version of the installed PGlite: a template made by another PGlite is not used. */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown; version?: unknown };
      if (parsed.name === '@electric-sql/pglite') return String(parsed.version);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('kgate: cannot find the package.json of @electric-sql/pglite');
    dir = parent;
  }
}

/** The template's name: what made it (PGlite's version, every migration's checksum, the format). */
export function templateKey(migrations: Migration[] = loadMigrations()): string {
  const parts = [`format ${TEMPLATE_FORMAT}`, `pglite ${pgliteVersion()}`, ...migrations.map((m) => `${m.version} ${m.checksum}`)];
  return sha256Hex(parts.join('\n')).slice(0, 16);
}

/** A sibling path no other process picks: folders are built there and renamed into place. */
function scratchBeside(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Renames `from` to `to` unless `to` exists by then (another process finished first): then `from` is removed. */
function publish(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    rmSync(from, { recursive: true, force: true });
    if (!existsSync(join(to, 'PG_VERSION'))) throw error;
  }
}

/**
 * Returns the folder of the current template, making it first when there is none: initdb and the migrations run
 * in a scratch folder that is renamed into place, so that processes making it at once never see half of one.
 * Templates of other keys (an older PGlite or older migrations) are removed.
 */
export async function ensurePgliteTemplate(root: string = TEMPLATE_ROOT): Promise<string> {
  const key = templateKey();
  const template = join(root, key);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  mkdirSync(root, { recursive: true });
  const scratch = scratchBeside(template);
  try {
    const db = await openPglite({ dataDir: scratch });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    publish(scratch, template);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  for (const entry of readdirSync(root)) {
    // Another process's scratch folder may be in use: only finished templates of other keys go.
    if (entry !== key && !entry.includes('.tmp-')) rmSync(join(root, entry), { recursive: true, force: true });
  }
  return template;
}

/**
 * Fills a new embedded data directory from the template: copied beside it and renamed into place, so that a
 * process killed while copying leaves no directory that looks like a database. Returns false, changing nothing,
 * when `dir` already exists (a database, or what an interrupted initdb left, which PGlite opens as before).
 */
export async function seedFromTemplate(dir: string, root: string = TEMPLATE_ROOT): Promise<boolean> {
  if (existsSync(dir)) return false;
  const template = await ensurePgliteTemplate(root);
  mkdirSync(dirname(dir), { recursive: true });
  const scratch = scratchBeside(dir);
  try {
    cpSync(template, scratch, { recursive: true });
    renameSync(scratch, dir);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  return true;
}
