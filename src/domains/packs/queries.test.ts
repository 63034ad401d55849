import { beforeAll, describe, expect, it } from 'vitest';
import { exampleStoredPack, packInfo } from '../../../test/support/pack-fixtures.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { StoredPack } from './contract.ts';
import { Slices } from '../../kernel/slices.ts';
import { buildPackView, createPackView } from './queries.ts';
import type { PackView } from './queries.ts';

let pack: StoredPack;
let view: PackView;

beforeAll(async () => {
  pack = await exampleStoredPack();
  view = createPackView(pack);
});

const ids = (asOf: string) => view.state({ asOf }).assertions.map((a) => a.id);

/** Asserts that `run` throws invalid_request naming `field`. */
function expectInvalid(run: () => unknown, field: string): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(KgateError);
  expect(caught).toMatchObject({ code: 'invalid_request', details: { field } });
}

const STANDARDS_2017 = ['unit-fractions-g3', 'number-line-g3', 'compare-fractions-g3', 'equivalent-fractions-g4', 'ratio-language-g6', 'calculators-g6-8'];
const GUIDANCE = ['length-models-first', 'explain-before-rule'];
const STANDARDS_2023 = ['unit-fractions-g3-2023', 'number-line-g3-2023', 'compare-fractions-g3-2023', 'ratio-language-g6-2023'];

describe('the example pack k8-math: state', () => {
  it('answers nothing before the 2017 standards were reported (2024-01-15)', () => {
    const answer = view.state({ asOf: '2024-01-14' });
    expect(answer).toEqual({
      pack: { product: 'tutor', pack: 'k8-math', title: 'Riverton K-8 mathematics standards and fractions guidance', version: 1, publishedAt: '2025-01-02T03:04:05.000Z' },
      asOf: '2024-01-14',
      total: 0,
      assertions: [],
    });
  });

  it('answers the 2017 assertions from 2024-01-15, then the guidance from 2024-02-20', () => {
    expect(ids('2024-01-15')).toEqual(STANDARDS_2017);
    expect(ids('2024-02-19')).toEqual(STANDARDS_2017);
    expect(ids('2024-02-20')).toEqual([...STANDARDS_2017, ...GUIDANCE]);
  });

  it('replaces the 2017 statements by the 2023 version and drops the retracted calculator policy on 2024-08-20', () => {
    expect(ids('2024-08-19')).toEqual([...STANDARDS_2017, ...GUIDANCE]);
    expect(ids('2024-08-20')).toEqual(['equivalent-fractions-g4', ...STANDARDS_2023, ...GUIDANCE]);
    expect(ids('2024-08-21')).toEqual(['equivalent-fractions-g4', ...STANDARDS_2023, ...GUIDANCE]);
  });

  it('answers each assertion with its evidence (source title, citation, extraction) and what it supersedes', () => {
    const answer = view.state({ asOf: '2024-08-20' }).assertions.find((a) => a.id === 'number-line-g3-2023');
    expect(answer).toEqual({
      id: 'number-line-g3-2023',
      statement: 'Grade 3 students place fractions, including fractions greater than 1, on a number line.',
      accepted: '2024-08-20',
      availableFrom: '2024-08-20',
      supersedes: ['number-line-g3'],
      evidence: [
        {
          source: 'state-math-standards',
          sourceTitle: 'Riverton State Mathematics Standards, Grades K-8',
          citation: 'https://standards.riverton.example/mathematics/k-8',
          version: '2023',
          extraction: 2,
          lines: [9, 9],
          quote: '3.NF.2 Represent fractions, including fractions greater than 1, on a number line diagram.',
        },
      ],
    });
  });

  it('answers an assertion superseded after the cutoff as current, with no mention of what supersedes it', () => {
    const asOf = '2024-08-19';
    const answers = [
      view.state({ asOf }),
      view.search({ asOf, question: 'number line fractions' }),
      view.changes({ from: '2024-01-01', asOf }),
      view.timeline({ asOf }),
      view.sources({ asOf }),
      view.insights({ asOf }),
    ];
    const state = answers[0] as ReturnType<PackView['state']>;
    expect(state.assertions.find((a) => a.id === 'number-line-g3')).toMatchObject({ supersedes: [], availableFrom: '2024-01-15' });
    const text = JSON.stringify(answers);
    for (const later of ['-2023', '2024-08-20', '2023-05-10', 'greater than 1', 'fractions-above-one']) expect(text).not.toContain(later);
  });
});

