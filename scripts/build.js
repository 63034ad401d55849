// Compiles the gateway into JavaScript with esbuild: dist/kgate.js, the command line, and in dist/chunks/ the parts
// it loads when a command needs them (the gateway's HTTP, MCP and pages load while the database opens). TypeScript
// is stripped and the modules of src/ are bundled, while packages in node_modules stay imports. `npm ci` runs it
// (the `prepare` script), and bin/kgate.js runs it again when a source is newer than the bundle, so a checkout being
// edited never runs stale code. Why a bundle and not tsx at run time: docs/architecture.md, "Compiled at install".
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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

/** Writes a file whole: to a temporary name, then renamed, so that no process ever reads half of it. */
function writeWhole(path, contents) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/**
 * Builds dist/kgate.js and its chunks. Chunks are named by their content, so a build never changes a chunk that a
 * running process may still load, and they are written before the entry that names them: processes building or
 * starting at once never see an entry without its chunks.
 */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  const dist = dirname(BUNDLE);
  mkdirSync(join(dist, 'chunks'), { recursive: true });
  const result = await esbuild({
    entryPoints: { kgate: ENTRY },
    outdir: dist,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Dependencies load from node_modules as they are: only our own modules are bundled.
    packages: 'external',
    legalComments: 'none',
    logLevel: 'warning',
  });
  const entry = result.outputFiles.find((file) => file.path === BUNDLE);
  if (!entry) throw new Error(`esbuild wrote no ${BUNDLE}`);
  for (const file of result.outputFiles) if (file !== entry && !existsSync(file.path)) writeWhole(file.path, file.contents);
  writeWhole(BUNDLE, entry.contents);
  // Chunks of earlier builds go once no process can still be starting on them (a process loads its chunks in its
  // first seconds; an hour is far beyond that).
  const current = new Set(result.outputFiles.map((file) => file.path));
  for (const name of readdirSync(join(dist, 'chunks'))) {
    const path = join(dist, 'chunks', name);
    if (!current.has(path) && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { force: true });
  }
}

/** Builds the bundle when it is missing or stale. */
export async function ensureBuilt() {
  if (bundleIsStale()) await build();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let started = performance.now();
  await build();
  console.log(`kgate: built ${BUNDLE} in ${Math.round(performance.now() - started)} ms`);
  // The embedded database's migrated template, which new data directories are copied from (src/db/pglite-template.ts):
  // made here, at install, so that the first `npm start` does not wait for initdb.
  // Without it kgate still works (a first start makes it then), so a failure here warns rather than failing npm ci.
  started = performance.now();
  try {
    const { prepareEmbeddedTemplate } = await import(pathToFileURL(BUNDLE).href);
    const template = await prepareEmbeddedTemplate();
    console.log(`kgate: embedded database template ready in ${Math.round(performance.now() - started)} ms (${template})`);
  } catch (error) {
    console.warn(`kgate: no embedded database template (a first start will make it): ${error instanceof Error ? error.message : error}`);
  }
}
