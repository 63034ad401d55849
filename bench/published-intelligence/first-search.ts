/**
 * Where a fresh server's first published-intelligence search goes, measured in this process on the same database
 * once the server has stopped: loading the pack version from the database (`loadPackVersion`: sources, assertions,
 * evidence, insights, no texts), then building its answers in one go (`createPackView`: availability of every item and
 * the search index; the server builds the same in slices, pausing for other requests, so it takes longer there).
 */
import { openInstallation } from '../http/installation.ts';
import { createPackView, latestPackVersionId, loadPackVersion } from '../../src/domains/packs/index.ts';
import { median } from '../support/stats.ts';
import { BENCH_PRODUCT } from './setup.ts';

/** Medians over the repetitions, in milliseconds. */
export interface FirstSearchParts {
  loadMs: number;
  buildMs: number;
  repeat: number;
}

/** Loads and builds the latest version of `pack` of the product `bench` `repeat` times. */
export async function firstSearchParts(env: Record<string, string>, pack: string, repeat: number): Promise<FirstSearchParts> {
  const opened = await openInstallation(env);
  try {
    const versionId = await latestPackVersionId(opened.db, BENCH_PRODUCT, pack);
    if (versionId === undefined) throw new Error(`no published version of ${BENCH_PRODUCT}/${pack}`);
    const loads: number[] = [];
    const builds: number[] = [];
    for (let r = 0; r < repeat; r++) {
      const loading = performance.now();
      const stored = await loadPackVersion(opened.db, versionId);
      loads.push(performance.now() - loading);
      if (!stored) throw new Error(`pack version ${versionId} did not load`);
      const building = performance.now();
      createPackView(stored);
      builds.push(performance.now() - building);
    }
    return { loadMs: median(loads), buildMs: median(builds), repeat };
  } finally {
    await opened.close();
  }
}
