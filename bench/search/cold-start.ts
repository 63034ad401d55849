/**
 * The in-memory index build: kgate's search keeps an index per vault in memory (per search service), built on
 * first use from the stored search text. A fresh `createServices` over an imported database is a cold service;
 * the time of its first search is the index build plus one search. Measured `repeat` times, each on a fresh set
 * of services.
 */
import type { Database } from '../../src/db/port.ts';
import type { SearchService } from '../../src/domains/search/contract.ts';
import { createServices } from '../../src/app/services.ts';
import { kgateSearch, type KgateEngine } from './kgate-engine.ts';
import { answerProblem, type BenchQuery } from './queries.ts';

/** First searches on cold services, and the last of those services (now warm) for the latency runs. */
export interface ColdStarts {
  /** Milliseconds of each first search. */
  ms: number[];
  /** The search service of the last repetition, its index built. */
  warm: SearchService;
  failures: string[];
}

/**
 * Times the first `query` on `repeat` (at least 1) fresh sets of services over `db` (the engine's database, or a
 * wrapper of it), checking every answer.
 */
export async function measureColdStarts(
  engine: KgateEngine,
  db: Database,
  query: BenchQuery,
  matching: ReadonlySet<string>,
  repeat: number,
): Promise<ColdStarts> {
  const ms: number[] = [];
  const failures: string[] = [];
  let warm: SearchService | undefined;
  for (let rep = 0; rep < Math.max(1, repeat); rep++) {
    const search = createServices(db).search;
    const started = performance.now();
    const answer = await kgateSearch(search, engine, query);
    ms.push(performance.now() - started);
    const problem = answerProblem(answer, 'top', query, matching);
    if (problem !== undefined && failures.length === 0) failures.push(`kgate on ${engine.name}, first search (${query.label}): ${problem}`);
    warm = search;
  }
  return { ms, warm: warm as SearchService, failures };
}
