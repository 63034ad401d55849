import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { loadMigrations, migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { sha256Hex } from '../../src/kernel/hashing.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

/**
 * Creating a PGlite database runs initdb (seconds, hundreds of MB); loading a dump takes a fraction of that. So
 * the suite migrates one database, dumps it, and every test file loads the dump. The dump is cached in the temp
 * folder under a key of the PGlite version and the migration checksums.
 */
export default async function setup(project: TestProject): Promise<void> {
  const manifest = fileURLToPath(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url));
  const pgliteVersion = (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
  const key = sha256Hex(pgliteVersion + loadMigrations().map((m) => m.checksum).join()).slice(0, 16);
  const path = join(tmpdir(), `kgate-pglite-template-${key}.tar`);
  if (!existsSync(path)) {
    const db = await openPglite();
    await migrate(db);
    const dump = await db.dump();
    await db.close();
    const partial = `${path}.${process.pid}.partial`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, path);
  }
  project.provide('pgliteTemplate', path);
}
