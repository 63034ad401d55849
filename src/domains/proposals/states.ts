import { KgateError } from '../../kernel/errors.ts';
import type { ProposalState, ProposalStep } from './contract.ts';

/**
 * The proposal state machine, in one place (docs/proposals.md). Each step names the states it may start from and the
 * state it leads to; nothing else moves a proposal. `expire` happens to a proposal that waited past its expiry in
 * `proposed` or `approved` (found when anyone next acts on it, and by maintenance).
 *
 *   proposed --approve--> approved --execute--> executed --undo--> undone
 *      |                     |   \--fail-----> failed       \--undo-failed--> executed (stays, with the reason)
 *      |--reject--> rejected <--reject (withdraw the approval before execution)
 *      \--expire--> expired <--expire
 */
export const TRANSITIONS: Readonly<Record<ProposalStep['step'], { from: readonly ProposalState[]; to: ProposalState }>> = {
  propose: { from: [], to: 'proposed' },
  approve: { from: ['proposed'], to: 'approved' },
  reject: { from: ['proposed', 'approved'], to: 'rejected' },
  expire: { from: ['proposed', 'approved'], to: 'expired' },
  execute: { from: ['approved'], to: 'executed' },
  fail: { from: ['approved'], to: 'failed' },
  undo: { from: ['executed'], to: 'undone' },
  'undo-failed': { from: ['executed'], to: 'executed' },
};

/** The steps people take on the workspace page; `propose` is an agent's, `expire`, `fail` and `undo-failed` the server's. */
export type PersonStep = 'approve' | 'reject' | 'execute' | 'undo';

/** What the state a proposal leaves `from` by `step` is; a `conflict` naming the state when the step is not allowed from it. */
export function nextState(from: ProposalState, step: ProposalStep['step']): ProposalState {
  const rule = TRANSITIONS[step];
  if (!rule.from.includes(from)) {
    throw new KgateError('conflict', `This proposal is ${from}; it cannot be ${PAST[step]} now.`, { state: from, step });
  }
  return rule.to;
}

const PAST: Readonly<Record<ProposalStep['step'], string>> = {
  propose: 'proposed',
  approve: 'approved',
  reject: 'rejected',
  expire: 'expired',
  execute: 'executed',
  fail: 'failed',
  undo: 'undone',
  'undo-failed': 'undone',
};

/** True when a proposal waiting for a person or for its execution has passed its expiry. */
export function hasExpired(state: ProposalState, expiresAt: Date, now: Date): boolean {
  return TRANSITIONS.expire.from.includes(state) && expiresAt.getTime() <= now.getTime();
}
