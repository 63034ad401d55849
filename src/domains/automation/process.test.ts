import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAutomation, type AutomationFixture } from '../../../test/support/automation-domain.ts';

// process (docs/automation.md, "process"): runs step as their trigger's creator, approved automation proposals are
// executed as the approving person, webhooks are delivered, and concurrent calls never step one run twice.
describe('automation process', () => {
  let f: AutomationFixture;
  let key = 0;
  const nextKey = () => `process-${(key += 1)}`;

  beforeAll(async () => {
    f = await openAutomation('automation-process');
    const { secret } = await f.webhooks.create(f.owner.actor, { workspaceId: f.owner.workspaceId, url: f.receiver.url });
    f.receiver.setSecret(secret);
  });
  afterAll(() => f.close());

  const steps = async (runId: string) => (await f.automation.getRun(f.owner.actor, runId)).steps.map((s) => s.step);
  const noteOf = async (path: string) =>
    (await f.db.query<{ content: string }>('SELECT content FROM notes WHERE vault_id = $1 AND path = $2', [f.owner.mapping.vaultId, path]))[0]?.content;
  const proposeTrigger = (type: string, path = 'Inbox/{{event.data.name}}.md') =>
    f.automation.createTrigger(f.owner.actor, {
      workspaceId: f.owner.workspaceId,
      name: `Propose on ${type}`,
      when: { eventType: type },
      action: { kind: 'propose', mappingId: f.owner.mapping.id, title: 'Form from {{event.data.name}}', path, content: '# {{event.data.name}}\n\n{{event.data.missing}}done\n' },
    });
  const ingest = async (type: string, data: Record<string, unknown>) => (await f.automation.ingest(f.owner.actor, { workspaceId: f.owner.workspaceId, type, source: 'forms', data }, nextKey())).runIds;

  it('proposes, and once a person approves, executes and delivers in one process call', async () => {
    await proposeTrigger('form.approved');
    const [runId] = await ingest('form.approved', { name: 'Ana' });
    await f.automation.process({ accountId: f.owner.accountId });
    const waiting = await f.automation.getRun(f.owner.actor, runId!);
    expect(waiting.state).toBe('waiting');
    expect(waiting.proposalId).not.toBeNull();
    expect(await noteOf('Inbox/Ana.md')).toBeUndefined();
    const { proposal } = await f.services.proposals.get(f.owner.actor, f.owner.mapping.id, waiting.proposalId!);
    expect(proposal).toMatchObject({ origin: 'automation', title: 'Form from Ana', state: 'proposed' });

    await f.services.proposals.approve(f.ownerSession, f.owner.mapping.id, proposal.id);
    const summary = await f.automation.process({ accountId: f.owner.accountId });
    expect(summary.proposalsExecuted).toBe(1);
    expect(await noteOf('Inbox/Ana.md')).toBe('# Ana\n\ndone\n');
    const done = await f.automation.getRun(f.owner.actor, runId!);
    expect(done.state).toBe('succeeded');
    expect(done.steps.map((s) => s.step)).toEqual(['matched', 'proposal.created', 'proposal.approved', 'proposal.executed', 'webhook.queued', 'webhook.delivered', 'succeeded']);
    const executed = f.receiver.requests.filter((r) => JSON.parse(r.body).type === 'proposal.executed');
    expect(executed).toHaveLength(1);
    expect(executed[0]!.verified).toBe(true);
    const executions = await f.webhooks.executions(f.owner.actor, f.owner.workspaceId, { runId: runId! });
    expect(executions.items.filter((e) => e.kind === 'proposal')).toHaveLength(1);
  });

  it('fails the run when its proposal is rejected, applying nothing', async () => {
    await proposeTrigger('form.rejected');
    const [runId] = await ingest('form.rejected', { name: 'Bea' });
    await f.automation.process('all');
    const run = await f.automation.getRun(f.owner.actor, runId!);
    await f.services.proposals.reject(f.ownerSession, f.owner.mapping.id, run.proposalId!);
    await f.automation.process('all');
    const failed = await f.automation.getRun(f.owner.actor, runId!);
    expect(failed).toMatchObject({ state: 'failed', failure: { code: 'rejected' } });
    expect(failed.steps.map((s) => s.step)).toEqual(['matched', 'proposal.created', 'proposal.rejected', 'failed']);
    expect(await noteOf('Inbox/Bea.md')).toBeUndefined();
  });

  it('fails the run with the path rules’ code when the templated path is refused, recorded as a step', async () => {
    await proposeTrigger('form.badpath', '../{{event.data.name}}.md');
    const [runId] = await ingest('form.badpath', { name: 'Cy' });
    await f.automation.process('all');
    const run = await f.automation.getRun(f.owner.actor, runId!);
    expect(run.state).toBe('failed');
    expect(run.failure?.code).toMatch(/^(invalid_path|invalid_request)$/);
    expect(run.steps.at(-1)).toMatchObject({ step: 'failed', detail: { code: run.failure?.code } });
  });

  it('forwards an event to the endpoints and ends the run when delivered', async () => {
    await f.automation.createTrigger(f.owner.actor, { workspaceId: f.owner.workspaceId, name: 'Forward', when: { eventType: 'forward.me' }, action: { kind: 'webhook' } });
    const [runId] = await ingest('forward.me', { n: 1 });
    await f.automation.process('all');
    // Queued in pass 2, delivered in pass 4, ended in pass 5: one call.
    expect(await steps(runId!)).toEqual(['matched', 'webhook.queued', 'webhook.delivered', 'succeeded']);
    const body = JSON.parse(f.receiver.requests.find((r) => JSON.parse(r.body).type === 'forward.me')!.body);
    expect(body).toMatchObject({ contract: 'kgate.automation/1', data: { type: 'forward.me', data: { n: 1 } } });
  });

  it('starts a run of a schedule trigger when it is due, once', async () => {
    const trigger = await f.automation.createTrigger(f.owner.actor, { workspaceId: f.owner.workspaceId, name: 'Tick', when: { everyMinutes: 5 }, action: { kind: 'webhook' } });
    f.clock.advance(5 * 60_000 + 1000);
    const [a, b] = await Promise.all([f.automation.process('all'), f.automation.process('all')]);
    expect(a.runsStarted + b.runsStarted).toBe(1);
    const runs = await f.automation.listRuns(f.owner.actor, f.owner.workspaceId, { triggerId: trigger.id });
    expect(runs.items).toHaveLength(1);
    expect(runs.items[0]!.steps[0]!.step).toBe('scheduled');
    // Settle the run: which of the two calls started it decides whether its webhook was already queued, and a run
    // left half-way would step in the next test's process call (one more delivery there).
    await f.automation.process('all');
    expect((await f.automation.getRun(f.owner.actor, runs.items[0]!.id)).state).toBe('succeeded');
  });

  it('refuses a run whose trigger’s creator lost automation management', async () => {
    await f.automation.createTrigger(f.admin.actor, { workspaceId: f.owner.workspaceId, name: 'Admin’s', when: { eventType: 'admin.event' }, action: { kind: 'webhook' } });
    const [runId] = await ingest('admin.event', {});
    await f.services.workspaces.setMemberRole(f.owner.workspaceId, f.admin.accountId, 'editor');
    try {
      const deliveries = await f.count('webhook_deliveries');
      await f.automation.process('all');
      const run = await f.automation.getRun(f.owner.actor, runId!);
      expect(run).toMatchObject({ state: 'failed', failure: { code: 'forbidden' } });
      expect(run.steps.map((s) => s.step)).toEqual(['matched', 'refused', 'failed']);
      // Only the run.failed notice went out; the event was not forwarded.
      expect(f.receiver.requests.some((r) => JSON.parse(r.body).type === 'admin.event')).toBe(false);
      expect(await f.count('webhook_deliveries')).toBe(deliveries + 1);
    } finally {
      await f.services.workspaces.setMemberRole(f.owner.workspaceId, f.admin.accountId, 'admin');
    }
  });

  it('steps a run once when two process calls race, and executes its proposal once', async () => {
    await proposeTrigger('form.raced');
    const [runId] = await ingest('form.raced', { name: 'Dee' });
    const first = await Promise.all([f.automation.process('all'), f.automation.process({ accountId: f.owner.accountId })]);
    expect(await steps(runId!)).toEqual(['matched', 'proposal.created']);
    expect(first.reduce((n, s) => n + s.runsStepped, 0)).toBe(1);
    const run = await f.automation.getRun(f.owner.actor, runId!);
    await f.services.proposals.approve(f.ownerSession, f.owner.mapping.id, run.proposalId!);
    await Promise.all([f.automation.process('all'), f.automation.process('all'), f.automation.process({ accountId: f.owner.accountId })]);
    await f.automation.process('all');
    expect(await steps(runId!)).toEqual(['matched', 'proposal.created', 'proposal.approved', 'proposal.executed', 'webhook.queued', 'webhook.delivered', 'succeeded']);
    const executions = await f.webhooks.executions(f.owner.actor, f.owner.workspaceId, { runId: runId! });
    expect(executions.items.filter((e) => e.kind === 'proposal')).toHaveLength(1);
    expect(f.receiver.requests.filter((r) => JSON.parse(r.body).type === 'proposal.executed' && JSON.parse(r.body).data.proposalId === run.proposalId)).toHaveLength(1);
  });
});
