/**
 * Latency: time to first byte and in total, recorded against thresholds (the scenario's, or generous defaults). A
 * report item, never a verdict: a slow model is a fact for the release notes, not a failed check.
 */
import { result, type Check } from './types.ts';

/** Thresholds when the scenario names none: a hosted model answering a long structured draft. */
export const DEFAULT_LATENCY = { firstByteMs: 30_000, totalMs: 120_000 } as const;

/** See the module comment. */
export const latency: Check = (scenario, _request, _envelope, facts) => {
  const limits = scenario.expect.latency ?? DEFAULT_LATENCY;
  const { firstByteMs, totalMs } = facts.timing;
  const within = firstByteMs <= limits.firstByteMs && totalMs <= limits.totalMs;
  return result(
    'latency',
    'report',
    `First byte ${Math.round(firstByteMs)} ms, total ${Math.round(totalMs)} ms (${within ? 'within' : 'over'} ${limits.firstByteMs} / ${limits.totalMs} ms).`,
    { firstByteMs, totalMs, limits, within },
  );
};
