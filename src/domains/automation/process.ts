import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { ProposalsService } from '../proposals/index.ts';
import type { VaultsService } from '../vaults/index.ts';
import type { WorkspacesService } from '../workspaces/index.ts';
import type { AutomationEvent, ProcessSummary, WebhooksService } from './contract.ts';
import { findEvent } from './events/store.ts';
import { insertExecution } from './executions.ts';
import * as runs from './runs/store.ts';
import { renderTemplate } from './templating.ts';
import { claimDueSchedules } from './triggers/store.ts';

/**
 * `process` (docs/automation.md, "process"): moves automation on, in five passes, each bounded. Work is claimed
 * under leases (runs) or conditional updates (schedules, deliveries), and proposal execution locks its row, so
 * concurrent calls (a script's POST /process and the gateway's own loop) share the work without doing any twice.
 */

/** What process needs. */
export interface ProcessDependencies {
  db: Database;
  clock: Clock;
  workspaces: Pick<WorkspacesService, 'authorize'>;
  proposals: ProposalsService;
  webhooks: WebhooksService;
  vaults: Pick<VaultsService, 'findMappingAsOperator'>;
}

/** How much one pass takes at most; the rest waits for the next call. */
const SCHEDULES_PER_PASS = 50;
const RUNS_PER_PASS = 100;
const PROPOSALS_PER_PASS = 20;
const DELIVERIES_PER_PASS = 100;
/** How long a claimed run is leased: far longer than stepping one takes, short enough that a crash is forgotten. */
const RUN_LEASE_MS = 60_000;

/** The executor's identity on the steps and proposals it makes: the trigger's creator, through automation. */
function runActor(accountId: string): Actor {
  return { accountId, credentialKind: 'automation', client: 'kgate-automation' };
}

/** Moves automation on for `scope`'s workspaces (those `workspaceIds`), or everywhere (undefined). */
export async function processAutomation(deps: ProcessDependencies, scope: { accountId: string } | 'all', workspaceIds: readonly string[] | undefined): Promise<ProcessSummary> {
  const { db, clock } = deps;
  const summary: ProcessSummary = { runsStarted: 0, runsStepped: 0, proposalsExecuted: 0, deliveriesAttempted: 0, delivered: 0, failedAttempts: 0, gaveUp: 0 };

  // 1. Due schedule triggers start a run each.
  const now = clock.now();
  const due = await db.transaction(async (tx) => {
    const claimed = await claimDueSchedules(tx, now, workspaceIds, SCHEDULES_PER_PASS);
    for (const trigger of claimed) {
      await runs.insertRun(tx, { id: newId(), trigger, eventId: null, at: now, step: 'scheduled', detail: { dueAt: now.toISOString() } });
    }
    return claimed.length;
  });
  summary.runsStarted = due;

  // 2. Queued runs take their action.
  const queued = await runs.claimRuns(db, clock.now(), new Date(clock.now().getTime() + RUN_LEASE_MS), ['queued'], workspaceIds, RUNS_PER_PASS);
  for (const run of queued) {
    await stepQueued(deps, run);
    summary.runsStepped += 1;
  }

  // 3. Approved automation proposals are executed, as the person who approved each.
  const approved = await deps.proposals.approvedForExecution(scope, PROPOSALS_PER_PASS);
  for (const id of approved) {
    if (await executeProposal(deps, id)) summary.proposalsExecuted += 1;
  }

  // 4. Due webhook deliveries are attempted.
  const delivered = await deps.webhooks.deliverDue({ ...(workspaceIds ? { workspaceIds } : {}), limit: DELIVERIES_PER_PASS });
  Object.assign(summary, delivered);

  // 5. Waiting runs whose proposal or deliveries moved on move on too.
  const waiting = await runs.claimRuns(db, clock.now(), new Date(clock.now().getTime() + RUN_LEASE_MS), ['waiting'], workspaceIds, RUNS_PER_PASS);
  for (const run of waiting) {
    if (await stepWaiting(deps, run)) summary.runsStepped += 1;
  }
  return summary;
}

/** Fails a run with a reason and ends it. */
async function failRun(deps: ProcessDependencies, run: runs.StoredRun, step: 'refused' | 'failed', error: { code: string; detail: string }): Promise<void> {
  const at = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await runs.appendStep(tx, run.id, step, { code: error.code, detail: error.detail }, at);
    if (step === 'refused') await runs.appendStep(tx, run.id, 'failed', { code: error.code }, at);
    await runs.moveRun(tx, run.id, 'failed', at, { failure: error });
    await deps.webhooks.enqueue(tx, { workspaceId: run.workspaceId, eventType: 'run.failed', data: runNews(run, error), runId: null });
  });
}

