/**
 * The automation gateway end to end, over real HTTP (issue 22, "Accepted when"): an admin registers a webhook endpoint
 * (its secret shown once) at a local https receiver and a trigger that proposes a note on `form.submitted`; a producer
 * delivers one event twice under one Idempotency-Key (the second answer is the first, and one run starts); `process`
 * makes one proposal, which changes nothing until a person approves it on the workspace page; the next `process`
 * executes it as the approving person through the bounded executor (credential kind `automation`) and delivers a
 * signed `proposal.executed` webhook, which the receiver's copy verifies with the `standardwebhooks` library and the
 * secret shown at creation; the run shows every step in order, and the executions show the proposal's execution and
 * the delivery attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver/index.ts';
import { automationCounts, startAutomationGateway, type AutomationGateway } from './support/automation-gateway.ts';
import { hiddenField, pageBrowser, signInThroughForm } from './support/browser.ts';
import { restClient } from './support/rest-client.ts';

interface RunBody {
  id: string;
  state: string;
  triggerId: string | null;
  eventId: string | null;
  proposalId: string | null;
  finishedAt: string | null;
  failure: unknown;
  steps: Array<{ n: number; step: string; at: string; detail: Record<string, unknown> }>;
}

interface ExecutionBody {
  kind: string;
  runId: string | null;
  deliveryId: string | null;
  endpointId: string | null;
  proposalId: string | null;
  eventType: string | null;
  attempt: number;
  outcome: string;
  httpStatus: number | null;
}

const FORM_EVENT = (workspaceId: string) => ({
  workspaceId,
  type: 'form.submitted',
  source: 'forms.example.com',
  subject: 'submission-1042',
  occurredAt: '2026-11-26T09:30:00Z',
  data: { form: 'contact', name: 'Ada Lovelace', message: 'Please call me back about the pilot.' },
});

const NOTE_PATH = 'Inbox/contact submission-1042.md';
const NOTE_CONTENT = '# Ada Lovelace\n\nForm contact, submission submission-1042:\n\nPlease call me back about the pilot.\n';

describe('automation gateway: an event to a proposal to a person to a signed webhook', () => {
  let auto: AutomationGateway;
  let receiver: WebhookReceiver;
  let secret: string;
  let endpointId: string;
  let triggerId: string;
  let runId: string;
  let proposalId: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    auto = await startAutomationGateway({ trust: receiver.cert });
  });

  afterAll(async () => {
    await auto?.stop();
    await receiver?.close();
  });

  it('registers an endpoint at the receiver, its secret shown once and stored only sealed', async () => {
    const { admin, workspaceId } = auto;
    const created = await admin.api.post<{ endpoint: { id: string; url: string; secretHint: string }; secret: string }>('/endpoints', {
      json: { workspaceId, url: receiver.url, description: 'The intake receiver', eventTypes: ['proposal.executed'] },
    });
    expect(created.status, created.text).toBe(200);
    secret = created.body.secret;
    endpointId = created.body.endpoint.id;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.endpoint).toMatchObject({ url: receiver.url, workspaceId, eventTypes: ['proposal.executed'] });
    expect(secret.startsWith(created.body.endpoint.secretHint)).toBe(true);

    const listed = await admin.api.get<{ endpoints: Array<{ id: string }> }>('/endpoints', { query: { workspaceId } });
    expect(listed.status).toBe(200);
    expect(listed.body.endpoints.map((e) => e.id)).toEqual([endpointId]);
    expect(listed.text).not.toContain(secret.slice('whsec_'.length));
    const rows = await auto.gateway.db.query('SELECT * FROM webhook_endpoints WHERE id = $1', [endpointId]);
    expect(JSON.stringify(rows)).not.toContain(secret.slice('whsec_'.length));
  });

  it('creates a trigger that proposes a note for each submitted form', async () => {
    const { admin, workspaceId, mappingId } = auto;
    const created = await admin.api.post<{ trigger: { id: string; enabled: boolean; version: number } }>('/triggers', {
      json: {
        workspaceId,
        name: 'Form submissions to the inbox',
        when: { eventType: 'form.submitted', conditions: [{ field: 'data.form', equals: 'contact' }] },
        action: {
          kind: 'propose',
          mappingId,
          title: 'File the {{event.data.form}} form from {{event.data.name}}',
          path: 'Inbox/{{event.data.form}} {{event.subject}}.md',
          content: '# {{event.data.name}}\n\nForm {{event.data.form}}, submission {{event.subject}}:\n\n{{event.data.message}}\n',
        },
      },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.trigger).toMatchObject({ enabled: true, version: 1 });
    triggerId = created.body.trigger.id;
    const listed = await admin.api.get<{ triggers: Array<{ id: string }> }>('/triggers', { query: { workspaceId } });
    expect(listed.body.triggers.map((t) => t.id)).toEqual([triggerId]);
  });

  it('takes an event delivered twice under one key once: one run, replayed answer', async () => {
    const { admin, workspaceId } = auto;
    const key = 'forms-delivery-1042';
    const first = await admin.api.ingest<{ event: { id: string; contract: string; type: string }; duplicate: boolean; runIds: string[] }>(FORM_EVENT(workspaceId), key);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ duplicate: false, event: { contract: 'kgate.automation/1', type: 'form.submitted', workspaceId } });
    expect(first.body.runIds).toHaveLength(1);
    runId = first.body.runIds[0]!;

    const second = await admin.api.ingest<{ event: { id: string }; duplicate: boolean; runIds: string[] }>(FORM_EVENT(workspaceId), key);
    expect(second.status, second.text).toBe(200);
    // Either layer may answer the retry: the REST idempotency store replays the first answer, or the events store
    // finds the key and says duplicate. Both name the same event, and neither starts a run.
    expect(second.headers.get('idempotent-replayed') === 'true' || second.body.duplicate === true, second.text).toBe(true);
    expect(second.body.event.id).toBe(first.body.event.id);

    const counts = await automationCounts(auto.gateway, workspaceId);
    expect(counts).toMatchObject({ automation_events: 1, automation_runs: 1, action_proposals: 0 });
    const runs = await admin.api.get<{ runs: RunBody[] }>('/runs', { query: { workspaceId } });
    expect(runs.body.runs.map((r) => [r.id, r.state, r.triggerId, r.eventId])).toEqual([[runId, 'queued', triggerId, first.body.event.id]]);
  });

  it('process proposes the note, and nothing changes in the vault until a person approves it', async () => {
    const { admin, owner, workspaceId, mappingId } = auto;
    const summary = await admin.api.process();
    expect(summary).toMatchObject({ runsStepped: 1, proposalsExecuted: 0, deliveriesAttempted: 0 });
    const run = await admin.api.get<{ run: RunBody }>(`/runs/${runId}`);
    expect(run.status, run.text).toBe(200);
    expect(run.body.run.state).toBe('waiting');
    expect(run.body.run.steps.map((s) => s.step)).toEqual(['matched', 'proposal.created']);
    proposalId = run.body.run.proposalId!;
    expect(proposalId).toBeTruthy();

    const proposals = await admin.api.get<{ proposals: Array<{ id: string; state: string; title: string }> }>('/proposals', { query: { workspaceId } });
    expect(proposals.status, proposals.text).toBe(200);
    expect(proposals.body.proposals.map((p) => [p.id, p.state, p.title])).toEqual([[proposalId, 'proposed', 'File the contact form from Ada Lovelace']]);

    // A proposal is never approval: process again does not execute it, and the note does not exist.
    expect(await admin.api.process()).toMatchObject({ proposalsExecuted: 0, deliveriesAttempted: 0 });
    const note = await restClient(auto.gateway, owner.token).get('/notes/by-path', { query: { mappingId, path: NOTE_PATH } });
    expect(note.status).toBe(404);
    expect(receiver.received).toHaveLength(0);
  });

  it('a person approves it on the workspace page; process executes it as that person and delivers a signed webhook', async () => {
    const { admin, owner, workspaceId, mappingId } = auto;
    const person = pageBrowser(auto.gateway.baseUrl);
    expect((await signInThroughForm(person, owner.email, owner.password)).status).toBe(303);
    const page = await person.get(`/workspace/vaults/${mappingId}/proposals/${proposalId}`);
    expect(page.status).toBe(200);
    const csrf = hiddenField(await page.text(), 'csrf');
    const approved = await person.post(`/workspace/vaults/${mappingId}/proposals/${proposalId}`, { csrf, step: 'approve' });
    expect(approved.status).toBe(303);
    const state = await auto.gateway.db.query<{ state: string }>('SELECT state FROM action_proposals WHERE id = $1', [proposalId]);
    expect(state).toEqual([{ state: 'approved' }]);

    const summary = await admin.api.process();
    expect(summary).toMatchObject({ proposalsExecuted: 1, deliveriesAttempted: 1, delivered: 1, failedAttempts: 0, gaveUp: 0 });

    const note = await restClient(auto.gateway, owner.token).get<{ content: string }>('/notes/by-path', { query: { mappingId, path: NOTE_PATH } });
    expect(note.status, note.text).toBe(200);
    expect(note.body.content).toBe(NOTE_CONTENT);

    // Provenance: the note was written by the approving person through the bounded executor.
    const events = await restClient(auto.gateway, owner.token).get<{ events: Array<{ kind: string; path: string | null; credentialKind: string }> }>('/events', {
      query: { mappingId, order: 'desc', limit: 20 },
    });
    expect(events.status, events.text).toBe(200);
    expect(events.body.events.find((e) => e.path === NOTE_PATH)).toMatchObject({ kind: 'note.created', credentialKind: 'automation' });
    const rows = await auto.gateway.db.query<{ account_id: string; credential_kind: string }>(
      "SELECT account_id, credential_kind FROM provenance_events WHERE path = $1 AND kind = 'note.created'",
      [NOTE_PATH],
    );
    expect(rows).toEqual([{ account_id: owner.accountId, credential_kind: 'automation' }]);

    // The webhook: one request, signed with the secret shown at creation, verified by the standardwebhooks library.
    expect(receiver.received).toHaveLength(1);
    const request = receiver.received[0]!;
    const payload = new Webhook(secret).verify(request.body, request.headers) as { type: string; contract: string; timestamp: string; data: Record<string, unknown> };
    expect(payload).toMatchObject({ type: 'proposal.executed', contract: 'kgate.automation/1', data: expect.objectContaining({ proposalId }) });
    expect(request.headers['webhook-id']).toMatch(/^msg_/);
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request.body, request.headers)).toThrow();

    const after = await automationCounts(auto.gateway, workspaceId);
    expect(after).toMatchObject({ automation_events: 1, automation_runs: 1, action_proposals: 1, webhook_deliveries: 1, automation_executions: 2 });
  });

  it('the run shows every step in order, and the executions the proposal and the delivery attempt', async () => {
    const { admin, workspaceId } = auto;
    const run = await admin.api.get<{ run: RunBody }>(`/runs/${runId}`);
    expect(run.body.run).toMatchObject({ state: 'succeeded', proposalId, failure: null, finishedAt: expect.any(String) });
    expect(run.body.run.steps.map((s) => s.step)).toEqual([
      'matched',
      'proposal.created',
      'proposal.approved',
      'proposal.executed',
      'webhook.queued',
      'webhook.delivered',
      'succeeded',
    ]);
    expect(run.body.run.steps.map((s) => s.n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const times = run.body.run.steps.map((s) => Date.parse(s.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    const executions = await admin.api.get<{ executions: ExecutionBody[]; nextCursor: string | null }>('/executions', { query: { workspaceId } });
    expect(executions.status, executions.text).toBe(200);
    const byKind = Object.fromEntries(executions.body.executions.map((e) => [e.kind, e]));
    expect(executions.body.executions).toHaveLength(2);
    expect(byKind.proposal).toMatchObject({ proposalId, outcome: 'succeeded', attempt: 1, runId });
    expect(byKind.webhook).toMatchObject({ endpointId, runId, eventType: 'proposal.executed', attempt: 1, outcome: 'succeeded', httpStatus: expect.any(Number) });
    expect(byKind.webhook!.httpStatus! >= 200 && byKind.webhook!.httpStatus! < 300).toBe(true);
    expect(byKind.webhook!.deliveryId).toBe(receiver.received[0]!.headers['webhook-id']);
    // Newest first: the delivery followed the execution.
    expect(executions.body.executions.map((e) => e.kind)).toEqual(['webhook', 'proposal']);
    const ofRun = await admin.api.get<{ executions: ExecutionBody[] }>('/executions', { query: { workspaceId, runId } });
    expect(ofRun.body.executions).toHaveLength(2);

    // Nothing is left to do: another process changes nothing and sends nothing.
    const before = await automationCounts(auto.gateway, workspaceId);
    expect(await admin.api.process()).toEqual({ runsStarted: 0, runsStepped: 0, proposalsExecuted: 0, deliveriesAttempted: 0, delivered: 0, failedAttempts: 0, gaveUp: 0 });
    expect(await automationCounts(auto.gateway, workspaceId)).toEqual(before);
    expect(receiver.received).toHaveLength(1);
  });
});
