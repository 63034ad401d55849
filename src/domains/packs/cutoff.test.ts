/**
 * "Nothing after the cutoff leaks" (docs/packs.md), as a property: at any cutoff, every answer on the full pack
 * equals the answer on the same pack with every item dated after the cutoff removed, search results and scores
 * included. Checked on the example pack and on seeded random packs, at every date an item carries, the day before
 * and the day after.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { datesOf, exampleStoredPack, packAtCutoff, randomPack, RANDOM_PACK_WORDS, shiftDay } from '../../../test/support/pack-fixtures.ts';
import type { StoredPack } from './contract.ts';
import { createPackView } from './queries.ts';
import type { PackView } from './queries.ts';

const QUESTIONS = ['fraction', 'number line', 'grade 3 students compare fractions', 'ratio tape diagram', 'calculator assessments', 'source whole part unit', RANDOM_PACK_WORDS.join(' ')];

/** Every answer of a view at a cutoff, pages followed to the end, so that two views can be compared whole. */
function everything(view: PackView, asOf: string, firstDate: string): unknown {
  const statePages = [];
  let cursor: string | undefined;
  do {
    const page = view.state({ asOf, limit: 7, cursor });
    statePages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const sourcePages = [];
  do {
    const page = view.sources({ asOf, limit: 2, cursor });
    sourcePages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const froms = [shiftDay(firstDate, -1), shiftDay(asOf, -30), shiftDay(asOf, -1), asOf].filter((from) => from <= asOf);
  return {
    statePages,
    sourcePages,
    timeline: view.timeline({ asOf }),
    insights: view.insights({ asOf }),
    changes: froms.map((from) => view.changes({ from, asOf, limit: 5 })).concat(froms.map((from) => view.changes({ from, asOf }))),
    search: QUESTIONS.map((question) => view.search({ asOf, question, limit: 50 })),
  };
}

/** The cutoffs to check: each date of the pack, the day before and the day after, and two far away. */
function cutoffsOf(pack: StoredPack): string[] {
  const dates = datesOf(pack);
  return [...new Set(['1999-01-01', ...dates.flatMap((date) => [shiftDay(date, -1), date, shiftDay(date, 1)]), '2099-12-31'])].sort();
}

const packs: [string, () => Promise<StoredPack>][] = [
  ['the example pack', exampleStoredPack],
  ['a random pack (seed 1)', () => Promise.resolve(randomPack(1, { sources: 8, assertions: 90, insights: 12 }))],
  ['a random pack (seed 2024)', () => Promise.resolve(randomPack(2024, { sources: 5, assertions: 60, insights: 8 }))],
];

describe.each(packs)('at every cutoff of %s, the answers equal those of the pack cut at that cutoff', (_, make) => {
  let pack: StoredPack;
  let full: PackView;
  beforeAll(async () => {
    pack = await make();
    full = createPackView(pack);
  });

  it('holds for state, sources, timeline, insights, changes and search', () => {
    const firstDate = datesOf(pack)[0]!;
    let cutsThatRemovedSomething = 0;
    let answersWithResults = 0;
    for (const cutoff of cutoffsOf(pack)) {
      const cut = packAtCutoff(pack, cutoff);
      if (JSON.stringify(cut) !== JSON.stringify(pack)) cutsThatRemovedSomething += 1;
      const expected = everything(createPackView(cut), cutoff, firstDate);
      const actual = everything(full, cutoff, firstDate);
      expect(actual, `at ${cutoff}`).toEqual(expected);
      if (full.search({ asOf: cutoff, question: 'fraction number line grade ratio' }).results.length > 0) answersWithResults += 1;
    }
    // The property is not vacuous: most cutoffs remove something, and most answer something.
    expect(cutsThatRemovedSomething).toBeGreaterThan(cutoffsOf(pack).length / 2);
    expect(answersWithResults).toBeGreaterThan(cutoffsOf(pack).length / 2);
  });
});

describe('the random packs exercise every rule the property covers', () => {
  it('hold supersessions, retractions, withdrawn insights and sources published after they were reported', () => {
    const pack = randomPack(1, { sources: 8, assertions: 90, insights: 12 });
    const view = createPackView(pack);
    const changes = view.changes({ from: '2023-12-31', asOf: '2099-12-31' });
    const ended = view.changes({ from: '2024-06-01', asOf: '2099-12-31' });
    expect(pack.sources.some((source) => source.versions.some((version) => version.published > version.reported))).toBe(true);
    expect(ended.superseded.length).toBeGreaterThan(0);
    expect(ended.retracted.length).toBeGreaterThan(0);
    expect(changes.added.length).toBeGreaterThan(0);
    expect(pack.insights.length).toBeGreaterThan(view.insights({ asOf: '2099-12-31' }).insights.length);
  });
});
