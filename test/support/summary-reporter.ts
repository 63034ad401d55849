import type { Reporter, TestModule } from 'vitest/node';

// How many of the slowest files the closing lines name: enough to see where a run's time goes.
const SLOWEST_FILES = 15;

/**
 * Prints plain closing lines after vitest's own summary: the slowest test files with their durations (the CI budget
 * is 20 minutes, and a CI log's tail is often all one has of a run), then `N passed, N failed, N skipped`, last, so
 * that tools reading the end of a CI log get the counts without parsing vitest's layout.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed += 1;
    }
    const slowest = testModules
      .map((module) => ({ name: `${module.project.name} ${module.moduleId.replace(`${process.cwd()}/`, '')}`, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST_FILES);
    if (slowest.length > 0) {
      process.stdout.write(`\nslowest files:\n${slowest.map((file) => `  ${(file.ms / 1000).toFixed(1)} s  ${file.name}`).join('\n')}\n`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
