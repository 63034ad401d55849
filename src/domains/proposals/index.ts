/** Proposals: agents' governed change proposals, approved by people, executed exactly as approved (docs/proposals.md). */
export {
  DEFAULT_PROPOSAL_PAGE,
  MAX_PENDING_PROPOSALS,
  MAX_PROPOSAL_PAGE,
  MAX_PROPOSAL_TEXT,
  MAX_PROPOSAL_TITLE,
  PROPOSAL_TTL_MS,
  ProposalKindSchema,
  ProposalSchema,
  ProposalStateSchema,
  ProposalStepSchema,
} from './contract.ts';
export type { Proposal, ProposalKind, ProposalState, ProposalStep, ProposedAction } from './contract.ts';
export { TRANSITIONS, nextState } from './states.ts';
export { createProposalsService } from './service.ts';
export type { ProposalDetail, ProposalPage, ProposalsDependencies, ProposalsService, ProposeInput } from './service.ts';
