import { randomBytes } from 'node:crypto';
import type { lookup } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookTransport } from '../../../app/webhook-http.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../test/fakes/webhook-receiver/index.ts';
import { openDomainDatabase, type DomainDatabase } from '../../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../../test/support/fixtures.ts';
import { createTokenSealer, parseTokenKeys } from '../../providers/index.ts';
import { SECRET_OVERLAP_MS, type WebhooksService } from '../contract.ts';
import { createWebhooksService } from './service.ts';
import { signedHeaders } from './signing.ts';

const SCHEDULE = [1000, 2000];

interface ManualClock extends Clock {
  advance(ms: number): void;
}

function manualClock(): ManualClock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
  };
}

/** A lookup answering `address` for every name (typed as node's overloaded lookup, which a plain function is not). */
function lookupTo(address: string): typeof lookup {
  const fake = (_host: string, _options: unknown, callback: (error: null, addresses: Array<{ address: string; family: number }>) => void): void => {
    callback(null, [{ address, family: 4 }]);
  };
  return fake as unknown as typeof lookup;
}

/**
 * Whether a request carries a signature by `secret`, checked without the receiver's clock tolerance (the manual clock
 * of these tests runs ahead of the real one, which the standardwebhooks library measures timestamps against).
 */
function signedBy(request: { headers: Record<string, string>; body: string }, secret: string): boolean {
  const at = new Date(Number(request.headers['webhook-timestamp']) * 1000);
  const expected = new Webhook(secret).sign(request.headers['webhook-id']!, at, request.body);
  return request.headers['webhook-signature']!.split(' ').includes(expected);
}

describe('the test vector of Standard Webhooks', () => {
  it('signs as the specification says', () => {
    const headers = signedHeaders('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330 * 1000), '{"test": 2432232314}', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    expect(headers['webhook-timestamp']).toBe('1614265330');
    expect(headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'kgate-webhooks/1' });
  });
});

