import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import { engineFreeTestFiles } from './test/support/engine-free-tests.ts';

// Every database test runs on embedded PGlite; with KGATE_TEST_DATABASE_URL set (CI does) the same files run a
// second time on the PostgreSQL server, as a second project in the same run. Files that never reach the test
// database (test/support/engine-free-tests.ts says which) would run the same twice: they run once, in `unit`.
const FOLDERS = ['src', 'test', 'bench', 'packages/runtime-sdk/test'];
const SUITE = FOLDERS.map((folder) => `${folder}/**/*.test.ts`);
const ARCHITECTURE = ['test/architecture.test.ts'];
const UNIT = engineFreeTestFiles(fileURLToPath(new URL('.', import.meta.url)), FOLDERS, ARCHITECTURE);

function databaseProject(engine: 'pglite' | 'postgres'): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name: engine,
      include: SUITE,
      exclude: [...ARCHITECTURE, ...UNIT],
      env: { KGATE_TEST_DB: engine },
      globalSetup: [`test/support/setup-${engine}.ts`],
    },
  };
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: one worker per core. Each PGlite database takes a few hundred MB.
    maxWorkers: 2,
    // A worker keeps the modules it imported for the next file of its project instead of starting afresh for each:
    // importing the gateway's few hundred modules took about 3 s of each database test file's time (the PGlite pass
    // went from 9m50s to 8m13s). Nothing the tests import keeps state across files (no mocks, no changes to
    // process.env, per-gateway metrics registries), and projects never share a worker, so a file still sees only its
    // own project's engine. A file must close what it opens (databases, servers, timers): what it leaves running goes
    // on in the worker. To tell whether a failure comes from sharing, run the files again with --isolate.
    isolate: false,
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'architecture', include: ARCHITECTURE } },
      { extends: true, test: { name: 'unit', include: UNIT } },
      databaseProject('pglite'),
      ...(process.env.KGATE_TEST_DATABASE_URL ? [databaseProject('postgres')] : []),
    ],
  },
});
