import { describe, expect, it } from 'vitest';
import { KgateError } from '../../../kernel/errors.ts';
import { MAX_EVENT_DATA_BYTES, MAX_EVENT_DEPTH, type AutomationEvent } from '../contract.ts';
import { renderTemplate } from '../templating.ts';
import { conditionsHold, filterTakes } from '../triggers/match.ts';
import { eventFingerprint, normalizeEvent } from './normalize.ts';

const WS = '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b';

function refusal(raw: Record<string, unknown>): { code: string; details: unknown } {
  try {
    normalizeEvent(raw);
  } catch (error) {
    if (error instanceof KgateError) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('accepted');
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < depth; i += 1) value = { next: value };
  return value;
}

describe('normalizing events', () => {
  it("takes kgate's shape and CloudEvents 1.0 JSON to the same record", () => {
    const ours = normalizeEvent({ workspaceId: WS, type: 'form.submitted', source: 'forms', subject: 'r-1', occurredAt: '2026-11-01T10:00:00Z', data: { name: 'Ana' } });
    const cloud = normalizeEvent({
      workspaceId: WS,
      specversion: '1.0',
      id: 'producer-id-1',
      source: 'forms',
      type: 'form.submitted',
      subject: 'r-1',
      time: '2026-11-01T10:00:00Z',
      traceparent: '00-abc-def-01',
      datacontenttype: 'application/json',
      data: { name: 'Ana' },
    });
    expect(cloud).toEqual(ours);
    expect(eventFingerprint(cloud)).toBe(eventFingerprint(ours));
    // The producer's id is not the event's identity (the Idempotency-Key is) and no subject is invented from it.
    const other = normalizeEvent({ workspaceId: WS, specversion: '1.0', id: 'another-id', source: 'forms', type: 'form.submitted', subject: 'r-1', time: '2026-11-01T10:00:00Z', data: { name: 'Ana' } });
    expect(eventFingerprint(other)).toBe(eventFingerprint(ours));
    expect(normalizeEvent({ workspaceId: WS, specversion: '1.0', id: 'x', source: 's', type: 'a.b', data: {} }).subject).toBeNull();
  });

  it('fingerprints what the producer said, whatever the key order, and tells different events apart', () => {
    const a = normalizeEvent({ workspaceId: WS, type: 'a.b', source: 's', data: { x: 1, y: { p: 1, q: 2 } } });
    const b = normalizeEvent({ workspaceId: WS, type: 'a.b', source: 's', data: { y: { q: 2, p: 1 }, x: 1 } });
    const c = normalizeEvent({ workspaceId: WS, type: 'a.b', source: 's', data: { x: 2, y: { p: 1, q: 2 } } });
    expect(eventFingerprint(a)).toBe(eventFingerprint(b));
    expect(eventFingerprint(a)).not.toBe(eventFingerprint(c));
  });

  it('refuses malformed, unknown, oversized and too deep events with the field and the bound', () => {
    const base = { workspaceId: WS, type: 'form.submitted', source: 'forms', data: {} };
    const cases: Array<[Record<string, unknown>, string, unknown]> = [
      [{ ...base, type: 'Form Submitted' }, 'invalid_request', 'type'],
      [{ ...base, workspaceId: 'nope' }, 'invalid_request', 'workspaceId'],
      [{ ...base, data: [1, 2] }, 'invalid_request', 'data'],
      [{ ...base, extra: 1 }, 'invalid_request', '(event)'],
      [{ ...base, occurredAt: 'yesterday' }, 'invalid_request', 'occurredAt'],
      [{ ...base, specversion: '0.3', id: 'x' }, 'invalid_request', 'specversion'],
      [{ workspaceId: WS, specversion: '1.0', id: 'x', source: 's', type: 'a.b', datacontenttype: 'text/xml', data: {} }, 'invalid_request', 'datacontenttype'],
      [{ workspaceId: WS, specversion: '1.0', id: 'x', source: 's', type: 'a.b', data_base64: 'AAAA' }, 'invalid_request', 'data_base64'],
      [{ workspaceId: WS, specversion: '1.0', id: 'x', source: 's', type: 'a.b', data: {}, ext: { nested: true } }, 'invalid_request', 'ext'],
      [{ workspaceId: WS, specversion: '1.0', source: 's', type: 'a.b', data: {} }, 'invalid_request', 'id'],
      [{ ...base, data: { big: 'x'.repeat(MAX_EVENT_DATA_BYTES) } }, 'payload_too_large', 'data'],
      [{ ...base, data: nested(MAX_EVENT_DEPTH + 1) }, 'invalid_request', 'data'],
    ];
    for (const [raw, code, field] of cases) {
      const got = refusal(raw);
      expect(got.code, JSON.stringify(raw).slice(0, 80)).toBe(code);
      expect((got.details as { field?: unknown }).field).toBe(field);
    }
    expect(() => normalizeEvent({ ...base, data: nested(MAX_EVENT_DEPTH) })).not.toThrow();
  });
});

const EVENT: AutomationEvent = {
  contract: 'kgate.automation/1',
  id: WS,
  workspaceId: WS,
  type: 'form.submitted',
  source: 'forms',
  subject: 'r-1',
  occurredAt: '2026-11-01T10:00:00.000Z',
  receivedAt: '2026-11-01T10:00:01.000Z',
  data: { name: 'Ana', form: { id: 7 }, ok: true, none: null },
};

describe('matching and templates', () => {
  it('filters take exact types, prefixes under a dot, or everything', () => {
    expect(filterTakes('form.submitted', 'form.submitted')).toBe(true);
    expect(filterTakes('form.submitted', 'form.submitted.late')).toBe(false);
    expect(filterTakes('form.*', 'form.submitted')).toBe(true);
    expect(filterTakes('form.*', 'form')).toBe(false);
    expect(filterTakes('form.*', 'formal.x')).toBe(false);
    expect(filterTakes('*', 'anything.at.all')).toBe(true);
  });

  it('conditions compare exact values at dotted fields, and a missing field never equals', () => {
    expect(conditionsHold(EVENT, [{ field: 'data.form.id', equals: 7 }, { field: 'source', equals: 'forms' }])).toBe(true);
    expect(conditionsHold(EVENT, [{ field: 'data.form.id', equals: '7' }])).toBe(false);
    expect(conditionsHold(EVENT, [{ field: 'data.none', equals: null }])).toBe(true);
    expect(conditionsHold(EVENT, [{ field: 'data.missing', equals: null }])).toBe(false);
    expect(conditionsHold(EVENT, [{ field: 'data.name.length', equals: 3 }])).toBe(false);
    expect(conditionsHold(EVENT, [{ field: 'data.constructor', equals: null }])).toBe(false);
  });

  it('templates replace event values as text and evaluate nothing else', () => {
    expect(renderTemplate('Inbox/{{event.data.name}}.md', EVENT)).toBe('Inbox/Ana.md');
    expect(renderTemplate('{{ event.type }} from {{event.source}} {{event.data.form}}', EVENT)).toBe('form.submitted from forms {"id":7}');
    expect(renderTemplate('[{{event.data.missing}}] {{event.data.none}} {{ 1 + 1 }} {{process.env}}', EVENT)).toBe('[]  {{ 1 + 1 }} {{process.env}}');
  });
});
