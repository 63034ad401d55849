/** Which PGlite a benchmark measured, for the "Engines" line of a report. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from '../../src/db/port.ts';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The @electric-sql/pglite package version installed in `tree` (default: this repository), e.g. "0.5.16". */
export function pgliteVersion(tree = REPO_ROOT): string {
  // The package's `exports` hide package.json from resolution, so read it from node_modules directly.
  const manifest = join(tree, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/**
 * The package version and the PostgreSQL version compiled into it, asked of an open PGlite database, e.g.
 * "0.5.16 (PostgreSQL 18.6 in WebAssembly, on a worker thread of the process that opens it)"; the package version alone if the answer is not understood.
 */
export async function describePglite(db: Sql): Promise<string> {
  const [v] = await db.query<{ version: string }>('SELECT version()');
  const inner = /PostgreSQL [\d.]+/.exec(v?.version ?? '')?.[0];
  return `${pgliteVersion()}${inner ? ` (${inner} in WebAssembly, on a worker thread of the process that opens it)` : ''}`;
}
