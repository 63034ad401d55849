/**
 * What the automation gateway refuses, over real HTTP (issue 22, "Accepted when"), each refusal followed by proof
 * that nothing was stored (events, runs, triggers, endpoints, deliveries, executions and proposals counted through
 * the test database, and the lists read back):
 * - a receiver that keeps failing: each attempt waits its backoff (with jitter; nothing is sent before it is due), is
 *   signed again with the same webhook-id, and is an execution; after the eighth the delivery gives up and the run
 *   ends failed with webhook.gave_up;
 * - endpoints at private, loopback and link-local addresses refused by the default transport, and http:// refused
 *   by any transport (endpoint_url_refused, nothing stored);
 * - a viewer or an editor changing or reading triggers and endpoints (403), an account outside the workspace (404);
 * - an OAuth access token (refused by the surface);
 * - malformed JSON, a wrong content type, unknown fields, a body over 256 KiB and data over 64 KiB (413), no key;
 * - an Idempotency-Key reused with another event (idempotency_key_reused);
 * and one acceptance beside them: a CloudEvents 1.0 event normalized into the automation contract.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver/index.ts';
import {
  automationClient,
  automationCounts,
  codeOf,
  manualClock,
  startAutomationGateway,
  type AutomationClient,
  type AutomationGateway,
  type ManualClock,
} from './support/automation-gateway.ts';
import type { ApiResponse } from './support/rest-client.ts';
import { connect } from './support/oauth-flow.ts';

/** The default retry schedule (docs/automation.md): the wait after failed attempt n, before its jitter. */
const RETRY_SCHEDULE_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000];
const ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

interface ExecutionBody {
  id: string;
  kind: string;
  runId: string | null;
  deliveryId: string | null;
  attempt: number;
  outcome: string;
  httpStatus: number | null;
  startedAt: string;
  nextAttemptAt: string | null;
}

interface RunBody {
  id: string;
  state: string;
  failure: { code: string; detail: string } | null;
  steps: Array<{ step: string }>;
}

const orderEvent = (workspaceId: string, n: number) => ({ workspaceId, type: 'order.placed', source: 'shop.example.com', subject: `order-${n}`, data: { order: n, total: 12.5 } });