describe('the example pack k8-math: changes', () => {
  it('answers the day the 2023 standards arrived: four supersessions, one retraction, one insight each way', () => {
    expect(view.changes({ from: '2024-08-19', asOf: '2024-08-20' })).toEqual({
      pack: view.ref,
      from: '2024-08-19',
      asOf: '2024-08-20',
      added: STANDARDS_2023.map((id) => expect.objectContaining({ id, availableFrom: '2024-08-20' }) as unknown),
      superseded: [
        { id: 'unit-fractions-g3', statement: expect.any(String) as unknown, on: '2024-08-20', by: ['unit-fractions-g3-2023'] },
        { id: 'number-line-g3', statement: expect.any(String) as unknown, on: '2024-08-20', by: ['number-line-g3-2023'] },
        { id: 'compare-fractions-g3', statement: expect.any(String) as unknown, on: '2024-08-20', by: ['compare-fractions-g3-2023'] },
        { id: 'ratio-language-g6', statement: expect.any(String) as unknown, on: '2024-08-20', by: ['ratio-language-g6-2023'] },
      ],
      retracted: [{ id: 'calculators-g6-8', statement: 'Four-function calculators are allowed on all grade 6 to 8 assessments.', on: '2024-08-20' }],
      sourceVersionsAdded: [{ source: 'state-math-standards', title: 'Riverton State Mathematics Standards, Grades K-8', version: '2023', on: '2024-08-20' }],
      insightsAdded: [{ id: 'fractions-above-one', statement: expect.any(String) as unknown, on: '2024-08-20' }],
      insightsWithdrawn: [{ id: 'number-line-strand', statement: expect.any(String) as unknown, on: '2024-08-20' }],
      truncated: false,
    });
  });

  it('leaves out what both appeared and ended inside the interval, oldest first', () => {
    const answer = view.changes({ from: '2024-01-14', asOf: '2024-08-20' });
    expect(answer.added.map((a) => [a.id, a.availableFrom])).toEqual([
      ['equivalent-fractions-g4', '2024-01-15'],
      ['length-models-first', '2024-02-20'],
      ['explain-before-rule', '2024-02-20'],
      ...STANDARDS_2023.map((id) => [id, '2024-08-20']),
    ]);
    expect([answer.superseded, answer.retracted, answer.insightsWithdrawn]).toEqual([[], [], []]);
    expect(answer.insightsAdded.map((i) => i.id)).toEqual(['fractions-above-one']);
    expect(answer.sourceVersionsAdded.map((v) => [v.source, v.version, v.on])).toEqual([
      ['state-math-standards', '2017', '2024-01-15'],
      ['fractions-guidance', '2024', '2024-02-20'],
      ['state-math-standards', '2023', '2024-08-20'],
    ]);
  });

  it('is empty for an empty interval and state(from) minus the ended plus the added is state(asOf)', () => {
    const empty = view.changes({ from: '2024-08-20', asOf: '2024-08-20' });
    expect([empty.added, empty.superseded, empty.retracted, empty.sourceVersionsAdded, empty.insightsAdded, empty.insightsWithdrawn]).toEqual([[], [], [], [], [], []]);
    for (const [from, asOf] of [['2024-02-19', '2024-08-20'], ['2024-01-15', '2025-01-01'], ['2024-02-20', '2024-08-19']] as const) {
      const changes = view.changes({ from, asOf });
      const ended = new Set([...changes.superseded, ...changes.retracted].map((c) => c.id));
      const expected = [...ids(from).filter((id) => !ended.has(id)), ...changes.added.map((a) => a.id)].sort();
      expect(expected).toEqual([...ids(asOf)].sort());
    }
  });

  it('cuts each list at the limit and says so', () => {
    const answer = view.changes({ from: '2024-08-19', asOf: '2024-08-20', limit: 2 });
    expect(answer.added.map((a) => a.id)).toEqual(STANDARDS_2023.slice(0, 2));
    expect(answer.superseded).toHaveLength(2);
    expect(answer.retracted).toHaveLength(1);
    expect(answer.truncated).toBe(true);
  });

  it('refuses from after asOf, a date that is not one, and a limit out of bounds', () => {
    const before = JSON.stringify(view.changes({ from: '2024-01-01', asOf: '2024-12-31' }));
    expectInvalid(() => view.changes({ from: '2024-08-21', asOf: '2024-08-20' }), 'from');
    expectInvalid(() => view.changes({ from: '2024-02-30', asOf: '2024-08-20' }), 'from');
    expectInvalid(() => view.changes({ from: '2024-01-01', asOf: '20240820' }), 'asOf');
    expectInvalid(() => view.changes({ from: '2024-01-01', asOf: '2024-08-20', limit: 1001 }), 'limit');
    expectInvalid(() => view.changes({ from: '2024-01-01', asOf: '2024-08-20', limit: 0 }), 'limit');
    expect(JSON.stringify(view.changes({ from: '2024-01-01', asOf: '2024-12-31' }))).toBe(before);
  });
});