describe('webhooks service', () => {
  let domain: DomainDatabase;
  let owner: Owner;
  let receiver: WebhookReceiver;
  let clock: ManualClock;
  let webhooks: WebhooksService;
  const sealer = createTokenSealer(parseTokenKeys(`k1:${randomBytes(32).toString('base64')}`));

  const build = (overrides: Partial<Parameters<typeof createWebhooksService>[0]> = {}): WebhooksService =>
    createWebhooksService({
      db: domain.db,
      clock,
      workspaces: domain.services.workspaces,
      sealer,
      transport: createWebhookTransport({ allowPrivateAddresses: true, ca: receiver.cert }),
      retrySchedule: SCHEDULE,
      ...overrides,
    });

  const count = async (table: string, workspaceId = owner.workspaceId): Promise<number> => {
    const [row] = await domain.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
    return row!.n;
  };

  /** A fresh workspace (its own owner) with one endpoint at the receiver; the secret is set on the receiver. */
  const setUp = async (eventTypes?: string[]): Promise<{ who: Owner; endpointId: string; secret: string }> => {
    const who = await createOwner(domain.services, 'hooks');
    const created = await webhooks.create(who.actor, { workspaceId: who.workspaceId, url: receiver.url, ...(eventTypes ? { eventTypes } : {}) });
    receiver.setSecret(created.secret);
    return { who, endpointId: created.endpoint.id, secret: created.secret };
  };

  beforeAll(async () => {
    clock = manualClock();
    domain = await openDomainDatabase('webhooks', clock);
    owner = domain.owner;
    receiver = await startWebhookReceiver();
    webhooks = build();
  });

  afterAll(async () => {
    await receiver.close();
    await domain.db.close();
  });

  it('creates an endpoint with a secret shown once and stored sealed, delivers a signed message, records the attempt', async () => {
    const { who, endpointId, secret } = await setUp();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [stored] = await domain.db.query<{ secret_sealed: string; secret_hint: string }>('SELECT secret_sealed, secret_hint FROM webhook_endpoints WHERE id = $1', [endpointId]);
    expect(stored!.secret_sealed).not.toContain(secret.slice(6));
    expect(stored!.secret_hint).toBe(secret.slice(0, 10));
    const listed = await webhooks.list(who.actor, who.workspaceId);
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(6));
    expect(listed[0]).toMatchObject({ id: endpointId, url: receiver.url, eventTypes: [], secretHint: secret.slice(0, 10), previousSecretExpiresAt: null });

    const before = receiver.requests.length;
    const ids = await domain.db.transaction((tx) => webhooks.enqueue(tx, { workspaceId: who.workspaceId, eventType: 'form.submitted', data: { answer: 42 } }));
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(receiver.requests.length).toBe(before);

    expect(await webhooks.deliverDue({ workspaceIds: [who.workspaceId] })).toEqual({ deliveriesAttempted: 1, delivered: 1, failedAttempts: 0, gaveUp: 0 });
    const request = receiver.requests.at(-1)!;
    expect(request.verified).toBe(true);
    expect(request.headers['webhook-id']).toBe(ids[0]);
    const payload = new Webhook(secret).verify(request.body, request.headers);
    expect(payload).toMatchObject({ type: 'form.submitted', contract: 'kgate.automation/1', data: { answer: 42 } });
    expect(Object.keys(payload as object)).toEqual(['type', 'timestamp', 'contract', 'data']);

    const executions = await webhooks.executions(who.actor, who.workspaceId);
    expect(executions.items).toHaveLength(1);
    expect(executions.items[0]).toMatchObject({ kind: 'webhook', deliveryId: ids[0], endpointId, attempt: 1, outcome: 'succeeded', httpStatus: 200, errorCode: null, nextAttemptAt: null, eventType: 'form.submitted' });
    expect(await webhooks.deliverDue({ workspaceIds: [who.workspaceId] })).toEqual({ deliveriesAttempted: 0, delivered: 0, failedAttempts: 0, gaveUp: 0 });
  });

  it('retries a failing receiver on the schedule with jitter, the same webhook-id each time, then gives up', async () => {
    const { who } = await setUp();
    const before = receiver.requests.length;
    receiver.failNext(100, 503);
    try {
      const [id] = await domain.db.transaction((tx) => webhooks.enqueue(tx, { workspaceId: who.workspaceId, eventType: 'note.created', data: {} }));
      const only = { workspaceIds: [who.workspaceId] };
      expect(await webhooks.deliverDue(only)).toEqual({ deliveriesAttempted: 1, delivered: 0, failedAttempts: 1, gaveUp: 0 });
      // Not due yet: nothing is sent until the wait has passed.
      expect(await webhooks.deliverDue(only)).toEqual({ deliveriesAttempted: 0, delivered: 0, failedAttempts: 0, gaveUp: 0 });
      clock.advance(1.2 * SCHEDULE[0]! + 10);
      expect(await webhooks.deliverDue(only)).toEqual({ deliveriesAttempted: 1, delivered: 0, failedAttempts: 1, gaveUp: 0 });
      clock.advance(1.2 * SCHEDULE[1]! + 10);
      expect(await webhooks.deliverDue(only)).toEqual({ deliveriesAttempted: 1, delivered: 0, failedAttempts: 1, gaveUp: 1 });
      clock.advance(60 * 60_000);
      expect(await webhooks.deliverDue(only)).toEqual({ deliveriesAttempted: 0, delivered: 0, failedAttempts: 0, gaveUp: 0 });

      const [delivery] = await domain.db.query<{ state: string; attempts: number; next_attempt_at: Date | null }>(
        'SELECT state, attempts, next_attempt_at FROM webhook_deliveries WHERE id = $1',
        [id],
      );
      expect(delivery).toEqual({ state: 'failed', attempts: 3, next_attempt_at: null });
      const executions = (await webhooks.executions(who.actor, who.workspaceId)).items.reverse();
      expect(executions.map((e) => [e.attempt, e.outcome, e.httpStatus, e.deliveryId])).toEqual([
        [1, 'failed', 503, id],
        [2, 'failed', 503, id],
        [3, 'gave_up', 503, id],
      ]);
      for (const [k, wait] of SCHEDULE.entries()) {
        const execution = executions[k]!;
        const waited = Date.parse(execution.nextAttemptAt!) - Date.parse(execution.startedAt);
        expect(waited).toBeGreaterThanOrEqual(0.8 * wait);
        expect(waited).toBeLessThan(1.2 * wait + 1000);
      }
      expect(executions[2]!.nextAttemptAt).toBeNull();
      for (const execution of executions) expect(execution.detail).not.toContain('not now');

      const attempts = receiver.requests.slice(before);
      expect(attempts).toHaveLength(3);
      expect(new Set(attempts.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
      expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
      expect(attempts.every((r) => r.verified === true)).toBe(true);
    } finally {
      receiver.failNext(0);
    }
  });

  it('records a transport failure by its reason, never a body', async () => {
    const { who } = await setUp();
    const unreachable = build({ transport: createWebhookTransport({ ca: receiver.cert }) });
    await domain.db.transaction((tx) => unreachable.enqueue(tx, { workspaceId: who.workspaceId, eventType: 'note.created', data: {} }));
    expect(await unreachable.deliverDue({ workspaceIds: [who.workspaceId] })).toMatchObject({ deliveriesAttempted: 1, failedAttempts: 1 });
    const [execution] = (await webhooks.executions(who.actor, who.workspaceId)).items;
    expect(execution).toMatchObject({ outcome: 'failed', httpStatus: null, errorCode: 'blocked_address' });
  });

  it('refuses endpoint URLs that are not https or do not reach public addresses, storing nothing', async () => {
    const strict = build({ transport: createWebhookTransport({ ca: receiver.cert }) });
    const privateName = build({ transport: createWebhookTransport({ ca: receiver.cert, lookup: lookupTo('10.0.0.1') }) });
    const before = await count('webhook_endpoints');
    const attempts: Array<() => Promise<unknown>> = [
      () => strict.create(owner.actor, { workspaceId: owner.workspaceId, url: receiver.url }),
      () => strict.create(owner.actor, { workspaceId: owner.workspaceId, url: 'https://[::1]/hook' }),
      () => privateName.create(owner.actor, { workspaceId: owner.workspaceId, url: 'https://hooks.internal.example/hook' }),
      () => webhooks.create(owner.actor, { workspaceId: owner.workspaceId, url: receiver.url.replace('https:', 'http:') }),
      () => webhooks.create(owner.actor, { workspaceId: owner.workspaceId, url: 'not a url' }),
      () => webhooks.create(owner.actor, { workspaceId: owner.workspaceId, url: 'https://user:pass@example.com/hook' }),
    ];
    for (const attempt of attempts) await expect(attempt()).rejects.toMatchObject({ code: 'endpoint_url_refused' });
    expect(await count('webhook_endpoints')).toBe(before);
    // A name resolving to public addresses passes the check.
    await expect(createWebhookTransport({ lookup: lookupTo('93.184.216.34') }).check('https://hooks.example.com/in')).resolves.toBeUndefined();
  });

  it('lets only owners and admins manage endpoints; others are refused and nothing is stored', async () => {
    const viewer = await createOwner(domain.services, 'viewer');
    const editor = await createOwner(domain.services, 'editor');
    const admin = await createOwner(domain.services, 'admin');
    const stranger = await createOwner(domain.services, 'stranger');
    await domain.services.workspaces.setMemberRole(owner.workspaceId, viewer.accountId, 'viewer');
    await domain.services.workspaces.setMemberRole(owner.workspaceId, editor.accountId, 'editor');
    await domain.services.workspaces.setMemberRole(owner.workspaceId, admin.accountId, 'admin');
    const created = await webhooks.create(admin.actor, { workspaceId: owner.workspaceId, url: receiver.url, description: 'by the admin' });
    const before = await count('webhook_endpoints');
    const noSealer = build({ sealer: undefined });
    const refusals: Array<[() => Promise<unknown>, string]> = [
      [() => webhooks.create(viewer.actor, { workspaceId: owner.workspaceId, url: receiver.url }), 'forbidden'],
      [() => webhooks.create(editor.actor, { workspaceId: owner.workspaceId, url: receiver.url }), 'forbidden'],
      [() => webhooks.create(stranger.actor, { workspaceId: owner.workspaceId, url: receiver.url }), 'not_found'],
      [() => webhooks.list(editor.actor, owner.workspaceId), 'forbidden'],
      [() => webhooks.executions(viewer.actor, owner.workspaceId), 'forbidden'],
      [() => webhooks.rotateSecret(editor.actor, created.endpoint.id), 'forbidden'],
      [() => webhooks.remove(viewer.actor, created.endpoint.id), 'forbidden'],
      [() => webhooks.remove(owner.actor, '00000000-0000-7000-8000-000000000000'), 'not_found'],
      [() => webhooks.rotateSecret(owner.actor, 'not-an-id'), 'not_found'],
      [() => webhooks.create(owner.actor, { workspaceId: owner.workspaceId, url: receiver.url, eventTypes: ['Not A Type'] }), 'invalid_request'],
      [() => noSealer.create(owner.actor, { workspaceId: owner.workspaceId, url: receiver.url }), 'unavailable'],
      [() => noSealer.rotateSecret(owner.actor, created.endpoint.id), 'unavailable'],
    ];
    for (const [attempt, code] of refusals) await expect(attempt()).rejects.toMatchObject({ code });
    await expect(noSealer.create(owner.actor, { workspaceId: owner.workspaceId, url: receiver.url })).rejects.toThrow(/KGATE_PROVIDER_TOKEN_KEYS/);
    expect(await count('webhook_endpoints')).toBe(before);
    const [row] = await domain.db.query<{ secret_hint: string; previous_secret_sealed: string | null }>(
      'SELECT secret_hint, previous_secret_sealed FROM webhook_endpoints WHERE id = $1',
      [created.endpoint.id],
    );
    expect(row).toEqual({ secret_hint: created.secret.slice(0, 10), previous_secret_sealed: null });
  });

  it('caps the endpoints of a workspace', async () => {
    const who = await createOwner(domain.services, 'many');
    for (let k = 0; k < 20; k += 1) await webhooks.create(who.actor, { workspaceId: who.workspaceId, url: `${receiver.url}/${k}` });
    await expect(webhooks.create(who.actor, { workspaceId: who.workspaceId, url: receiver.url })).rejects.toMatchObject({ code: 'conflict' });
    expect(await count('webhook_endpoints', who.workspaceId)).toBe(20);
  });

  it('signs with both secrets while a rotated-out secret overlaps, then with the new one only', async () => {
    const { who, endpointId, secret: old } = await setUp();
    const rotatedAt = clock.now().getTime();
    const rotated = await webhooks.rotateSecret(who.actor, endpointId);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.endpoint.secretHint).toBe(rotated.secret.slice(0, 10));
    expect(Date.parse(rotated.endpoint.previousSecretExpiresAt!) - rotatedAt).toBeGreaterThanOrEqual(SECRET_OVERLAP_MS);
    receiver.setSecret(rotated.secret);

    await domain.db.transaction((tx) => webhooks.enqueue(tx, { workspaceId: who.workspaceId, eventType: 'note.created', data: { k: 1 } }));
    await webhooks.deliverDue({ workspaceIds: [who.workspaceId] });
    const during = receiver.requests.at(-1)!;
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(signedBy(during, rotated.secret)).toBe(true);
    expect(signedBy(during, old)).toBe(true);

    clock.advance(SECRET_OVERLAP_MS + 1000);
    await domain.db.transaction((tx) => webhooks.enqueue(tx, { workspaceId: who.workspaceId, eventType: 'note.created', data: { k: 2 } }));
    await webhooks.deliverDue({ workspaceIds: [who.workspaceId] });
    const after = receiver.requests.at(-1)!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(signedBy(after, rotated.secret)).toBe(true);
    expect(signedBy(after, old)).toBe(false);
  });

  it('queues only for endpoints that take the type (or the named ones that do), in the caller transaction', async () => {
    const who = await createOwner(domain.services, 'filters');
    const forms = await webhooks.create(who.actor, { workspaceId: who.workspaceId, url: receiver.url, eventTypes: ['form.*'] });
    const all = await webhooks.create(who.actor, { workspaceId: who.workspaceId, url: receiver.url });
    const enqueue = (eventType: string, endpointIds?: string[]) =>
      domain.db.transaction((tx) => webhooks.enqueue(tx, { workspaceId: who.workspaceId, eventType, data: {}, ...(endpointIds ? { endpointIds } : {}) }));
    expect(await enqueue('form.submitted')).toHaveLength(2);
    expect(await enqueue('note.created')).toHaveLength(1);
    expect(await enqueue('note.created', [forms.endpoint.id])).toHaveLength(0);
    expect(await enqueue('form.sent', [forms.endpoint.id])).toHaveLength(1);
    const before = await count('webhook_deliveries', who.workspaceId);
    await expect(
      domain.db.transaction(async (tx) => {
        await webhooks.enqueue(tx, { workspaceId: who.workspaceId, eventType: 'x.y', data: {} });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await count('webhook_deliveries', who.workspaceId)).toBe(before);
    void all;
  });

  it('ends the pending deliveries of a deleted endpoint without sending them', async () => {
    const { who, endpointId } = await setUp();
    receiver.failNext(1, 500);
    const [id] = await domain.db.transaction((tx) => webhooks.enqueue(tx, { workspaceId: who.workspaceId, eventType: 'note.created', data: {} }));
    await webhooks.deliverDue({ workspaceIds: [who.workspaceId] });
    const before = receiver.requests.length;
    await webhooks.remove(who.actor, endpointId);
    expect(await webhooks.list(who.actor, who.workspaceId)).toEqual([]);
    await expect(webhooks.remove(who.actor, endpointId)).rejects.toMatchObject({ code: 'not_found' });
    expect(await webhooks.deliverDue({ workspaceIds: [who.workspaceId] })).toEqual({ deliveriesAttempted: 0, delivered: 0, failedAttempts: 0, gaveUp: 1 });
    expect(receiver.requests.length).toBe(before);
    const [delivery] = await domain.db.query<{ state: string }>('SELECT state FROM webhook_deliveries WHERE id = $1', [id]);
    expect(delivery!.state).toBe('failed');
    const [last] = (await webhooks.executions(who.actor, who.workspaceId)).items;
    expect(last).toMatchObject({ outcome: 'gave_up', detail: 'endpoint deleted', deliveryId: id });
  });

  it('leaves deliveries pending when no sealer is configured', async () => {
    const { who } = await setUp();
    const [id] = await domain.db.transaction((tx) => webhooks.enqueue(tx, { workspaceId: who.workspaceId, eventType: 'note.created', data: {} }));
    expect(await build({ sealer: undefined }).deliverDue()).toEqual({ deliveriesAttempted: 0, delivered: 0, failedAttempts: 0, gaveUp: 0 });
    const [delivery] = await domain.db.query<{ state: string; lease_until: Date | null }>('SELECT state, lease_until FROM webhook_deliveries WHERE id = $1', [id]);
    expect(delivery).toEqual({ state: 'pending', lease_until: null });
    await webhooks.deliverDue({ workspaceIds: [who.workspaceId] });
  });

  it('sends each due delivery once when two deliverDue calls race, and reports where a run stands', async () => {
    const { who } = await setUp();
    const other = build();
    const before = receiver.requests.length;
    const ids: string[] = [];
    for (let k = 0; k < 6; k += 1) {
      ids.push(...(await domain.db.transaction((tx) => webhooks.enqueue(tx, { workspaceId: who.workspaceId, eventType: 'note.created', data: { k } }))));
    }
    const [a, b] = await Promise.all([webhooks.deliverDue({ workspaceIds: [who.workspaceId] }), other.deliverDue({ workspaceIds: [who.workspaceId] })]);
    expect(a.delivered + b.delivered).toBe(6);
    expect(a.deliveriesAttempted + b.deliveriesAttempted).toBe(6);
    const sent = receiver.requests.slice(before).map((r) => r.headers['webhook-id']);
    expect([...sent].sort()).toEqual([...ids].sort());
    expect(await count('webhook_deliveries', who.workspaceId)).toBe(6);
    expect(await webhooks.deliveriesOfRun('00000000-0000-7000-8000-000000000000')).toEqual({ pending: 0, delivered: 0, failed: 0 });
  });
});