function runNews(run: runs.StoredRun, failure?: { code: string; detail: string }): Record<string, unknown> {
  return { runId: run.id, triggerId: run.triggerId, triggerName: run.trigger.name, eventId: run.eventId, proposalId: run.proposalId, ...(failure ? { failure } : {}) };
}

/** A queued run's action, as the trigger's creator, whose automation management is checked again first. */
async function stepQueued(deps: ProcessDependencies, run: runs.StoredRun): Promise<void> {
  try {
    await deps.workspaces.authorize(run.accountId, run.workspaceId, 'automation.manage');
  } catch (error) {
    if (!(error instanceof KgateError)) throw error;
    return failRun(deps, run, 'refused', { code: error.code, detail: "The trigger's creator may no longer manage automation in this workspace; the run did nothing." });
  }
  const event: AutomationEvent = (run.eventId ? await findEvent(deps.db, run.eventId) : undefined) ?? scheduleEvent(run, deps.clock.now());
  const action = run.trigger.action;
  if (action.kind === 'webhook') {
    const at = deps.clock.now();
    await deps.db.transaction(async (tx) => {
      const ids = await deps.webhooks.enqueue(tx, {
        workspaceId: run.workspaceId,
        eventType: event.type,
        data: event,
        runId: run.id,
        ...(action.endpointIds ? { endpointIds: action.endpointIds } : {}),
      });
      await runs.appendStep(tx, run.id, 'webhook.queued', { deliveryIds: ids, eventType: event.type }, at);
      await runs.moveRun(tx, run.id, 'waiting', at);
    });
    return;
  }
  // A propose action: the templated note, proposed through the proposals domain's own rules (the creator's write
  // access, the mapping's rules, the path rules). A refusal is the run's failure, recorded with its code.
  try {
    const { proposal, created } = await deps.proposals.propose({
      actor: runActor(run.accountId),
      capability: 'direct',
      mappingId: action.mappingId,
      kind: 'action',
      title: renderTemplate(action.title, event).slice(0, 200) || run.trigger.name,
      rationale: `Proposed by the automation trigger "${run.trigger.name}" for the event ${event.type} from ${event.source}${event.subject ? ` (${event.subject})` : ''}.`,
      writes: [{ path: renderTemplate(action.path, event), content: renderTemplate(action.content, event) }],
      deletions: [],
      origin: 'automation',
      automationSource: `trigger: ${run.trigger.name}`,
    });
    const at = deps.clock.now();
    await deps.db.transaction(async (tx) => {
      await runs.appendStep(tx, run.id, 'proposal.created', { proposalId: proposal.id, created, mappingId: proposal.mappingId }, at);
      await runs.moveRun(tx, run.id, 'waiting', at, { proposalId: proposal.id });
      if (created) {
        await deps.webhooks.enqueue(tx, {
          workspaceId: run.workspaceId,
          eventType: 'proposal.created',
          data: { proposalId: proposal.id, mappingId: proposal.mappingId, title: proposal.title, state: proposal.state, source: proposal.automationSource },
          runId: null,
        });
      }
    });
  } catch (error) {
    if (!(error instanceof KgateError)) throw error;
    await failRun(deps, run, 'failed', { code: error.code, detail: error.message });
  }
}

/** The event a schedule trigger's run acts on: the schedule's own tick. */
function scheduleEvent(run: runs.StoredRun, at: Date): AutomationEvent {
  return {
    contract: 'kgate.automation/1',
    id: run.id,
    workspaceId: run.workspaceId,
    type: 'schedule.fired',
    source: 'kgate',
    subject: run.trigger.name,
    occurredAt: run.createdAt.toISOString(),
    receivedAt: at.toISOString(),
    data: { triggerId: run.triggerId, triggerName: run.trigger.name },
  };
}

/**
 * Executes one approved automation proposal with the bounded executor, records the attempt as an execution, tells
 * the workspace's endpoints, and moves the runs that wait on it. True when it was executed or failed now.
 */
