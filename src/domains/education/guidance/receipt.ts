/**
 * The safety receipt of a guidance answer (`service.education-safety`; docs/education.md): which checks ran and
 * passed, whether the model's text was withheld and why, under which policy and version of the checks. It names no
 * text: not the model's, not the answer key's, not the learner's.
 */
import type { GuidanceInput } from './contract.ts';
import { GUIDANCE_SAFETY_VERSION, type SafetyVerdict } from './safety.ts';

/** The safety receipt, in the envelope's `receipts` after the usage receipt. */
export interface GuidanceSafetyReceipt {
  kind: 'service.education-safety';
  requestId: string;
  /** The ledger row of the metered call the checks ran on. */
  ledgerId: string;
  /** The version of the checks (GUIDANCE_SAFETY_VERSION). */
  checksVersion: string;
  policy: {
    /** The caller's policy reference. */
    version: string;
    answerRevelation: 'forbidden';
    externalLinks: 'forbidden';
    directMessaging: 'forbidden';
    transcriptVisibleToTeacher: true;
  };
  /** How the request's untrusted parts were carried: as labeled data in the user message, never as instructions. */
  untrustedInput: { learnerMessage: 'user-data'; priorTurns: number };
  checks: Array<{ check: SafetyVerdict['checks'][number]['check']; ran: true; passed: boolean }>;
  withheld: boolean;
  reasons: SafetyVerdict['reasons'];
  delivered: 'model' | 'fallback';
  replayed: boolean;
}

/** The stored part of the receipt (kept with the answer for a replay): the verdict and the policy version. */
export interface StoredSafety {
  verdict: SafetyVerdict;
  policyVersion: string;
  priorTurns: number;
}

/** What to store with the answer for `input`'s verdict. */
export function storedSafetyOf(input: GuidanceInput, verdict: SafetyVerdict): StoredSafety {
  return { verdict, policyVersion: input.policy.version, priorTurns: input.priorTurns?.length ?? 0 };
}

/** The receipt of a stored verdict. */
export function safetyReceiptOf(stored: StoredSafety, call: { requestId: string; ledgerId: string; replayed: boolean }): GuidanceSafetyReceipt {
  return {
    kind: 'service.education-safety',
    requestId: call.requestId,
    ledgerId: call.ledgerId,
    checksVersion: GUIDANCE_SAFETY_VERSION,
    policy: { version: stored.policyVersion, answerRevelation: 'forbidden', externalLinks: 'forbidden', directMessaging: 'forbidden', transcriptVisibleToTeacher: true },
    untrustedInput: { learnerMessage: 'user-data', priorTurns: stored.priorTurns },
    checks: stored.verdict.checks.map((c) => ({ check: c.check, ran: true, passed: c.passed })),
    withheld: stored.verdict.withheld,
    reasons: stored.verdict.reasons,
    delivered: stored.verdict.withheld ? 'fallback' : 'model',
    replayed: call.replayed,
  };
}
