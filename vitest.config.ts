import { defineConfig } from 'vitest/config';
import type { TestProjectInlineConfiguration } from 'vitest/config';

// Every database test runs on embedded PGlite; with KGATE_TEST_DATABASE_URL set (CI does) the same files run a
// second time on the PostgreSQL server, as a second project in the same run.
const SUITE = ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'];
const ARCHITECTURE = ['test/architecture.test.ts'];

function databaseProject(engine: 'pglite' | 'postgres'): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name: engine,
      include: SUITE,
      exclude: ARCHITECTURE,
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
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'architecture', include: ARCHITECTURE } },
      databaseProject('pglite'),
      ...(process.env.KGATE_TEST_DATABASE_URL ? [databaseProject('postgres')] : []),
    ],
  },
});