describe('the example pack k8-math: timeline, sources, insights', () => {
  it('lists the dates of the available source versions only, oldest first', () => {
    const events = (asOf: string) => view.timeline({ asOf }).events.map((e) => `${e.date} ${e.kind} ${e.source} ${e.version}`);
    expect(events('2024-08-19')).toEqual([
      '2017-06-01 published state-math-standards 2017',
      '2024-01-15 reported state-math-standards 2017',
      '2024-02-01 published fractions-guidance 2024',
      '2024-02-20 reported fractions-guidance 2024',
    ]);
    expect(events('2024-08-20')).toEqual([
      '2017-06-01 published state-math-standards 2017',
      '2023-05-10 published state-math-standards 2023',
      '2024-01-15 reported state-math-standards 2017',
      '2024-02-01 published fractions-guidance 2024',
      '2024-02-20 reported fractions-guidance 2024',
      '2024-08-20 reported state-math-standards 2023',
    ]);
    expect(events('2024-01-14')).toEqual([]);
  });

  it('lists the sources with an available version, its versions filtered and the current one by publication date', () => {
    const at = (asOf: string) => view.sources({ asOf });
    expect(at('2024-02-19')).toEqual({
      pack: view.ref,
      asOf: '2024-02-19',
      total: 1,
      sources: [
        {
          id: 'state-math-standards',
          title: 'Riverton State Mathematics Standards, Grades K-8',
          citation: 'https://standards.riverton.example/mathematics/k-8',
          current: '2017',
          versions: [{ version: '2017', published: '2017-06-01', reported: '2024-01-15', extraction: 1 }],
        },
      ],
    });
    const later = at('2024-08-20');
    expect(later.sources.map((s) => [s.id, s.current, s.versions.map((v) => v.version)])).toEqual([
      ['state-math-standards', '2023', ['2017', '2023']],
      ['fractions-guidance', '2024', ['2024']],
    ]);
  });

  it('answers the insights available: the number-line strand until its 2017 assertion is superseded', () => {
    const insights = (asOf: string) => view.insights({ asOf }).insights;
    expect(insights('2024-02-19')).toEqual([]);
    expect(insights('2024-02-20')).toEqual([
      { id: 'number-line-strand', statement: expect.any(String) as unknown, availableFrom: '2024-02-20', derivedFrom: ['number-line-g3', 'length-models-first'] },
    ]);
    expect(insights('2024-08-20').map((i) => i.id)).toEqual(['fractions-above-one']);
  });
});

