import { describe, expect, it } from 'vitest';
import type { Execution, Run, WebhookEndpoint } from '../../domains/automation/index.ts';
import { executionsTable, runFacts, runStepsTable, runsTable } from './automation-history-view.ts';
import { endpointsTable, freshSecretSection, triggersTable, workspacesTable } from './automation-view.ts';
import { originWords } from './proposal-view.ts';

const WS = '3f0b8a52-4c0e-4f7e-9a51-0d6f0c1d2e3f';
const RUN = '44444444-2222-4333-8444-555555555555';
const PROPOSAL = '77777777-2222-4333-8444-555555555555';
const ENDPOINT = '0e9d8c7b-6a5f-4e3d-8c1b-0a9f8e7d6c5b';

const endpoint: WebhookEndpoint = {
  id: ENDPOINT,
  workspaceId: WS,
  url: 'https://hooks.example.com/<b>kgate</b>',
  description: 'Intake',
  eventTypes: ['proposal.executed', 'form.*'],
  secretHint: 'whsec_Ab',
  secretRotatedAt: '2026-11-26T11:00:00.000Z',
  previousSecretExpiresAt: '2026-11-27T11:00:00.000Z',
  createdBy: '99999999-2222-4333-8444-555555555555',
  createdAt: '2026-11-26T10:00:00.000Z',
};

const run: Run = {
  id: RUN,
  workspaceId: WS,
  triggerId: null,
  triggerName: 'Contact <form>',
  eventId: '55555555-2222-4333-8444-555555555555',
  proposalId: PROPOSAL,
  state: 'succeeded',
  createdAt: '2026-11-26T10:00:00.000Z',
  updatedAt: '2026-11-26T10:05:00.000Z',
  finishedAt: '2026-11-26T10:05:00.000Z',
  failure: null,
  steps: [
    { n: 1, step: 'matched', at: '2026-11-26T10:00:00.000Z', detail: { eventType: 'form.submitted' } },
    { n: 2, step: 'proposal.created', at: '2026-11-26T10:01:00.000Z', detail: { proposalId: PROPOSAL } },
    { n: 3, step: 'succeeded', at: '2026-11-26T10:05:00.000Z', detail: {} },
  ],
};

const execution: Execution = {
  id: '88888888-2222-4333-8444-555555555555',
  workspaceId: WS,
  kind: 'webhook',
  runId: RUN,
  deliveryId: 'msg_abc',
  endpointId: ENDPOINT,
  proposalId: null,
  eventType: 'proposal.executed',
  attempt: 2,
  outcome: 'failed',
  httpStatus: 503,
  errorCode: 'http_status',
  detail: 'The receiver answered 503.',
  startedAt: '2026-11-26T10:02:00.000Z',
  durationMs: 12,
  nextAttemptAt: '2026-11-26T10:02:30.000Z',
};

describe('the automation views', () => {
  it('lists workspaces with their automation pages where the role manages automation, and says why not elsewhere', () => {
    const markup = workspacesTable([
      { id: WS, name: 'Research', role: 'admin', createdAt: new Date() },
      { id: '66666666-2222-4333-8444-555555555555', name: 'Shared', role: 'editor', createdAt: new Date() },
    ]).markup;
    expect(markup).toContain(`href="/workspace/automation/${WS}/triggers"`);
    expect(markup).toContain('Your role (editor) does not manage automation');
    expect(markup).not.toContain('/workspace/automation/66666666-2222-4333-8444-555555555555/');
  });

  it('shows an endpoint by its hint, never a secret, and a fresh secret once with its warning and overlap', () => {
    const list = endpointsTable(WS, [endpoint], 'csrf').markup;
    expect(list).toContain('whsec_Ab…');
    expect(list).toContain('&lt;b&gt;kgate&lt;/b&gt;');
    expect(list).toContain('the previous one signs too until');
    const fresh = freshSecretSection({ endpoint, secret: 'whsec_SECRETVALUE', rotated: true }).markup;
    expect(fresh).toContain('whsec_SECRETVALUE');
    expect(fresh).toContain('shown this once and never again');
    expect(fresh).toContain('24 hours');
  });

  it('shows a trigger in words with its toggle form carrying the version', () => {
    const markup = triggersTable(
      WS,
      [
        {
          id: RUN,
          workspaceId: WS,
          name: 'T',
          enabled: true,
          when: { eventType: 'form.submitted', conditions: [{ field: 'data.form', equals: 'contact' }] },
          action: { kind: 'webhook', endpointIds: [ENDPOINT] },
          nextDueAt: null,
          createdBy: RUN,
          createdAt: run.createdAt,
          updatedAt: run.createdAt,
          version: 4,
        },
      ],
      new Map([[ENDPOINT, 'https://hooks.example.com/x']]),
      new Map(),
      'csrf',
    ).markup;
    expect(markup).toContain('data.form=contact');
    expect(markup).toContain('https://hooks.example.com/x');
    expect(markup).toContain('name="expected_version" value="4"');
    expect(markup).toContain('name="enabled" value="off"');
  });

  it('shows a run with its steps in order, its proposal linked, a deleted trigger marked', () => {
    const facts = runFacts(run).markup;
    expect(facts).toContain(`/workspace/automation/${WS}/proposals/${PROPOSAL}`);
    expect(facts).toContain('Contact &lt;form&gt; <span class="muted">(deleted)</span>');
    const steps = runStepsTable(run).markup;
    expect([...steps.matchAll(/data-step="([^"]+)"/g)].map((m) => m[1])).toEqual(['matched', 'proposal.created', 'succeeded']);
    expect(runsTable(WS, [run], 'none').markup).toContain(`/workspace/automation/${WS}/runs/${RUN}`);
  });

  it('shows every attempt with its outcome, HTTP status, error code and next attempt', () => {
    const markup = executionsTable(WS, [execution], new Map([[ENDPOINT, endpoint.url]]), 'none').markup;
    expect(markup).toContain('data-outcome="failed"');
    expect(markup).toContain('<td>2</td>');
    expect(markup).toContain('<td>503</td>');
    expect(markup).toContain('<code>http_status</code>');
    expect(markup).toContain('datetime="2026-11-26T10:02:30.000Z"');
    expect(markup).toContain('msg_abc');
  });

  it('names a proposal’s origin: an agent, or automation and its source', () => {
    expect(originWords({ origin: 'agent', automationSource: null }).markup).toContain('agent');
    expect(originWords({ origin: 'automation', automationSource: 'n8n <x>' }).markup).toContain('automation: n8n &lt;x&gt;');
  });
});
