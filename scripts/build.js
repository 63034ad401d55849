// Compiles the gateway into one JavaScript file, dist/kgate.js, with esbuild: TypeScript is stripped and the
// modules of src/ are bundled, while packages in node_modules stay imports. `npm ci` runs it (the `prepare`
// script), and bin/kgate.js runs it again when a source is newer than the bundle, so a checkout being edited never
// runs stale code. Why a bundle and not tsx at run time: docs/architecture.md, "Compiled at install".
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The bundle that bin/kgate.js runs. */
export const BUNDLE = join(ROOT, 'dist', 'kgate.js');
const ENTRY = join(ROOT, 'src', 'cli', 'index.ts');

/** The newest modification time among the sources and folders the bundle is made from (a folder's time changes when a file is added or removed). */
function newestSource() {
  let newest = statSync(join(ROOT, 'package.json')).mtimeMs;
  const walk = (dir) => {
    newest = Math.max(newest, statSync(dir).mtimeMs);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(ROOT, 'src'));
  return newest;
}

/** True when dist/kgate.js is missing or older than a source. */
export function bundleIsStale() {
  let built;
  try {
    built = statSync(BUNDLE).mtimeMs;
  } catch {
    return true;
  }
  return newestSource() > built;
}

/** Builds dist/kgate.js. It is written to a temporary file and renamed, so processes building at once never read half a bundle. */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  mkdirSync(dirname(BUNDLE), { recursive: true });
  const temporary = `${BUNDLE}.${process.pid}.tmp`;
  await esbuild({
    entryPoints: [ENTRY],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Dependencies load from node_modules as they are: only our own modules are bundled.
    packages: 'external',
    legalComments: 'none',
    logLevel: 'warning',
  });
  renameSync(temporary, BUNDLE);
}

/** Builds the bundle when it is missing or stale. */
export async function ensureBuilt() {
  if (bundleIsStale()) await build();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  await build();
  console.log(`kgate: built ${BUNDLE} in ${Math.round(performance.now() - started)} ms`);
}
