import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAutomation, refusalOf, type AutomationFixture } from '../../../test/support/automation-domain.ts';
import { createOwner } from '../../../test/support/fixtures.ts';
import { MAX_EVENT_DATA_BYTES, MAX_EVENT_DEPTH, MAX_TRIGGERS_PER_WORKSPACE, type TriggerCreate } from './contract.ts';

// Events, triggers and runs of the automation service (docs/automation.md), on the real services. Every refusal is
// checked for its code and for changing nothing: the automation tables hold the same rows afterwards.
describe('automation events, triggers and runs', () => {
  let f: AutomationFixture;
  let key = 0;
  const nextKey = () => `key-${(key += 1)}`;

  beforeAll(async () => {
    f = await openAutomation('automation-service');
  });
  afterAll(() => f.close());

  const snapshot = async () => [await f.count('automation_events'), await f.count('automation_runs'), await f.count('automation_triggers'), await f.count('automation_run_steps')];
  const event = (data: Record<string, unknown> = { name: 'Ana' }, type = 'form.submitted') => ({ workspaceId: f.owner.workspaceId, type, source: 'forms', subject: 'r-1', data });
  const webhookTrigger = (extra: Partial<TriggerCreate> = {}): TriggerCreate => ({
    workspaceId: f.owner.workspaceId,
    name: 'Forward forms',
    when: { eventType: 'form.*' },
    action: { kind: 'webhook' },
    ...extra,
  });

  it('stores an event once per key, starts one run per matching enabled trigger, and answers a retry as a duplicate', async () => {
    const matching = await f.automation.createTrigger(f.owner.actor, webhookTrigger());
    await f.automation.createTrigger(f.owner.actor, webhookTrigger({ name: 'Only Bea', when: { eventType: 'form.submitted', conditions: [{ field: 'data.name', equals: 'Bea' }] } }));
    await f.automation.createTrigger(f.owner.actor, webhookTrigger({ name: 'Off', enabled: false }));
    await f.automation.createTrigger(f.owner.actor, webhookTrigger({ name: 'Other type', when: { eventType: 'note.created' } }));

    const first = await f.automation.ingest(f.owner.actor, event(), 'delivery-1');
    expect(first.duplicate).toBe(false);
    expect(first.runIds).toHaveLength(1);
    expect(first.event).toMatchObject({ contract: 'kgate.automation/1', type: 'form.submitted', source: 'forms', subject: 'r-1', data: { name: 'Ana' } });
    const run = await f.automation.getRun(f.owner.actor, first.runIds[0]!);
    expect(run).toMatchObject({ triggerId: matching.id, eventId: first.event.id, state: 'queued' });
    expect(run.steps.map((s) => s.step)).toEqual(['matched']);

    const before = await snapshot();
    // The same event again under its key (key order aside), and as CloudEvents: the stored event, nothing started.
    const again = await f.automation.ingest(f.owner.actor, { ...event({ name: 'Ana' }), subject: 'r-1' }, 'delivery-1');
    expect(again).toEqual({ event: first.event, duplicate: true, runIds: first.runIds });
    const cloud = await f.automation.ingest(
      f.admin.actor,
      { workspaceId: f.owner.workspaceId, specversion: '1.0', id: 'evt-9', source: 'forms', type: 'form.submitted', subject: 'r-1', data: { name: 'Ana' } },
      'delivery-1',
    );
    expect(cloud.duplicate).toBe(true);
    expect(await snapshot()).toEqual(before);

    // Conditions decide: Bea's submission starts both event triggers of its type.
    const bea = await f.automation.ingest(f.owner.actor, event({ name: 'Bea' }), nextKey());
    expect(bea.runIds).toHaveLength(2);
  });

  it('stores the event and its runs in the caller’s transaction: rolled back with it, nothing stays', async () => {
    const before = await snapshot();
    const error = await f.db
      .transaction(async (tx) => {
        const result = await f.automation.ingest(f.owner.actor, event(), nextKey(), tx);
        expect(result.runIds.length).toBeGreaterThan(0);
        throw new Error('the request failed after ingesting');
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('the request failed after ingesting');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses malformed, oversized, too deep, reused-key and unauthorized events, changing nothing', async () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < MAX_EVENT_DEPTH; i += 1) deep = { next: deep };
    const cases: Array<[string, () => Promise<unknown>, string, string?]> = [
      ['malformed type', () => f.automation.ingest(f.owner.actor, { ...event(), type: 'Not A Type' }, nextKey()), 'invalid_request', 'type'],
      ['unknown field', () => f.automation.ingest(f.owner.actor, { ...event(), extra: true }, nextKey()), 'invalid_request'],
      ['data not an object', () => f.automation.ingest(f.owner.actor, { ...event(), data: 'text' }, nextKey()), 'invalid_request', 'data'],
      ['CloudEvents binary data', () => f.automation.ingest(f.owner.actor, { workspaceId: f.owner.workspaceId, specversion: '1.0', id: 'x', source: 's', type: 'a.b', data_base64: 'AA==' }, nextKey()), 'invalid_request', 'data_base64'],
      ['oversized', () => f.automation.ingest(f.owner.actor, event({ blob: 'x'.repeat(MAX_EVENT_DATA_BYTES) }), nextKey()), 'payload_too_large', 'data'],
      ['too deep', () => f.automation.ingest(f.owner.actor, event(deep), nextKey()), 'invalid_request', 'data'],
      ['another event under a used key', () => f.automation.ingest(f.owner.actor, event({ name: 'Someone else' }), 'delivery-1'), 'idempotency_key_reused'],
      ['an editor', () => f.automation.ingest(f.editor.actor, event(), nextKey()), 'forbidden'],
      ['a viewer', () => f.automation.ingest(f.viewer.actor, event(), nextKey()), 'forbidden'],
      ['not a member', () => f.automation.ingest(f.stranger.actor, event(), nextKey()), 'not_found'],
    ];
    for (const [what, work, code, field] of cases) {
      const before = await snapshot();
      const refusal = await refusalOf(work);
      expect(refusal.code, what).toBe(code);
      if (field) expect(refusal.details?.field, what).toBe(field);
      expect(await snapshot(), what).toEqual(before);
    }
  });

  it('creates, changes under a version, and deletes triggers; schedules are due one interval on', async () => {
    const schedule = await f.automation.createTrigger(f.admin.actor, webhookTrigger({ name: 'Hourly', when: { everyMinutes: 60 } }));
    expect(schedule.version).toBe(1);
    expect(schedule.createdBy).toBe(f.admin.accountId);
    const dueIn = Date.parse(schedule.nextDueAt!) - f.clock.now().getTime();
    expect(dueIn).toBeGreaterThan(59 * 60_000);
    expect(dueIn).toBeLessThanOrEqual(60 * 60_000);

    const renamed = await f.automation.updateTrigger(f.owner.actor, schedule.id, { name: 'Every hour', expectedVersion: 1 });
    expect(renamed).toMatchObject({ name: 'Every hour', version: 2, nextDueAt: schedule.nextDueAt });
    const off = await f.automation.updateTrigger(f.owner.actor, schedule.id, { enabled: false });
    expect(off).toMatchObject({ enabled: false, version: 3, nextDueAt: null });
    const evented = await f.automation.updateTrigger(f.owner.actor, schedule.id, { enabled: true, when: { eventType: 'note.created', conditions: [{ field: 'source', equals: 'x' }] } });
    expect(evented).toMatchObject({ version: 4, nextDueAt: null, when: { eventType: 'note.created' } });

    const listed = await f.automation.listTriggers(f.admin.actor, f.owner.workspaceId);
    expect(listed[0]!.id).toBe(schedule.id);
    await f.automation.deleteTrigger(f.admin.actor, schedule.id);
    expect((await f.automation.listTriggers(f.admin.actor, f.owner.workspaceId)).some((t) => t.id === schedule.id)).toBe(false);
  });

  it('refuses trigger changes by the wrong people, on stale versions and with bad actions, changing nothing', async () => {
    const trigger = await f.automation.createTrigger(f.owner.actor, webhookTrigger({ name: 'Guarded' }));
    const elsewhere = await createOwner(f.services, 'elsewhere');
    const foreignEndpoint = '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b';
    const cases: Array<[string, () => Promise<unknown>, string, string?]> = [
      ['an editor creates', () => f.automation.createTrigger(f.editor.actor, webhookTrigger()), 'forbidden'],
      ['a viewer creates', () => f.automation.createTrigger(f.viewer.actor, webhookTrigger()), 'forbidden'],
      ['a stranger creates', () => f.automation.createTrigger(f.stranger.actor, webhookTrigger()), 'not_found'],
      ['an editor changes', () => f.automation.updateTrigger(f.editor.actor, trigger.id, { name: 'Mine' }), 'forbidden'],
      ['a viewer deletes', () => f.automation.deleteTrigger(f.viewer.actor, trigger.id), 'forbidden'],
      ['a stranger changes', () => f.automation.updateTrigger(f.stranger.actor, trigger.id, { name: 'Mine' }), 'not_found'],
      ['a stranger deletes', () => f.automation.deleteTrigger(f.stranger.actor, trigger.id), 'not_found'],
      ['a stranger lists', () => f.automation.listTriggers(f.stranger.actor, f.owner.workspaceId), 'not_found'],
      ['an editor lists', () => f.automation.listTriggers(f.editor.actor, f.owner.workspaceId), 'forbidden'],
      ['a stale version', () => f.automation.updateTrigger(f.owner.actor, trigger.id, { name: 'Late', expectedVersion: trigger.version + 1 }), 'conflict'],
      ['an unknown trigger', () => f.automation.updateTrigger(f.owner.actor, foreignEndpoint, { name: 'x' }), 'not_found'],
      ['a bad filter', () => f.automation.createTrigger(f.owner.actor, webhookTrigger({ when: { eventType: 'Form.*' } })), 'invalid_request', 'when.eventType'],
      ['a condition on an unknown field', () => f.automation.createTrigger(f.owner.actor, webhookTrigger({ when: { eventType: 'a.b', conditions: [{ field: 'receivedBy', equals: 'x' }] } })), 'invalid_request', 'when.conditions'],
      ['a zero interval', () => f.automation.createTrigger(f.owner.actor, webhookTrigger({ when: { everyMinutes: 0 } })), 'invalid_request'],
      ['another workspace’s mapping', () => f.automation.createTrigger(f.owner.actor, webhookTrigger({ action: { kind: 'propose', mappingId: elsewhere.mapping.id, title: 't', path: 'a.md', content: '' } })), 'invalid_request', 'action.mappingId'],
      ['an endpoint the workspace lacks', () => f.automation.createTrigger(f.owner.actor, webhookTrigger({ action: { kind: 'webhook', endpointIds: [foreignEndpoint] } })), 'invalid_request', 'action.endpointIds'],
    ];
    for (const [what, work, code, field] of cases) {
      const before = [await snapshot(), JSON.stringify(await f.automation.listTriggers(f.owner.actor, f.owner.workspaceId))];
      const refusal = await refusalOf(work);
      expect(refusal.code, what).toBe(code);
      if (field) expect(refusal.details?.field, what).toBe(field);
      expect([await snapshot(), JSON.stringify(await f.automation.listTriggers(f.owner.actor, f.owner.workspaceId))], what).toEqual(before);
    }
  });

  it(`holds a workspace to ${MAX_TRIGGERS_PER_WORKSPACE} triggers`, async () => {
    const other = await createOwner(f.services, 'many-triggers');
    for (let i = 0; i < MAX_TRIGGERS_PER_WORKSPACE; i += 1) {
      await f.automation.createTrigger(other.actor, { workspaceId: other.workspaceId, name: `t${i}`, when: { eventType: 'a.b' }, action: { kind: 'webhook' } });
    }
    const refusal = await refusalOf(() => f.automation.createTrigger(other.actor, { workspaceId: other.workspaceId, name: 'one more', when: { eventType: 'a.b' }, action: { kind: 'webhook' } }));
    expect(refusal.code).toBe('conflict');
    expect(await f.automation.listTriggers(other.actor, other.workspaceId)).toHaveLength(MAX_TRIGGERS_PER_WORKSPACE);
  });

  it('lists runs newest first, a page at a time, by trigger and state; a run of another workspace is not found', async () => {
    const trigger = await f.automation.createTrigger(f.owner.actor, webhookTrigger({ name: 'Paged', when: { eventType: 'paged.event' } }));
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(...(await f.automation.ingest(f.owner.actor, event({ i }, 'paged.event'), nextKey())).runIds);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await f.automation.listRuns(f.owner.actor, f.owner.workspaceId, { triggerId: trigger.id, limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((r) => r.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expect((await f.automation.listRuns(f.owner.actor, f.owner.workspaceId, { triggerId: trigger.id, state: 'succeeded' })).items).toEqual([]);

    // Deleting the trigger keeps its runs, with the trigger as it was.
    await f.automation.deleteTrigger(f.owner.actor, trigger.id);
    const kept = await f.automation.getRun(f.owner.actor, ids[0]!);
    expect(kept).toMatchObject({ triggerId: null, triggerName: 'Paged' });

    for (const [what, work, code] of [
      ['a stranger reads a run', () => f.automation.getRun(f.stranger.actor, ids[0]!), 'not_found'],
      ['an editor reads a run', () => f.automation.getRun(f.editor.actor, ids[0]!), 'forbidden'],
      ['a stranger lists runs', () => f.automation.listRuns(f.stranger.actor, f.owner.workspaceId), 'not_found'],
      ['a malformed run id', () => f.automation.getRun(f.owner.actor, 'nope'), 'not_found'],
      ['a malformed trigger id', () => f.automation.listRuns(f.owner.actor, f.owner.workspaceId, { triggerId: 'nope' }), 'invalid_request'],
    ] as const) {
      expect((await refusalOf(work)).code, what).toBe(code);
    }
  });
});
