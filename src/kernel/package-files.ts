import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Files kgate reads from its own package: migrations, the PGlite worker, the demo vault, package.json. The code
 * runs either from its sources (`src/**`, in tests and tools) or bundled into `dist/kgate.js` (the `kgate`
 * command, docs/architecture.md "Compiled at install"), so a path relative to the calling module would differ
 * between the two. Paths are resolved from the package's root instead: the nearest directory above this module
 * whose package.json names kgate.
 */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'kgate') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('kgate: cannot find the package root (a package.json named kgate) above the running code');
    dir = parent;
  }
}

/** The package's root directory (where package.json is). */
export const PACKAGE_ROOT: string = findPackageRoot();

/** A path inside the package, from its root: `packageFile('src', 'db', 'migrations')`. */
export function packageFile(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}