describe('paging and cursors', () => {
  it('pages the state with a cursor to the end, the same as one page', () => {
    const asOf = '2024-08-20';
    const all = view.state({ asOf }).assertions;
    const pages = [];
    let cursor: string | undefined;
    do {
      const page = view.state({ asOf, limit: 3, cursor });
      expect(page.total).toBe(7);
      pages.push(page.assertions);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(all);
    expect('nextCursor' in view.state({ asOf, limit: 7 })).toBe(false);
  });

  it('pages the sources the same way', () => {
    const first = view.sources({ asOf: '2024-08-20', limit: 1 });
    expect(first.sources.map((s) => s.id)).toEqual(['state-math-standards']);
    const second = view.sources({ asOf: '2024-08-20', limit: 1, cursor: first.nextCursor });
    expect(second.sources.map((s) => s.id)).toEqual(['fractions-guidance']);
    expect(second.nextCursor).toBeUndefined();
  });

  it('refuses a cursor of another cutoff, answer or pack version, a forged one and a limit out of bounds', () => {
    const cursor = view.state({ asOf: '2024-08-20', limit: 2 }).nextCursor!;
    const sourcesCursor = view.sources({ asOf: '2024-08-20', limit: 1 }).nextCursor!;
    const other = createPackView({ ...pack, info: packInfo({ versionId: 'version-2', version: 2 }) });
    const before = JSON.stringify(view.state({ asOf: '2024-08-20', limit: 2, cursor }));
    expectInvalid(() => view.state({ asOf: '2024-08-21', limit: 2, cursor }), 'cursor');
    expectInvalid(() => view.sources({ asOf: '2024-08-20', limit: 2, cursor }), 'cursor');
    expectInvalid(() => view.state({ asOf: '2024-08-20', cursor: sourcesCursor }), 'cursor');
    expectInvalid(() => other.state({ asOf: '2024-08-20', limit: 2, cursor }), 'cursor');
    expectInvalid(() => view.state({ asOf: '2024-08-20', cursor: 'not-a-cursor' }), 'cursor');
    expectInvalid(() => view.state({ asOf: '2024-08-20', cursor: 'x'.repeat(5000) }), 'cursor');
    expectInvalid(() => view.state({ asOf: '2024-08-20', limit: 501 }), 'limit');
    expectInvalid(() => view.state({ asOf: '2024-08-20', limit: 2.5 }), 'limit');
    expectInvalid(() => view.sources({ asOf: '2024-08-20', limit: 0 }), 'limit');
    expectInvalid(() => view.state({ asOf: '2024-13-01' }), 'asOf');
    expect(JSON.stringify(view.state({ asOf: '2024-08-20', limit: 2, cursor }))).toBe(before);
    expect(view.state({ asOf: '2024-08-20', limit: 500 }).assertions).toHaveLength(7);
  });
});

describe('search', () => {
  it('finds the assertion current at the cutoff, and its successor after the supersession', () => {
    const top = (asOf: string) => view.search({ asOf, question: 'Place a fraction on a number line.' }).results[0];
    expect(top('2024-08-19')).toMatchObject({ id: 'number-line-g3', supersedes: [] });
    expect(top('2024-08-20')).toMatchObject({ id: 'number-line-g3-2023', supersedes: ['number-line-g3'] });
    expect(view.search({ asOf: '2024-01-14', question: 'number line' }).results).toEqual([]);
  });

  it('ranks by score then pack order, rounds scores to 4 decimals and honours the limit', () => {
    const answer = view.search({ asOf: '2024-08-20', question: 'grade fractions', limit: 50 });
    expect(answer.question).toBe('grade fractions');
    expect(answer.results.length).toBeGreaterThan(3);
    const ids = answer.results.map((r) => r.id);
    const position = (id: string) => pack.assertions.findIndex((a) => a.id === id);
    for (let k = 1; k < answer.results.length; k++) {
      const [a, b] = [answer.results[k - 1]!, answer.results[k]!];
      expect(a.score > b.score || (a.score === b.score && position(a.id) < position(b.id))).toBe(true);
      expect(Math.round(b.score * 10_000) / 10_000).toBe(b.score);
    }
    expect(view.search({ asOf: '2024-08-20', question: 'grade fractions', limit: 2 }).results.map((r) => r.id)).toEqual(ids.slice(0, 2));
    expect(view.search({ asOf: '2024-08-20', question: 'grade fractions' }).results.length).toBeLessThanOrEqual(10);
  });

  it('refuses an empty, wordless or too long question and a limit out of bounds', () => {
    expectInvalid(() => view.search({ asOf: '2024-08-20', question: '' }), 'question');
    expectInvalid(() => view.search({ asOf: '2024-08-20', question: '?! -- ...' }), 'question');
    expectInvalid(() => view.search({ asOf: '2024-08-20', question: 'a'.repeat(501) }), 'question');
    expectInvalid(() => view.search({ asOf: '2024-08-20', question: 'fractions', limit: 51 }), 'limit');
    expectInvalid(() => view.search({ asOf: 'yesterday', question: 'fractions' }), 'asOf');
    expect(view.search({ asOf: '2024-08-20', question: `fractions ${'a'.repeat(490)}` }).results.length).toBeGreaterThan(0);
  });
});

describe('buildPackView', () => {
  it('builds in slices, pausing between them, the same view as createPackView', async () => {
    let pauses = 0;
    // Every slice is due at once, so the build pauses after each assertion.
    const slices = new (class extends Slices {
      override due(): boolean {
        return true;
      }

      override async pause(): Promise<void> {
        pauses += 1;
        await super.pause();
      }
    })(0);
    const sliced = await buildPackView(pack, slices);
    expect(pauses).toBeGreaterThan(pack.assertions.length);
    for (const asOf of ['2024-01-15', '2024-08-19', '2024-08-20']) {
      expect(sliced.state({ asOf })).toEqual(view.state({ asOf }));
      expect(sliced.search({ asOf, question: 'fractions number line ratio' })).toEqual(view.search({ asOf, question: 'fractions number line ratio' }));
      expect(sliced.changes({ from: '2024-01-01', asOf })).toEqual(view.changes({ from: '2024-01-01', asOf }));
    }
  });
});
