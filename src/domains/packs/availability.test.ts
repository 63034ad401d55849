import { describe, expect, it } from 'vitest';
import { shiftDay, smallPack } from '../../../test/support/pack-fixtures.ts';
import { computeAvailability, isAvailableAt } from './availability.ts';
import { createPackView } from './queries.ts';
import type { PackView } from './queries.ts';

/**
 * A pack where each date kind alone decides one item's availability: the deciding date is later than every other
 * date the item depends on, so the item changes exactly on it.
 */
const datesPack = smallPack({
  sources: [
    { id: 'base', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-01' }] },
    // Published after it was reported: the publication date decides.
    { id: 'late-published', versions: [{ version: '1', published: '2024-03-10', reported: '2024-03-01' }] },
    // Reported after it was published: the reporting date decides.
    { id: 'late-reported', versions: [{ version: '1', published: '2024-01-01', reported: '2024-04-10' }] },
    // Cited by a superseding assertion accepted before this version was published.
    { id: 'superseder-source', versions: [{ version: '1', published: '2024-09-10', reported: '2024-08-01' }] },
  ],
  assertions: [
    { id: 'cites-late-published', accepted: '2024-03-01', cites: [['late-published', '1']] },
    { id: 'accepted-late', accepted: '2024-05-10', cites: [['base', '1']] },
    { id: 'retracted', accepted: '2024-01-05', retracted: '2024-06-10', cites: [['base', '1']] },
    { id: 'old', accepted: '2024-01-05', cites: [['base', '1']] },
    { id: 'new', accepted: '2024-07-10', supersedes: ['old'], cites: [['base', '1']] },
    { id: 'old-2', accepted: '2024-01-05', cites: [['base', '1']] },
    { id: 'new-2', accepted: '2024-08-01', supersedes: ['old-2'], cites: [['superseder-source', '1']] },
  ],
  insights: [
    { id: 'insight-late', availableFrom: '2024-10-10', derivedFrom: ['accepted-late'] },
    { id: 'insight-of-retracted', availableFrom: '2024-02-01', derivedFrom: ['retracted'] },
  ],
});

const view = createPackView(datesPack);
const stateIds = (v: PackView, asOf: string) => v.state({ asOf }).assertions.map((a) => a.id);
const sourceIds = (v: PackView, asOf: string) => v.sources({ asOf }).sources.map((s) => s.id);
const insightIds = (v: PackView, asOf: string) => v.insights({ asOf }).insights.map((i) => i.id);

/** Each date kind: its date, and whether the item is answered one day before, on, and one day after it. */
const cases: { kind: string; date: string; answered: (asOf: string) => boolean; expected: [boolean, boolean, boolean] }[] = [
  { kind: 'source published (source listed)', date: '2024-03-10', answered: (d) => sourceIds(view, d).includes('late-published'), expected: [false, true, true] },
  { kind: 'source published (its assertion)', date: '2024-03-10', answered: (d) => stateIds(view, d).includes('cites-late-published'), expected: [false, true, true] },
  { kind: 'source published (timeline)', date: '2024-03-10', answered: (d) => view.timeline({ asOf: d }).events.some((e) => e.source === 'late-published'), expected: [false, true, true] },
  { kind: 'source reported (source listed)', date: '2024-04-10', answered: (d) => sourceIds(view, d).includes('late-reported'), expected: [false, true, true] },
  { kind: 'source reported (timeline)', date: '2024-04-10', answered: (d) => view.timeline({ asOf: d }).events.some((e) => e.source === 'late-reported'), expected: [false, true, true] },
  { kind: 'assertion accepted', date: '2024-05-10', answered: (d) => stateIds(view, d).includes('accepted-late'), expected: [false, true, true] },
  { kind: 'assertion retracted', date: '2024-06-10', answered: (d) => stateIds(view, d).includes('retracted'), expected: [true, false, false] },
  { kind: 'superseding assertion accepted (the new one)', date: '2024-07-10', answered: (d) => stateIds(view, d).includes('new'), expected: [false, true, true] },
  { kind: 'superseding assertion accepted (the old one)', date: '2024-07-10', answered: (d) => stateIds(view, d).includes('old'), expected: [true, false, false] },
  // The superseding assertion was accepted on 2024-08-01 but is available only once its source is published.
  { kind: "superseding assertion's source published (the old one)", date: '2024-09-10', answered: (d) => stateIds(view, d).includes('old-2'), expected: [true, false, false] },
  { kind: "superseding assertion's source published (the new one)", date: '2024-09-10', answered: (d) => stateIds(view, d).includes('new-2'), expected: [false, true, true] },
  { kind: 'insight availableFrom', date: '2024-10-10', answered: (d) => insightIds(view, d).includes('insight-late'), expected: [false, true, true] },
  { kind: 'insight availableFrom (its own date)', date: '2024-02-01', answered: (d) => insightIds(view, d).includes('insight-of-retracted'), expected: [false, true, true] },
  { kind: "insight's assertion retracted", date: '2024-06-10', answered: (d) => insightIds(view, d).includes('insight-of-retracted'), expected: [true, false, false] },
];

describe('cutoffs one day before, on and one day after each date kind', () => {
  it.each(cases)('$kind ($date)', ({ date, answered, expected }) => {
    expect([answered(shiftDay(date, -1)), answered(date), answered(shiftDay(date, 1))]).toEqual(expected);
  });

  it('a superseding assertion names what it supersedes from the day it is available', () => {
    const newAt = (asOf: string) => view.state({ asOf }).assertions.find((a) => a.id === 'new');
    expect(newAt('2024-07-09')).toBeUndefined();
    expect(newAt('2024-07-10')?.supersedes).toEqual(['old']);
  });
});

describe('computeAvailability', () => {
  it('dates each item: sources by their later date, assertions by their sources, supersessions by the superseder', () => {
    const availability = computeAvailability(datesPack);
    expect(availability.sourceVersions).toEqual([['2024-01-01'], ['2024-03-10'], ['2024-04-10'], ['2024-09-10']]);
    const byId = Object.fromEntries(datesPack.assertions.map((a, i) => [a.id, availability.assertions[i]]));
    expect(byId['cites-late-published']).toEqual({ availableFrom: '2024-03-10', endsOn: undefined, supersededOn: undefined, supersededBy: [] });
    expect(byId['retracted']).toEqual({ availableFrom: '2024-01-05', endsOn: '2024-06-10', supersededOn: undefined, supersededBy: [] });
    expect(byId['old-2']).toEqual({ availableFrom: '2024-01-05', endsOn: '2024-09-10', supersededOn: '2024-09-10', supersededBy: ['new-2'] });
    expect(availability.insights).toEqual([
      { availableFrom: '2024-10-10', endsOn: undefined },
      { availableFrom: '2024-02-01', endsOn: '2024-06-10' },
    ]);
  });

  it('keeps a superseded assertion superseded when its superseder is retracted later (history is not rewritten)', () => {
    const pack = smallPack({
      sources: [{ id: 's', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-01' }] }],
      assertions: [
        { id: 'old', accepted: '2024-01-01', cites: [['s', '1']] },
        { id: 'new', accepted: '2024-02-01', retracted: '2024-03-01', supersedes: ['old'], cites: [['s', '1']] },
      ],
    });
    const ids = (asOf: string) => createPackView(pack).state({ asOf }).assertions.map((a) => a.id);
    expect(ids('2024-01-31')).toEqual(['old']);
    expect(ids('2024-02-01')).toEqual(['new']);
    expect(ids('2024-03-01')).toEqual([]);
    expect(ids('2025-01-01')).toEqual([]);
  });

  it('counts the earliest of several superseders, naming every one available that day, sorted', () => {
    const pack = smallPack({
      sources: [{ id: 's', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-01' }] }],
      assertions: [
        { id: 'old', accepted: '2024-01-01', cites: [['s', '1']] },
        { id: 'z-later', accepted: '2024-05-01', supersedes: ['old'], cites: [['s', '1']] },
        { id: 'y-first', accepted: '2024-03-01', supersedes: ['old', 'old'], cites: [['s', '1']] },
        { id: 'b-first', accepted: '2024-03-01', supersedes: ['old'], cites: [['s', '1']] },
      ],
    });
    expect(computeAvailability(pack).assertions[0]).toEqual({ availableFrom: '2024-01-01', endsOn: '2024-03-01', supersededOn: '2024-03-01', supersededBy: ['b-first', 'y-first'] });
  });

  it('counts a superseder from its availableFrom even when it is never available itself', () => {
    const pack = smallPack({
      sources: [
        { id: 's', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-01' }] },
        { id: 'late', versions: [{ version: '1', published: '2024-06-01', reported: '2024-02-01' }] },
      ],
      assertions: [
        { id: 'old', accepted: '2024-01-01', cites: [['s', '1']] },
        { id: 'never', accepted: '2024-02-01', retracted: '2024-03-01', supersedes: ['old'], cites: [['late', '1']] },
      ],
    });
    const [old, never] = computeAvailability(pack).assertions;
    expect(never).toMatchObject({ availableFrom: '2024-06-01', endsOn: '2024-03-01' });
    expect(['2024-02-15', '2024-06-01', '2025-01-01'].map((asOf) => isAvailableAt(never!, asOf))).toEqual([false, false, false]);
    expect(old).toEqual({ availableFrom: '2024-01-01', endsOn: '2024-06-01', supersededOn: '2024-06-01', supersededBy: ['never'] });
    const ids = (asOf: string) => createPackView(pack).state({ asOf }).assertions.map((a) => a.id);
    expect([ids('2024-05-31'), ids('2024-06-01')]).toEqual([['old'], []]);
  });

  it('ends every assertion of a chain of revisions made the same day, and a long chain in one pass', () => {
    const length = 20_000;
    const pack = smallPack({
      sources: [{ id: 's', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-01' }] }],
      assertions: Array.from({ length }, (_, k) => ({
        id: `a${k}`,
        accepted: shiftDay('2024-01-01', Math.floor(k / 100)),
        ...(k > 0 ? { supersedes: [`a${k - 1}`] } : {}),
        cites: [['s', '1']] as [string, string][],
      })),
    });
    const availability = computeAvailability(pack);
    expect(availability.assertions.map((a, k) => (a.endsOn === undefined ? k : -1)).filter((k) => k >= 0)).toEqual([length - 1]);
    // a0 to a99 were accepted on 2024-01-01; a98 ends the day it starts, and a97 ends that day too.
    expect(availability.assertions[97]).toMatchObject({ availableFrom: '2024-01-01', endsOn: '2024-01-01' });
    expect(availability.assertions[99]).toMatchObject({ availableFrom: '2024-01-01', endsOn: '2024-01-02' });
    expect(createPackView(pack).state({ asOf: '2024-01-01' }).assertions.map((a) => a.id)).toEqual(['a99']);
  });

  it('refuses a pack that breaks what publishing validated', () => {
    const base = { sources: [{ id: 's', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-01' }] }] };
    const cases = [
      () => computeAvailability(smallPack({ ...base, assertions: [{ id: 'a', accepted: '2024-01-01', cites: [['s', '2']] }] })),
      () => computeAvailability(smallPack({ ...base, assertions: [{ id: 'a', accepted: '2024-01-01', supersedes: ['nobody'], cites: [['s', '1']] }] })),
      () => computeAvailability(smallPack({ ...base, assertions: [], insights: [{ id: 'i', availableFrom: '2024-01-01', derivedFrom: ['nobody'] }] })),
    ];
    for (const run of cases) expect(run).toThrow(/unknown/);
  });
});
