/**
 * The timeline and the insights answer a page at a time, like the state and the sources: within the format's limits a
 * pack holds up to a million timeline events, too many for one tool answer.
 */
import { describe, expect, it } from 'vitest';
import { exampleStoredPack, smallPack } from '../../../test/support/pack-fixtures.ts';
import { createPackView } from './queries.ts';

describe('paged timeline and insights', () => {
  it('pages the timeline with a cursor bound to its list and cutoff', async () => {
    const view = createPackView(await exampleStoredPack());
    const whole = view.timeline({ asOf: '2025-01-01' });
    expect(whole.total).toBe(whole.events.length);
    expect(whole.nextCursor).toBeUndefined();
    const first = view.timeline({ asOf: '2025-01-01', limit: 2 });
    expect(first).toMatchObject({ total: whole.total, events: whole.events.slice(0, 2) });
    const second = view.timeline({ asOf: '2025-01-01', limit: 2, cursor: first.nextCursor });
    expect(second.events).toEqual(whole.events.slice(2, 4));
    expect(() => view.timeline({ asOf: '2024-12-31', cursor: first.nextCursor })).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => view.insights({ asOf: '2025-01-01', cursor: first.nextCursor })).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => view.timeline({ asOf: '2025-01-01', limit: 2001 })).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('pages the insights', () => {
    const view = createPackView(
      smallPack({
        sources: [{ id: 's', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-02' }] }],
        assertions: [{ id: 'a', accepted: '2024-01-03', cites: [['s', '1']] }],
        insights: ['i1', 'i2', 'i3'].map((id) => ({ id, availableFrom: '2024-01-04', derivedFrom: ['a'] })),
      }),
    );
    const whole = view.insights({ asOf: '2024-02-01' });
    expect(whole.insights.map((insight) => insight.id)).toEqual(['i1', 'i2', 'i3']);
    expect(whole.total).toBe(3);
    const first = view.insights({ asOf: '2024-02-01', limit: 2 });
    expect(first.insights).toEqual(whole.insights.slice(0, 2));
    const second = view.insights({ asOf: '2024-02-01', limit: 2, cursor: first.nextCursor });
    expect(second).toMatchObject({ total: 3, insights: whole.insights.slice(2) });
    expect(second.nextCursor).toBeUndefined();
    expect(view.insights({ asOf: '2024-01-03' })).toMatchObject({ total: 0, insights: [] });
  });
});
