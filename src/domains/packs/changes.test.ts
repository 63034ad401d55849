import { describe, expect, it } from 'vitest';
import { smallPack } from '../../../test/support/pack-fixtures.ts';
import { createPackView } from './queries.ts';

const source = { id: 's', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-01' }] };

describe('changes: each assertion that ended is listed once', () => {
  const view = createPackView(
    smallPack({
      sources: [source],
      assertions: [
        // Superseded on 2024-03-01 and retracted the same day: listed as retracted.
        { id: 'both-same-day', accepted: '2024-01-01', retracted: '2024-03-01', cites: [['s', '1']] },
        // Superseded on 2024-03-01, retracted later: listed as superseded, on the day it ended.
        { id: 'superseded-first', accepted: '2024-01-01', retracted: '2024-04-01', cites: [['s', '1']] },
        // Retracted before its superseder came: listed as retracted.
        { id: 'retracted-first', accepted: '2024-01-01', retracted: '2024-02-01', cites: [['s', '1']] },
        { id: 'new', accepted: '2024-03-01', supersedes: ['both-same-day', 'superseded-first', 'retracted-first'], cites: [['s', '1']] },
        // Appeared and was retracted inside the interval: in no list.
        { id: 'brief', accepted: '2024-02-10', retracted: '2024-02-20', cites: [['s', '1']] },
      ],
    }),
  );

  it('under what ended it: the retraction when it came first or the same day, else the supersession', () => {
    const changes = view.changes({ from: '2024-01-15', asOf: '2024-12-31' });
    expect(changes.retracted.map((c) => [c.id, c.on])).toEqual([
      ['retracted-first', '2024-02-01'],
      ['both-same-day', '2024-03-01'],
    ]);
    expect(changes.superseded).toEqual([{ id: 'superseded-first', statement: 'Statement superseded-first.', on: '2024-03-01', by: ['new'] }]);
    expect(changes.added.map((a) => [a.id, a.supersedes])).toEqual([['new', ['both-same-day', 'superseded-first', 'retracted-first']]]);
  });

  it('lists what appeared and ended inside the interval nowhere, but as added when the interval ends before it did', () => {
    const whole = view.changes({ from: '2024-02-01', asOf: '2024-02-28' });
    expect(JSON.stringify(whole)).not.toContain('"brief"');
    expect(view.changes({ from: '2024-02-01', asOf: '2024-02-15' }).added.map((a) => a.id)).toEqual(['brief']);
    expect(view.changes({ from: '2024-02-15', asOf: '2024-02-28' }).retracted.map((c) => c.id)).toEqual(['brief']);
  });
});
