/**
 * The ledger's share of a metered call, timed in this process on the installation's database with no server running:
 * each statement group the metered runner makes around one model call (src/domains/models/runner.ts), called through
 * the real ledger store in the runner's order: the organization's expiry scan, the look-up of the key, the
 * reservation (one transaction: the row, the organization's and installation's months, the running count), the
 * dispatch mark (committed before the model request leaves) and the settlement (the row, the months and the running
 * count, with the stored result). Then whole `runMetered` calls of the real models service whose model answers at
 * once, one after each phased call, so that the phases can be checked against what the runner spends in all.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/port.ts';
import { costOf, createModelsService, monthOf, type ChatCompletion, type MeteredCaller, type ModelPort } from '../../src/domains/models/index.ts';
import { findLive, finish, markDispatched, reserve, staleRows } from '../../src/domains/models/ledger/store.ts';
import { median, percentile } from '../support/stats.ts';
import type { GenerationChain } from './setup.ts';
import { BENCH_BUDGET_MICRODOLLARS, BENCH_MAX_CONCURRENT } from './setup.ts';

/** The phases, in the runner's order. */
export const LEDGER_PHASES = ['expiry scan', 'key look-up', 'reserve', 'dispatch mark', 'settle'] as const;
/** One phase's name. */
export type LedgerPhase = (typeof LEDGER_PHASES)[number];

/** Median and p95 in milliseconds. */
export interface Spread {
  p50: number;
  p95: number;
}

/** What the ledger costs per call. */
export interface LedgerTimings {
  calls: number;
  phases: Record<LedgerPhase, Spread>;
  /** The phases' medians added up. */
  phaseSumP50: number;
  /** Whole `runMetered` calls with a model that answers at once. */
  runMetered: Spread;
}

const spread = (values: readonly number[]): Spread => ({ p50: median(values), p95: percentile(values, 95) });

/** A model port that answers at once, with the usage of a practice review (the runner's own work is what is timed). */
function instantModel(text: string): ModelPort {
  const completion: ChatCompletion = { text, usage: { inputTokens: 1200, outputTokens: 800 }, model: 'instant', finishReason: 'stop' };
  return {
    identity: { provider: 'openai-compatible bench', chatModel: 'instant', imageModel: null },
    prices: { inputMicrodollarsPerToken: 1, outputMicrodollarsPerToken: 2, imageMicrodollars: 40_000 },
    chat: () => Promise.resolve(completion),
    chatStream: () => {
      throw new Error('not used by the ledger timing');
    },
    image: () => Promise.reject(new Error('not used by the ledger timing')),
  };
}

/** Times `calls` sequential metered calls phase by phase, each followed by a whole runMetered call, after `warmup` untimed ones. */
export async function measureLedger(db: Database, chain: GenerationChain, result: Record<string, unknown>, calls: number, warmup: number): Promise<LedgerTimings> {
  const caller: MeteredCaller = {
    organizationId: chain.organizationId,
    installationId: chain.installationId,
    principalId: chain.principalId,
    budgetMicrodollars: BENCH_BUDGET_MICRODOLLARS,
    sublimitMicrodollars: null,
    maxConcurrent: BENCH_MAX_CONCURRENT,
  };
  const model = instantModel(JSON.stringify(result));
  const bound = { inputTokens: 4000, outputTokens: 4000, images: 0 };
  const times: Record<LedgerPhase, number[]> = { 'expiry scan': [], 'key look-up': [], reserve: [], 'dispatch mark': [], settle: [] };
  const timed = async <T>(phase: LedgerPhase, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const value = await work();
    times[phase].push(performance.now() - started);
    return value;
  };
  const service = createModelsService({ db, model });
  const whole: number[] = [];
  const wholeCall = async (k: number): Promise<number> => {
    const key = randomUUID();
    const started = performance.now();
    await service.runMetered({
      caller,
      kind: 'education-practice-review',
      key,
      fingerprint: key,
      requestId: `bench-run-${k}`,
      bound,
      signal: new AbortController().signal,
      work: async (meter) => JSON.parse((await meter.model.chat({ messages: [{ role: 'user', content: 'x' }], maxOutputTokens: 4000, json: true, signal: meter.signal })).text) as Record<string, unknown>,
    });
    return performance.now() - started;
  };
  const phased = async (k: number): Promise<void> => {
    const key = randomUUID();
    const now = new Date();
    const id = randomUUID();
    const reserved = costOf(bound, model.prices);
    await timed('expiry scan', () => staleRows(db, now, chain.organizationId, 100));
    const live = await timed('key look-up', () => findLive(db, chain.principalId, key));
    if (live) throw new Error('a fresh key found a live ledger row');
    const outcome = await timed('reserve', () =>
      reserve(db, {
        id,
        caller,
        key,
        fingerprint: key,
        kind: 'education-practice-review',
        month: monthOf(now),
        reservedMicrodollars: reserved,
        model: model.identity,
        requestId: `bench-${k}`,
        now,
        dispatchDeadline: new Date(now.getTime() + 60_000),
        budgetMicrodollars: BENCH_BUDGET_MICRODOLLARS,
      }),
    );
    if (outcome !== 'reserved') throw new Error(`reserve answered ${outcome}`);
    if (!(await timed('dispatch mark', () => markDispatched(db, id, new Date(), new Date(Date.now() + 600_000))))) throw new Error('the dispatch mark found no running row');
    const usage = { inputTokens: 1200, outputTokens: 800, images: 0 };
    const settled = await timed('settle', () => finish(db, id, { kind: 'settle', charge: costOf(usage, model.prices), excess: 0, usage, usageUnknown: false, result }, new Date()));
    if (settled?.state !== 'settled') throw new Error('the settlement did not settle the row');
  };
  // Warm up the freshly opened database (an embedded one compiles its engine as it goes), untimed.
  for (let k = 0; k < warmup; k++) await wholeCall(-1 - k);
  // One phased call, then one whole call: both see the same database at the same moment.
  for (let k = 0; k < calls; k++) {
    await phased(k);
    whole.push(await wholeCall(k));
  }
  const phases = Object.fromEntries(LEDGER_PHASES.map((phase) => [phase, spread(times[phase])])) as Record<LedgerPhase, Spread>;
  return { calls, phases, phaseSumP50: LEDGER_PHASES.reduce((sum, phase) => sum + phases[phase].p50, 0), runMetered: spread(whole) };
}