async function executeProposal(deps: ProcessDependencies, proposalId: string): Promise<boolean> {
  const started = deps.clock.now();
  const t0 = performance.now();
  let proposal;
  try {
    proposal = await deps.proposals.executeApproved(proposalId);
  } catch (error) {
    // Expired while waiting (the proposal is now expired) or gone: nothing was applied; the waiting runs see it.
    if (error instanceof KgateError) return false;
    throw error;
  }
  if (!proposal || (proposal.state !== 'executed' && proposal.state !== 'failed')) return false;
  const mapping = await deps.vaults.findMappingAsOperator(proposal.mappingId);
  const executed = proposal.state === 'executed';
  const at = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    // Two process calls may both have executed it (the second answered as it is): one records it, under this lock.
    await lockProposal(tx, proposal.id);
    const recorded = await tx.query("SELECT 1 FROM automation_executions WHERE proposal_id = $1 AND kind = 'proposal' LIMIT 1", [proposal.id]);
    if (recorded.length > 0) return false;
    const waiting: runs.StoredRun[] = [];
    for (const run of await runs.runsOfProposal(tx, proposal.id)) {
      // Only runs still waiting on it, and not already told (a person executed it and a run recorded that).
      const steps = run.state === 'waiting' ? ((await runs.findRun(tx, run.id))?.steps ?? []) : [];
      if (run.state === 'waiting' && !steps.some((s) => s.step === 'proposal.executed')) waiting.push(run);
    }
    await insertExecution(tx, {
      workspaceId: mapping.workspaceId,
      kind: 'proposal',
      runId: waiting[0]?.id ?? null,
      deliveryId: null,
      endpointId: null,
      proposalId: proposal.id,
      attempt: 1,
      outcome: executed ? 'succeeded' : 'failed',
      httpStatus: null,
      errorCode: proposal.failure?.code ?? null,
      detail: executed ? `Applied ${proposal.actions.length} action(s) as the approving person.` : (proposal.failure?.detail ?? 'The execution failed.'),
      startedAt: started,
      durationMs: performance.now() - t0,
      nextAttemptAt: null,
    });
    const news = { proposalId: proposal.id, mappingId: proposal.mappingId, title: proposal.title, state: proposal.state, source: proposal.automationSource, result: proposal.result, failure: proposal.failure };
    if (waiting.length === 0) {
      await deps.webhooks.enqueue(tx, { workspaceId: mapping.workspaceId, eventType: executed ? 'proposal.executed' : 'proposal.failed', data: news, runId: null });
    }
    for (const run of waiting) {
      await runs.appendStep(tx, run.id, 'proposal.approved', { proposalId: proposal.id, decidedAt: proposal.decidedAt }, at);
      if (executed) {
        await runs.appendStep(tx, run.id, 'proposal.executed', { proposalId: proposal.id, applied: proposal.result?.map((a) => ({ path: a.path, status: a.status })) ?? [] }, at);
        const ids = await deps.webhooks.enqueue(tx, { workspaceId: run.workspaceId, eventType: 'proposal.executed', data: news, runId: run.id });
        await runs.appendStep(tx, run.id, 'webhook.queued', { deliveryIds: ids, eventType: 'proposal.executed' }, at);
      } else {
        const failure = { code: proposal.failure?.code ?? 'conflict', detail: proposal.failure?.detail ?? 'The execution failed.' };
        await runs.appendStep(tx, run.id, 'proposal.failed', { proposalId: proposal.id, ...failure }, at);
        await runs.appendStep(tx, run.id, 'failed', { code: failure.code }, at);
        await runs.moveRun(tx, run.id, 'failed', at, { failure });
        await deps.webhooks.enqueue(tx, { workspaceId: run.workspaceId, eventType: 'proposal.failed', data: news, runId: null });
      }
    }
    return true;
  });
}

/** Serializes recording what became of one proposal (the executor's record, a run's steps) across process calls. */
async function lockProposal(tx: Sql, proposalId: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('kgate.automation.proposal:' || $1::text))", [proposalId]);
}