describe('automation refusals', () => {
  let auto: AutomationGateway;
  let clock: ManualClock;
  let failing: WebhookReceiver;
  let keyCounter = 0;
  const newKey = () => `refusal-key-${++keyCounter}`;

  /** Everything stored for the workspace, and the lists an admin reads back. */
  async function everything(): Promise<unknown> {
    const { admin, workspaceId } = auto;
    const read = async (path: string) => {
      const response = await admin.api.get(path, { query: { workspaceId } });
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    return { counts: await automationCounts(auto.gateway, workspaceId), triggers: await read('/triggers'), endpoints: await read('/endpoints'), runs: await read('/runs') };
  }

  /** Sends a request that must be refused with `status` and `code` and must store nothing. */
  async function expectRefused(send: () => Promise<ApiResponse>, status: number, code: string): Promise<ApiResponse> {
    const before = await everything();
    const response = await send();
    expect([response.status, codeOf(response)], response.text).toEqual([status, code]);
    expect(await everything()).toEqual(before);
    return response;
  }

  beforeAll(async () => {
    failing = await startWebhookReceiver({ status: 503 });
    clock = manualClock();
    auto = await startAutomationGateway({ clock, trust: failing.cert });
  });

  afterAll(async () => {
    await auto?.stop();
    await failing?.close();
  });

  it('refuses malformed, mistyped, unknown-field and oversized events, and a missing key, storing nothing', async () => {
    const { admin, workspaceId } = auto;
    const event = orderEvent(workspaceId, 1);
    const post = (raw: string | Uint8Array, contentType = 'application/json', key: string | null = newKey()) => () =>
      admin.api.post('/events', { raw, headers: { 'content-type': contentType, ...(key === null ? {} : { 'idempotency-key': key }) } });
    const cases: Array<[string, () => Promise<ApiResponse>, number, string]> = [
      ['malformed JSON', post('{"workspaceId": "'), 400, 'invalid_request'],
      ['not an object', post('[1, 2, 3]'), 400, 'invalid_request'],
      ['wrong content type', post(JSON.stringify(event), 'text/plain'), 400, 'invalid_request'],
      ['form-encoded', post(new URLSearchParams({ type: 'order.placed' }).toString(), 'application/x-www-form-urlencoded'), 400, 'invalid_request'],
      ['unknown top-level field', post(JSON.stringify({ ...event, priority: 'high' })), 400, 'invalid_request'],
      ['bad type', post(JSON.stringify({ ...event, type: 'Order Placed' })), 400, 'invalid_request'],
      ['data not an object', post(JSON.stringify({ ...event, data: ['a'] })), 400, 'invalid_request'],
      ['no data', post(JSON.stringify({ workspaceId, type: 'order.placed', source: 'shop' })), 400, 'invalid_request'],
      ['no Idempotency-Key', post(JSON.stringify(event), 'application/json', null), 400, 'idempotency_key_required'],
      // The body is refused before anything else is read (256 KiB bound of the automation gateway).
      ['body over 256 KiB', post(JSON.stringify({ ...event, data: { blob: 'x'.repeat(300 * 1024) } })), 413, 'payload_too_large'],
      // Within the body bound, but the event's data is over its own 64 KiB.
      ['data over 64 KiB', post(JSON.stringify({ ...event, data: { blob: 'x'.repeat(65 * 1024) } })), 413, 'payload_too_large'],
    ];
    for (const [label, send, status, code] of cases) {
      const response = await expectRefused(send, status, code).catch((error: unknown) => {
        throw new Error(`${label}: ${error instanceof Error ? error.message : String(error)}`);
      });
      expect(response.headers.get('content-type'), label).toMatch(/^application\/problem\+json/);
    }
    // Data just under 64 KiB is taken.
    const fits = await admin.api.ingest({ ...event, data: { blob: 'x'.repeat(60 * 1024) } }, newKey());
    expect(fits.status, fits.text).toBe(200);
  });

  it('refuses an Idempotency-Key reused with another event; the stored event stays as it was', async () => {
    const { admin, workspaceId } = auto;
    const key = newKey();
    const first = await admin.api.ingest<{ event: { id: string; subject: string } }>(orderEvent(workspaceId, 2), key);
    expect(first.status, first.text).toBe(200);
    const stored = await auto.gateway.db.query('SELECT * FROM automation_events WHERE id = $1', [first.body.event.id]);
    await expectRefused(() => admin.api.ingest(orderEvent(workspaceId, 3), key), 422, 'idempotency_key_reused');
    expect(await auto.gateway.db.query('SELECT * FROM automation_events WHERE id = $1', [first.body.event.id])).toEqual(stored);
    // The same event under the same key is still the same event.
    const again = await admin.api.ingest<{ event: { id: string } }>(orderEvent(workspaceId, 2), key);
    expect([again.status, again.body.event.id]).toEqual([200, first.body.event.id]);
  });

  it('normalizes a CloudEvents 1.0 event into the automation contract', async () => {
    const { admin, workspaceId } = auto;
    const cloudEvent = {
      specversion: '1.0',
      id: 'ce-7f3a',
      source: 'https://forms.example.com/contact',
      type: 'form.submitted',
      subject: 'submission-7',
      time: '2026-11-26T08:15:00Z',
      datacontenttype: 'application/json',
      workspaceId,
      data: { form: 'contact', name: 'Grace Hopper' },
    };
    const before = await automationCounts(auto.gateway, workspaceId);
    const response = await admin.api.ingest<{ event: Record<string, unknown>; duplicate: boolean }>(cloudEvent, newKey(), {
      headers: { 'content-type': 'application/cloudevents+json' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.event).toMatchObject({
      contract: 'kgate.automation/1',
      workspaceId,
      type: 'form.submitted',
      source: 'https://forms.example.com/contact',
      subject: 'submission-7',
      data: { form: 'contact', name: 'Grace Hopper' },
    });
    expect(Date.parse(response.body.event.occurredAt as string)).toBe(Date.parse('2026-11-26T08:15:00Z'));
    expect(await automationCounts(auto.gateway, workspaceId)).toEqual({ ...before, automation_events: before.automation_events! + 1 });
    // A CloudEvent without its required attributes is refused like any malformed event.
    const { specversion: _dropped, ...withoutVersion } = cloudEvent;
    await expectRefused(() => admin.api.ingest({ ...withoutVersion, id: 'ce-other' }, newKey(), { headers: { 'content-type': 'application/cloudevents+json' } }), 400, 'invalid_request');
  });

  it('refuses a viewer or an editor changing or reading triggers and endpoints (403), and an outsider (404)', async () => {
    const { admin, editor, viewer, workspaceId } = auto;
    const trigger = await admin.api.post<{ trigger: { id: string } }>('/triggers', {
      json: { workspaceId, name: 'Orders out', when: { eventType: 'order.placed' }, action: { kind: 'webhook' } },
    });
    expect(trigger.status, trigger.text).toBe(200);
    const triggerId = trigger.body.trigger.id;
    const endpoint = await admin.api.post<{ endpoint: { id: string } }>('/endpoints', { json: { workspaceId, url: `${failing.url}/roles`, eventTypes: ['role.checked'] } });
    expect(endpoint.status, endpoint.text).toBe(200);
    const endpointId = endpoint.body.endpoint.id;

    const attempts = (api: AutomationClient): Array<[string, () => Promise<ApiResponse>]> => [
      ['create a trigger', () => api.post('/triggers', { json: { workspaceId, name: 'Mine', when: { eventType: 'order.*' }, action: { kind: 'webhook' } } })],
      ['disable the trigger', () => api.patch(`/triggers/${triggerId}`, { json: { enabled: false } })],
      ['retarget the trigger', () => api.patch(`/triggers/${triggerId}`, { json: { when: { eventType: '*' } } })],
      ['delete the trigger', () => api.delete(`/triggers/${triggerId}`)],
      ['list triggers', () => api.get('/triggers', { query: { workspaceId } })],
      ['create an endpoint', () => api.post('/endpoints', { json: { workspaceId, url: `${failing.url}/mine` } })],
      ['rotate a secret', () => api.post(`/endpoints/${endpointId}/rotate-secret`)],
      ['delete an endpoint', () => api.delete(`/endpoints/${endpointId}`)],
      ['list endpoints', () => api.get('/endpoints', { query: { workspaceId } })],
      ['post an event', () => api.ingest(orderEvent(workspaceId, 9), newKey())],
      ['list runs', () => api.get('/runs', { query: { workspaceId } })],
      ['list executions', () => api.get('/executions', { query: { workspaceId } })],
    ];
    for (const member of [editor, viewer]) {
      for (const [label, send] of attempts(member.api)) {
        await expectRefused(send, 403, 'forbidden').catch((error: unknown) => {
          throw new Error(`${member.role} ${label}: ${error instanceof Error ? error.message : String(error)}`);
        });
      }
    }
    // An account outside the workspace: as for a workspace, trigger or endpoint that does not exist.
    const outsider = await auto.gateway.services.onboarding.bootstrapOwner({ email: `outsider-${Date.now()}@example.test` });
    for (const [label, send] of attempts(automationClient(auto.gateway, outsider.token))) {
      await expectRefused(send, 404, 'not_found').catch((error: unknown) => {
        throw new Error(`outsider ${label}: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
    // The admin may: the trigger changes, with its version.
    const changed = await admin.api.patch<{ trigger: { enabled: boolean; version: number } }>(`/triggers/${triggerId}`, { json: { enabled: false, expectedVersion: 1 } });
    expect([changed.status, changed.body.trigger?.enabled, changed.body.trigger?.version], changed.text).toEqual([200, false, 2]);
    await expectRefused(() => admin.api.patch(`/triggers/${triggerId}`, { json: { enabled: true, expectedVersion: 1 } }), 409, 'conflict');
    await expectRefused(() => admin.api.patch(`/triggers/${triggerId}`, { json: { enabled: true, colour: 'red' } }), 400, 'invalid_request');
    expect((await admin.api.delete(`/triggers/${triggerId}`)).status).toBe(200);
    expect((await admin.api.delete(`/endpoints/${endpointId}`)).status).toBe(200);
  });

  it('refuses an OAuth access token at /api/dev/automation, whatever its scope', async () => {
    const { owner, workspaceId } = auto;
    const oauth = await connect(auto.gateway, owner, { scope: 'mcp:read mcp:write offline_access' });
    const api = automationClient(auto.gateway, oauth.tokens.access_token);
    await expectRefused(() => api.get('/triggers', { query: { workspaceId } }), 401, 'unauthenticated');
    await expectRefused(() => api.ingest(orderEvent(workspaceId, 10), newKey()), 401, 'unauthenticated');
    await expectRefused(() => api.post('/triggers', { json: { workspaceId, name: 'By OAuth', when: { eventType: '*' }, action: { kind: 'webhook' } } }), 401, 'unauthenticated');
    await expectRefused(() => api.post('/process'), 401, 'unauthenticated');
    await expectRefused(() => api.get('/triggers', { query: { workspaceId }, token: null }), 401, 'unauthenticated');
  });

  it('refuses http:// endpoints even where private addresses are allowed, and bad URLs', async () => {
    const { admin, workspaceId } = auto;
    const local = new URL(failing.url);
    for (const url of [`http://${local.host}/hook`, 'ftp://example.com/hook', 'not a url', 'https://user:pw@example.com/hook', `https://${local.host}:99999/x`]) {
      await expectRefused(() => admin.api.post('/endpoints', { json: { workspaceId, url } }), 422, 'endpoint_url_refused').catch((error: unknown) => {
        throw new Error(`${url}: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  });

  it('retries a failing receiver with backoff and jitter, every attempt an execution, then gives up; the run fails', async () => {
    const { admin, workspaceId } = auto;
    const endpoint = await admin.api.post<{ endpoint: { id: string }; secret: string }>('/endpoints', { json: { workspaceId, url: `${failing.url}/orders`, eventTypes: ['order.*'] } });
    expect(endpoint.status, endpoint.text).toBe(200);
    const trigger = await admin.api.post<{ trigger: { id: string } }>('/triggers', {
      json: { workspaceId, name: 'Orders to the shop', when: { eventType: 'order.shipped' }, action: { kind: 'webhook', endpointIds: [endpoint.body.endpoint.id] } },
    });
    expect(trigger.status, trigger.text).toBe(200);
    const ingested = await admin.api.ingest<{ runIds: string[] }>({ ...orderEvent(workspaceId, 20), type: 'order.shipped' }, newKey());
    expect(ingested.body.runIds).toHaveLength(1);
    const runId = ingested.body.runIds[0]!;
    const receivedBefore = failing.received.length;

    const executionsOfRun = async () => {
      const answer = await admin.api.get<{ executions: ExecutionBody[] }>('/executions', { query: { workspaceId, runId } });
      expect(answer.status, answer.text).toBe(200);
      return [...answer.body.executions].reverse();
    };
    expect(await admin.api.process()).toMatchObject({ runsStepped: 1, deliveriesAttempted: 1, delivered: 0, failedAttempts: 1, gaveUp: 0 });
    for (let attempt = 2; attempt <= ATTEMPTS; attempt++) {
      const previous = (await executionsOfRun()).at(-1)!;
      expect(previous).toMatchObject({ attempt: attempt - 1, outcome: 'failed', httpStatus: 503 });
      const due = Date.parse(previous.nextAttemptAt!);
      // Just before it is due nothing is sent; once due, the next attempt is.
      clock.advance(due - clock.now().getTime() - 1_000);
      expect(await admin.api.process()).toMatchObject({ deliveriesAttempted: 0 });
      clock.advance(2_000);
      const summary = await admin.api.process();
      expect(summary).toMatchObject(attempt < ATTEMPTS ? { deliveriesAttempted: 1, failedAttempts: 1, gaveUp: 0 } : { deliveriesAttempted: 1, gaveUp: 1 });
    }

    const executions = await executionsOfRun();
    expect(executions.map((e) => [e.kind, e.attempt, e.outcome, e.httpStatus])).toEqual(
      Array.from({ length: ATTEMPTS }, (_, k) => ['webhook', k + 1, k + 1 < ATTEMPTS ? 'failed' : 'gave_up', 503]),
    );
    // Backoff with jitter: the wait after attempt n is the schedule's n-th times a factor in [0.8, 1.2).
    executions.slice(0, -1).forEach((e, k) => {
      const wait = Date.parse(e.nextAttemptAt!) - Date.parse(e.startedAt);
      expect(wait, `wait after attempt ${k + 1}`).toBeGreaterThanOrEqual(0.8 * RETRY_SCHEDULE_MS[k]! - 1_000);
      expect(wait, `wait after attempt ${k + 1}`).toBeLessThan(1.2 * RETRY_SCHEDULE_MS[k]! + 1_000);
    });
    expect(executions.at(-1)!.nextAttemptAt).toBeNull();
    expect(new Set(executions.map((e) => e.deliveryId)).size).toBe(1);

    // The receiver saw every attempt: one webhook-id, a fresh timestamp each time, each signed with the secret.
    const attempts = failing.received.slice(receivedBefore);
    expect(attempts).toHaveLength(ATTEMPTS);
    expect(new Set(attempts.map((r) => r.headers['webhook-id']))).toEqual(new Set([executions[0]!.deliveryId]));
    const stamps = attempts.map((r) => Number(r.headers['webhook-timestamp']));
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
    const signer = new Webhook(endpoint.body.secret);
    for (const r of attempts) {
      // Signed for its own timestamp (hours ahead of the receiver's clock here, so checked without the tolerance).
      const expected = signer.sign(r.headers['webhook-id']!, new Date(Number(r.headers['webhook-timestamp']) * 1000), r.body);
      expect(r.headers['webhook-signature']!.split(' ')).toContain(expected);
    }

    const run = await admin.api.get<{ run: RunBody }>(`/runs/${runId}`);
    expect(run.body.run.state).toBe('failed');
    expect(run.body.run.failure).toMatchObject({ code: expect.any(String) });
    expect(run.body.run.steps.map((s) => s.step)).toEqual(['matched', 'webhook.queued', 'webhook.gave_up', 'failed']);

    // Given up is final: however far time moves, nothing more is sent.
    clock.advance(24 * 3_600_000);
    expect(await admin.api.process()).toMatchObject({ deliveriesAttempted: 0 });
    expect(failing.received.length - receivedBefore).toBe(ATTEMPTS);
  });
});

describe('automation refusals: endpoints at non-public addresses, by the default transport', () => {
  let auto: AutomationGateway;

  beforeAll(async () => {
    auto = await startAutomationGateway({ transport: 'default' });
  });

  afterAll(() => auto?.stop());

  it('refuses loopback, private, link-local and unspecified addresses, and http://; stores nothing', async () => {
    const { admin, workspaceId } = auto;
    const listed = async () => (await admin.api.get<{ endpoints: unknown[] }>('/endpoints', { query: { workspaceId } })).body.endpoints;
    const urls = [
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10:8443/hook',
      'https://172.16.5.4/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[fd00::1]/hook',
      'https://0.0.0.0/hook',
      'https://100.64.0.1/hook',
      'http://example.com/hook',
    ];
    for (const url of urls) {
      const before = await automationCounts(auto.gateway, workspaceId);
      const response = await admin.api.post('/endpoints', { json: { workspaceId, url } });
      expect([url, response.status, codeOf(response)], response.text).toEqual([url, 422, 'endpoint_url_refused']);
      expect(await automationCounts(auto.gateway, workspaceId)).toEqual(before);
      expect(await listed()).toEqual([]);
    }
  });
});
