/**
 * Which test files run the same on both database projects, so that vitest.config.ts runs them once (the `unit`
 * project) instead of once per engine. The pglite and postgres projects differ only in the KGATE_TEST_DB variable
 * and in what their globalSetup provides (`inject`): a file is engine-bound when it, or a module of ours it imports,
 * directly or through others, reads either (test/support/database.ts does). Every other file, even one that opens a
 * PGlite database of its own, runs identically in both.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** What only an engine-bound module mentions: the engine variable, or a value a globalSetup provides. */
const READS_ENGINE = /\bKGATE_TEST_DB\b|\binject\s*\(/;
/** Relative module specifiers of static imports, re-exports and dynamic imports. */
const RELATIVE_IMPORT = /\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
/** Paths that vitest's include patterns match literally (no glob syntax). */
const PLAIN_PATH = /^[\w./-]+$/;

/** The `*.test.ts` files under `folders` of `root`, as sorted paths relative to `root` with forward slashes. */
export function listTestFiles(root: string, folders: string[]): string[] {
  const files: string[] = [];
  for (const folder of folders) {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true, recursive: true })) {
      if (entry.isFile() && entry.name.endsWith('.test.ts')) files.push(relative(root, join(entry.parentPath, entry.name)));
    }
  }
  return files.map((file) => file.split(sep).join('/')).sort();
}

/** Reads modules once and answers whether a module, or one it reaches through relative imports, reads the engine. */
class EngineReach {
  private readonly imports = new Map<string, { readsEngine: boolean; imports: string[] }>();

  private module(path: string): { readsEngine: boolean; imports: string[] } {
    let known = this.imports.get(path);
    if (!known) {
      const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
      const imports = [...text.matchAll(RELATIVE_IMPORT)].map((match) => resolve(dirname(path), match[1]!));
      known = { readsEngine: READS_ENGINE.test(text), imports };
      this.imports.set(path, known);
    }
    return known;
  }

  readsEngine(start: string): boolean {
    const seen = new Set([start]);
    const pending = [start];
    for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
      const module = this.module(path);
      if (module.readsEngine) return true;
      for (const next of module.imports) {
        if (!seen.has(next)) {
          seen.add(next);
          pending.push(next);
        }
      }
    }
    return false;
  }
}

/**
 * The test files under `folders` that never reach the engine, less `exclude`. A file whose name vitest would read
 * as a glob pattern is left to the database projects, which run it as before.
 */
export function engineFreeTestFiles(root: string, folders: string[], exclude: string[] = []): string[] {
  const reach = new EngineReach();
  return listTestFiles(root, folders).filter(
    (file) => !exclude.includes(file) && PLAIN_PATH.test(file) && !reach.readsEngine(resolve(root, file)),
  );
}