/** A waiting run: its proposal's verdict, or its deliveries' end. True when it moved. */
async function stepWaiting(deps: ProcessDependencies, run: runs.StoredRun): Promise<boolean> {
  const steps = (await runs.findRun(deps.db, run.id))?.steps ?? [];
  const has = (kind: string) => steps.some((s) => s.step === kind);
  if (run.proposalId && !has('proposal.executed')) {
    const proposalId = run.proposalId;
    const state = await proposalState(deps, run);
    if (state === 'rejected' || state === 'expired' || state === 'failed' || state === 'unreadable') {
      const failure =
        state === 'unreadable'
          ? { code: 'forbidden', detail: "The trigger's creator may no longer read the proposal's mapping; the run stopped waiting." }
          : { code: state, detail: state === 'failed' ? 'The proposal was executed and failed; nothing was applied.' : `The proposal was ${state}; nothing was applied.` };
      const at = deps.clock.now();
      return deps.db.transaction(async (tx) => {
        await lockProposal(tx, proposalId);
        if (!(await stillWaiting(tx, run.id))) return false;
        const step = state === 'rejected' ? 'proposal.rejected' : state === 'expired' ? 'proposal.expired' : state === 'failed' ? 'proposal.failed' : 'refused';
        await runs.appendStep(tx, run.id, step, { proposalId, ...(step === 'refused' || step === 'proposal.failed' ? failure : {}) }, at);
        await runs.appendStep(tx, run.id, 'failed', { code: failure.code }, at);
        await runs.moveRun(tx, run.id, 'failed', at, { failure });
        if (state === 'rejected' || state === 'expired') {
          await deps.webhooks.enqueue(tx, { workspaceId: run.workspaceId, eventType: `proposal.${state}`, data: { proposalId, state, runId: run.id }, runId: null });
        }
        await deps.webhooks.enqueue(tx, { workspaceId: run.workspaceId, eventType: 'run.failed', data: runNews(run, failure), runId: null });
        return true;
      });
    }
    if (state === 'executed' || state === 'undone') {
      // A person executed it on the page before the executor did: the run records it and tells the endpoints.
      const at = deps.clock.now();
      return deps.db.transaction(async (tx) => {
        await lockProposal(tx, proposalId);
        const now = (await runs.findRun(tx, run.id))?.steps ?? [];
        // The executor of another process call recorded it meanwhile.
        if (now.some((s) => s.step === 'proposal.executed')) return false;
        if (!now.some((s) => s.step === 'proposal.approved')) await runs.appendStep(tx, run.id, 'proposal.approved', { proposalId }, at);
        await runs.appendStep(tx, run.id, 'proposal.executed', { proposalId, by: 'person' }, at);
        const ids = await deps.webhooks.enqueue(tx, { workspaceId: run.workspaceId, eventType: 'proposal.executed', data: { proposalId, state }, runId: run.id });
        await runs.appendStep(tx, run.id, 'webhook.queued', { deliveryIds: ids, eventType: 'proposal.executed' }, at);
        await runs.releaseRun(tx, run.id);
        return true;
      });
    }
    await runs.releaseRun(deps.db, run.id);
    return false;
  }
  const deliveries = await deps.webhooks.deliveriesOfRun(run.id);
  if (deliveries.pending > 0) {
    await runs.releaseRun(deps.db, run.id);
    return false;
  }
  const at = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    if (deliveries.failed > 0) {
      const failure = { code: 'webhook_gave_up', detail: `${deliveries.failed} webhook deliver${deliveries.failed === 1 ? 'y' : 'ies'} gave up after the last attempt.` };
      await runs.appendStep(tx, run.id, 'webhook.gave_up', { delivered: deliveries.delivered, failed: deliveries.failed }, at);
      await runs.appendStep(tx, run.id, 'failed', { code: failure.code }, at);
      await runs.moveRun(tx, run.id, 'failed', at, { failure });
      await deps.webhooks.enqueue(tx, { workspaceId: run.workspaceId, eventType: 'run.failed', data: runNews(run, failure), runId: null });
    } else {
      if (deliveries.delivered > 0) await runs.appendStep(tx, run.id, 'webhook.delivered', { delivered: deliveries.delivered }, at);
      await runs.appendStep(tx, run.id, 'succeeded', {}, at);
      await runs.moveRun(tx, run.id, 'succeeded', at);
      await deps.webhooks.enqueue(tx, { workspaceId: run.workspaceId, eventType: 'run.succeeded', data: runNews(run), runId: null });
    }
  });
  return true;
}

/** The state of a run's proposal, read as the run's account (the trigger's creator). */
async function proposalState(deps: ProcessDependencies, run: runs.StoredRun): Promise<string | undefined> {
  const mappingId = run.trigger.action.kind === 'propose' ? run.trigger.action.mappingId : undefined;
  if (!mappingId || !run.proposalId) return undefined;
  try {
    return (await deps.proposals.get(runActor(run.accountId), mappingId, run.proposalId)).proposal.state;
  } catch (error) {
    // The creator may no longer read the mapping (or the proposal is gone): the run cannot follow it any further.
    if (error instanceof KgateError) return 'unreadable';
    throw error;
  }
}

/** Whether a run is still waiting (read under the proposal's lock, so that one process call ends it). */
async function stillWaiting(tx: Sql, runId: string): Promise<boolean> {
  const rows = await tx.query<{ state: string }>('SELECT state FROM automation_runs WHERE id = $1', [runId]);
  return rows[0]?.state === 'waiting';
}
