/**
 * What every check of the suite takes and gives (README, "The checks"): a pure function of the scenario, the request
 * body sent, the envelope answered and the facts of the call (HTTP status, timing, the configured prices), returning
 * one result. No check calls anything; the same inputs give the same result.
 */
import type { PriceTable, TokenUsage } from '../../../src/domains/models/index.ts';
import type { Scenario } from '../scenario.ts';

/** A V1 envelope as the runtime answers it (docs/runtime.md); `data` is unknown until a check reads it. */
export interface EvalEnvelope {
  version: number;
  kind: string;
  status: 'ok' | 'partial' | 'unavailable' | 'error';
  data: unknown;
  receipts: Array<Record<string, unknown>>;
  problems: Array<{ code: string; message: string; details?: Record<string, unknown> }>;
  requestId: string;
}

/** When the answer came: headers (or the first NDJSON line) and the whole body, in milliseconds from sending. */
export interface EvalTiming {
  firstByteMs: number;
  totalMs: number;
}

/** The facts of one call besides its envelope. */
export interface EvalFacts {
  httpStatus: number;
  timing: EvalTiming;
  /** The configured price table the receipt's cost is recomputed with. */
  prices: PriceTable;
  /** Offline: the usage the fake model was scripted to report, which the receipt must carry exactly. */
  scriptedUsage?: TokenUsage;
  /** Offline: the model names the fake answers as. */
  expectedModel?: { chat: string; image: string | null };
}

/** The checks, in report order (spec 1.10). */
export const CHECK_IDS = [
  'standards-visibility',
  'source-visibility',
  'teacher-review',
  'checks-for-understanding',
  'accessibility',
  'consequential-decisions',
  'privacy',
  'latency',
  'usage-receipt',
] as const;
/** One of CHECK_IDS. */
export type CheckId = (typeof CHECK_IDS)[number];

/**
 * `pass` and `fail` are verdicts; `not-applicable` says the scenario asks nothing of this check; `report` records a
 * measure that is never a verdict (latency).
 */
export type CheckStatus = 'pass' | 'fail' | 'not-applicable' | 'report';

/** One check's result. */
export interface CheckResult {
  check: CheckId;
  status: CheckStatus;
  /** One sentence for the report. */
  summary: string;
  /** What was found, for the JSON report. */
  details?: Record<string, unknown>;
}

/** A check. */
export type Check = (scenario: Scenario, request: Record<string, unknown>, envelope: EvalEnvelope, facts: EvalFacts) => CheckResult;

/** A result. */
export function result(check: CheckId, status: CheckStatus, summary: string, details?: Record<string, unknown>): CheckResult {
  return details ? { check, status, summary, details } : { check, status, summary };
}

/** The failure every content check gives when the call answered no data to check. */
export function noAnswer(check: CheckId, envelope: EvalEnvelope, facts: EvalFacts): CheckResult | undefined {
  if (envelope.status === 'ok' && facts.httpStatus === 200) return undefined;
  const problem = envelope.problems[0];
  return result(check, 'fail', `No answer to check: HTTP ${facts.httpStatus}, envelope ${envelope.status}${problem ? ` (${problem.code})` : ''}.`, {
    problems: envelope.problems.map((p) => p.code),
  });
}
