/**
 * The education analysis benchmark's measurements through one running server: rounds of sequential calls at one
 * client (each call timed from the request to the last byte of its answer), every answer checked, then the
 * baseline's latency while crosswalks run back to back on another connection (the analyses compute on the request
 * thread), and the organization's metered operations against the answers.
 */
import type { Database } from '../../src/db/port.ts';
import { percentile } from '../support/stats.ts';
import { analysisToken, type AnalysisInstallation } from './setup.ts';

/** The rows measured. */
export type RowKey = 'context' | 'recommend' | 'crosswalk' | 'contextDuringCrosswalk';

/** One row's timings and sizes over every round. */
export interface RowResult {
  key: RowKey;
  calls: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  requestBytes: number;
  /** Mean answer size in bytes. */
  answerBytes: number;
}

/** What a round does, per row: warm-up calls (untimed) and timed calls. */
export const CALLS: Readonly<Record<'context' | 'recommend' | 'crosswalk', { warmup: number; timed: number }>> = {
  context: { warmup: 20, timed: 200 },
  recommend: { warmup: 10, timed: 200 },
  crosswalk: { warmup: 3, timed: 25 },
};

/** Crosswalks run back to back on a second connection while the baseline is timed. */
export const BACKGROUND_CROSSWALKS = 10;

const PATHS = {
  context: '/api/product/v1/context',
  recommend: '/api/product/v1/intelligence/education/artifacts/recommend',
  crosswalk: '/api/product/v1/intelligence/education/standards/crosswalk',
} as const;

/** The requests of the run, serialized once. */
export interface Requests {
  recommend: string;
  crosswalk: string;
}

/** One call: its time (ms) and answer, failing on anything but the expected envelope. */
async function call(url: string, token: string, key: keyof typeof PATHS, body: string | undefined, check: (data: Record<string, unknown>) => boolean): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(`${url}${PATHS[key]}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${token}`, 'X-Service-Runtime-Version': '1', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  const envelope = JSON.parse(text) as { status?: string; data?: Record<string, unknown> };
  if (response.status !== 200 || envelope.status !== 'ok' || !envelope.data || !check(envelope.data)) {
    throw new Error(`${key} answered ${response.status}: ${text.slice(0, 300)}`);
  }
  return { ms, bytes: Buffer.byteLength(text) };
}

/** The answer checks: what each row's data must hold. */
export function checks(expected: { candidates: number; items: number }): Record<keyof typeof PATHS, (data: Record<string, unknown>) => boolean> {
  return {
    context: (data) => data.runtimeVersion === 1,
    recommend: (data) => (data.ranked as unknown[]).length === expected.candidates,
    crosswalk: (data) => {
      const counts = data.counts as { sourceItems: number; targetItems: number };
      return counts.sourceItems === expected.items && counts.targetItems === expected.items && data.status === 'proposed';
    },
  };
}

function summarize(key: RowKey, samples: Array<{ ms: number; bytes: number }>, requestBytes: number): RowResult {
  const ms = samples.map((s) => s.ms);
  return {
    key,
    calls: samples.length,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    p99: percentile(ms, 99),
    max: Math.max(...ms),
    requestBytes,
    answerBytes: samples.reduce((sum, s) => sum + s.bytes, 0) / samples.length,
  };
}

/** Runs `rounds` rounds of every row on the server at `url`; answers the rows and how many metered calls were made. */
export async function measureRows(
  url: string,
  installation: AnalysisInstallation,
  requests: Requests,
  expected: { candidates: number; items: number },
  rounds: number,
  log: (line: string) => void,
): Promise<{ rows: RowResult[]; metered: number }> {
  const verify = checks(expected);
  const samples: Record<RowKey, Array<{ ms: number; bytes: number }>> = { context: [], recommend: [], crosswalk: [], contextDuringCrosswalk: [] };
  let metered = 0;
  for (let round = 0; round < rounds; round++) {
    const token = await analysisToken(url, installation);
    // The baseline goes first in even rounds and last in odd ones, so neither side always runs on a fresh server.
    const order: Array<keyof typeof CALLS> = round % 2 === 0 ? ['context', 'recommend', 'crosswalk'] : ['crosswalk', 'recommend', 'context'];
    for (const key of order) {
      const body = key === 'context' ? undefined : requests[key];
      for (let k = 0; k < CALLS[key].warmup + CALLS[key].timed; k++) {
        const sample = await call(url, token, key, body, verify[key]);
        metered += 1;
        if (k >= CALLS[key].warmup) samples[key].push(sample);
      }
      log(`  round ${round + 1} ${key}: p95 ${percentile(samples[key].map((s) => s.ms), 95).toFixed(1)} ms`);
    }
    // The baseline beside crosswalks running back to back on another connection.
    let running = true;
    const background = (async () => {
      for (let k = 0; k < BACKGROUND_CROSSWALKS; k++) {
        await call(url, token, 'crosswalk', requests.crosswalk, verify.crosswalk);
        metered += 1;
      }
      running = false;
    })();
    while (running) {
      samples.contextDuringCrosswalk.push(await call(url, token, 'context', undefined, verify.context));
      metered += 1;
    }
    await background;
  }
  const rows: RowResult[] = [
    summarize('context', samples.context, 0),
    summarize('recommend', samples.recommend, Buffer.byteLength(requests.recommend)),
    summarize('crosswalk', samples.crosswalk, Buffer.byteLength(requests.crosswalk)),
    summarize('contextDuringCrosswalk', samples.contextDuringCrosswalk, 0),
  ];
  return { rows, metered };
}

/** The organization's metered operations (every call of the run reserved one). */
export async function meteredOperations(db: Database, organizationId: string): Promise<number> {
  const rows = await db.query<{ used: number }>(`SELECT coalesce(sum(used), 0)::int AS used FROM runtime_usage WHERE organization_id = $1`, [organizationId]);
  return rows[0]?.used ?? 0;
}
