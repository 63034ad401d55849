import { describe, expect, it } from 'vitest';
import { isKgateError } from '../../kernel/errors.ts';
import { TriggerCreateSchema, type Trigger } from '../../domains/automation/index.ts';
import { conditionsText, fieldsOfTrigger, parseConditions, readTriggerFields, triggerForm, triggerInputOf, NEW_TRIGGER } from './automation-trigger-form.ts';

const WORKSPACE = '3f0b8a52-4c0e-4f7e-9a51-0d6f0c1d2e3f';
const MAPPING = '6a1c2b3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const ENDPOINT = '0e9d8c7b-6a5f-4e3d-8c1b-0a9f8e7d6c5b';

function trigger(overrides: Partial<Trigger>): Trigger {
  return {
    id: '11111111-2222-4333-8444-555555555555',
    workspaceId: WORKSPACE,
    name: 'Contact form',
    enabled: true,
    when: { eventType: 'form.submitted' },
    action: { kind: 'webhook' },
    nextDueAt: null,
    createdBy: '99999999-2222-4333-8444-555555555555',
    createdAt: '2026-11-26T10:00:00.000Z',
    updatedAt: '2026-11-26T10:00:00.000Z',
    version: 1,
    ...overrides,
  };
}

/** The refusal `work` throws: its code and the field it names. */
function refusal(work: () => unknown): { code: string; field: unknown } {
  try {
    work();
  } catch (error) {
    if (isKgateError(error)) return { code: error.code, field: error.details?.field };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('the trigger form', () => {
  it('reads conditions as field=value lines: JSON literals as JSON, other text as text', () => {
    expect(parseConditions('data.form = contact\n\nsource=n8n\r\ndata.count=3\ndata.urgent=true\ndata.missing=null\ndata.code="3"\ndata.url=https://a.example/?q=1')).toEqual([
      { field: 'data.form', equals: 'contact' },
      { field: 'source', equals: 'n8n' },
      { field: 'data.count', equals: 3 },
      { field: 'data.urgent', equals: true },
      { field: 'data.missing', equals: null },
      { field: 'data.code', equals: '3' },
      { field: 'data.url', equals: 'https://a.example/?q=1' },
    ]);
  });

  it('writes conditions back so that they read the same again', () => {
    const conditions = [
      { field: 'data.form', equals: 'contact' },
      { field: 'data.code', equals: '3' },
      { field: 'data.flag', equals: 'true' },
      { field: 'data.count', equals: 3 },
      { field: 'data.none', equals: null },
      { field: 'data.blank', equals: '' },
      { field: 'data.spaced', equals: ' padded ' },
    ];
    expect(parseConditions(conditionsText(conditions))).toEqual(conditions);
  });

  it('refuses a line without a field, a bad quoted value and more than ten conditions, naming the field', () => {
    const cases = [
      () => parseConditions('no equals sign'),
      () => parseConditions('=value'),
      () => parseConditions('data.x="unterminated\\"'),
      () => parseConditions(Array.from({ length: 11 }, (_, i) => `data.f${i}=x`).join('\n')),
    ];
    for (const work of cases) expect(refusal(work)).toEqual({ code: 'invalid_request', field: 'conditions' });
  });

  it('turns an event form with a propose action into the contract shape the operation validates', () => {
    const form = new URLSearchParams({
      name: 'File contact requests',
      enabled: 'on',
      when: 'event',
      event_type: 'form.submitted',
      conditions: 'data.form=contact',
      every_minutes: '60',
      action: 'propose',
      mapping_id: MAPPING,
      title: 'Contact from {{event.data.name}}',
      path: 'Inbox/{{event.subject}}.md',
      content: '# {{event.data.name}}\n',
    });
    const input = triggerInputOf(readTriggerFields(form));
    expect(input).toEqual({
      name: 'File contact requests',
      enabled: true,
      when: { eventType: 'form.submitted', conditions: [{ field: 'data.form', equals: 'contact' }] },
      action: { kind: 'propose', mappingId: MAPPING, title: 'Contact from {{event.data.name}}', path: 'Inbox/{{event.subject}}.md', content: '# {{event.data.name}}\n' },
    });
    expect(TriggerCreateSchema.safeParse({ workspaceId: WORKSPACE, ...input }).success).toBe(true);
  });

  it('turns a schedule form with chosen endpoints into the contract shape; unchecked "enabled" is off', () => {
    const form = new URLSearchParams([
      ['name', 'Hourly'],
      ['when', 'schedule'],
      ['every_minutes', '60'],
      ['action', 'webhook'],
      ['endpoint_id', ENDPOINT],
    ]);
    const input = triggerInputOf(readTriggerFields(form));
    expect(input).toEqual({ name: 'Hourly', enabled: false, when: { everyMinutes: 60 }, action: { kind: 'webhook', endpointIds: [ENDPOINT] } });
    expect(TriggerCreateSchema.safeParse({ workspaceId: WORKSPACE, ...input }).success).toBe(true);
  });

  it('refuses minutes that are not a whole number and a propose action without a vault', () => {
    expect(refusal(() => triggerInputOf({ ...NEW_TRIGGER, whenKind: 'schedule', everyMinutes: '1.5' }))).toEqual({ code: 'invalid_request', field: 'every_minutes' });
    expect(refusal(() => triggerInputOf({ ...NEW_TRIGGER, actionKind: 'propose' }))).toEqual({ code: 'invalid_request', field: 'mapping_id' });
  });

  it('shows a stored trigger as the fields that save it unchanged', () => {
    const stored = trigger({
      when: { eventType: 'form.*', conditions: [{ field: 'data.form', equals: 'contact' }] },
      action: { kind: 'propose', mappingId: MAPPING, title: 'T', path: 'P.md', content: 'C' },
    });
    const { name, enabled, when, action } = stored;
    expect(triggerInputOf(fieldsOfTrigger(stored))).toEqual({ name, enabled, when, action });
    const schedule = trigger({ when: { everyMinutes: 15 }, action: { kind: 'webhook', endpointIds: [ENDPOINT] }, enabled: false });
    expect(triggerInputOf(fieldsOfTrigger(schedule))).toEqual({ name: schedule.name, enabled: false, when: schedule.when, action: schedule.action });
  });

  it('escapes what people wrote when it shows the form again', () => {
    const markup = triggerForm('/x', 'csrf-value', { ...NEW_TRIGGER, name: '"><script>alert(1)</script>', content: '</textarea><b>x</b>' }, { endpoints: [], vaults: [] }, 'new', 'Create').markup;
    expect(markup).not.toContain('<script>');
    expect(markup).not.toContain('</textarea><b>');
    expect(markup).toContain('&lt;/textarea&gt;&lt;b&gt;x&lt;/b&gt;');
  });
});
