/**
 * Graph queries: `services.graph.relations(actor, mappingId, { path })` for an evenly spaced sample of the vault's
 * notes, one call at a time, after a few warm-up calls, on kgate's in-process service (no HTTP). Each answer is
 * checked loosely against what the generator writes: every synthetic note links to 2–8 existing notes and to 1–2
 * notes that do not exist.
 */
import type { GraphRelations } from '../../src/domains/graph/index.ts';
import { createServices } from '../../src/app/services.ts';
import { latencyOf, type Latency } from './latency.ts';
import type { KgateEngine } from './kgate-engine.ts';

/** Notes whose relations are timed. */
export const GRAPH_SAMPLE = 200;
/** Calls before timing (on the first sampled notes), not kept. */
const GRAPH_WARMUP = 5;

/** `size` paths spread evenly over `paths` (all of them when there are fewer). */
export function evenSample(paths: readonly string[], size: number): string[] {
  if (paths.length <= size) return [...paths];
  return Array.from({ length: size }, (_, k) => paths[Math.floor((k * paths.length) / size)] as string);
}

/** The graph measurement of one engine, with the first wrong answer (if any) as a failure. */
export interface GraphOutcome {
  latency: Latency;
  failures: string[];
}

/** What is wrong with the relations of `path` in a vault of `notes` synthetic notes, or undefined. */
function relationsProblem(relations: GraphRelations, path: string, notes: number): string | undefined {
  if (relations.path !== path) return `answered for ${relations.path}`;
  if (relations.unresolved.length === 0) return 'no unresolved link (each note links to 1–2 missing notes)';
  if (notes > 1 && relations.outgoing.length === 0) return 'no outgoing link (each note links to 2–8 existing notes)';
  return undefined;
}

/** Times `relations` for every sampled path on the engine's database (`notes`: vault size, for the checks). */
export async function measureGraph(engine: KgateEngine, sample: readonly string[], notes: number): Promise<GraphOutcome> {
  const graph = createServices(engine.db).graph;
  const failures: string[] = [];
  const fail = (path: string, problem: string): void => {
    if (failures.length === 0) failures.push(`kgate on ${engine.name}, graph relations of ${path}: ${problem}`);
  };
  const ms: number[] = [];
  for (const [k, path] of [...sample.slice(0, GRAPH_WARMUP), ...sample].entries()) {
    const started = performance.now();
    let relations: GraphRelations | undefined;
    try {
      relations = await graph.relations(engine.actor, engine.mappingId, { path });
    } catch (error) {
      fail(path, error instanceof Error ? error.message : String(error));
    }
    if (k >= Math.min(GRAPH_WARMUP, sample.length)) ms.push(performance.now() - started);
    const problem = relations === undefined ? undefined : relationsProblem(relations, path, notes);
    if (problem !== undefined) fail(path, problem);
  }
  return { latency: latencyOf(ms), failures };
}
