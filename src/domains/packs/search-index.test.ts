import { describe, expect, it } from 'vitest';
import { smallPack } from '../../../test/support/pack-fixtures.ts';
import { KgateError } from '../../kernel/errors.ts';
import { createPackView } from './queries.ts';
import { dayNumber, IntervalTable } from './interval-table.ts';
import { PackSearchIndex, questionWords } from './search-index.ts';

const base = { sources: [{ id: 's', title: 'Geometry Framework', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-01' }] }] };

describe('the pack search index', () => {
  it('weights the statement above the evidence quote, and matches source titles', () => {
    const pack = smallPack({
      ...base,
      assertions: [
        { id: 'in-quote', statement: 'Students reason about shapes.', quote: 'Classify triangles by their angles.', accepted: '2024-01-01', cites: [['s', '1']] },
        { id: 'in-statement', statement: 'Students classify triangles.', quote: 'Reason about shapes and angles.', accepted: '2024-01-01', cites: [['s', '1']] },
        { id: 'unrelated', statement: 'Students add fractions.', quote: 'Add and subtract fractions.', accepted: '2024-01-01', cites: [['s', '1']] },
      ],
    });
    const view = createPackView(pack);
    expect(view.search({ asOf: '2024-01-01', question: 'triangles' }).results.map((r) => r.id)).toEqual(['in-statement', 'in-quote']);
    expect(view.search({ asOf: '2024-01-01', question: 'geometry' }).results.map((r) => r.id).sort()).toEqual(['in-quote', 'in-statement', 'unrelated']);
  });

  it('matches any word of the question, so a natural question finds partial matches', () => {
    const view = createPackView(
      smallPack({ ...base, assertions: [{ id: 'a', statement: 'Students classify triangles.', accepted: '2024-01-01', cites: [['s', '1']] }] }),
    );
    expect(view.search({ asOf: '2024-01-01', question: 'How should teachers introduce triangles?' }).results.map((r) => r.id)).toEqual(['a']);
    expect(view.search({ asOf: '2024-01-01', question: 'nothing here matches' }).results).toEqual([]);
  });

  it('scores with the statistics of the available assertions only', () => {
    const early = { id: 'early', statement: 'Triangles have three sides.', accepted: '2024-01-01', cites: [['s', '1']] as [string, string][] };
    const later = { id: 'later', statement: 'Triangles tile the plane; squares do too.', accepted: '2024-06-01', cites: [['s', '1']] as [string, string][] };
    const withLater = createPackView(smallPack({ ...base, assertions: [early, later] }));
    const alone = createPackView(smallPack({ ...base, assertions: [early] }));
    const question = { asOf: '2024-05-31', question: 'triangles sides' };
    expect(withLater.search(question)).toEqual(alone.search(question));
    expect(withLater.search({ ...question, asOf: '2024-06-01' }).results[0]!.score).not.toBe(alone.search(question).results[0]!.score);
  });

  it('counts the available documents from its availability events', () => {
    const index = PackSearchIndex.build(
      [
        { statement: 'a', quotes: [], sourceTitles: [] },
        { statement: 'b', quotes: [], sourceTitles: [] },
        { statement: 'c', quotes: [], sourceTitles: [] },
      ],
      new IntervalTable([
        { availableFrom: '2024-01-01' },
        { availableFrom: '2024-02-01', endsOn: '2024-03-01' },
        // An empty interval: never available, and it must not make the count negative.
        { availableFrom: '2024-05-01', endsOn: '2024-04-01' },
      ]),
    );
    expect(['2023-12-31', '2024-01-01', '2024-02-01', '2024-03-01', '2024-04-15', '2024-05-01'].map((asOf) => index.availableCount(asOf))).toEqual([0, 1, 2, 1, 1, 1]);
    expect(index.search(['c'], '2024-05-01', 10)).toEqual([]);
  });

  it('reads a question into its distinct folded words, and refuses one without words or too long', () => {
    expect(questionWords('Café, CAFE and café?')).toEqual(['cafe', 'and']);
    const refusals = [() => questionWords(''), () => questionWords('... ?'), () => questionWords('x'.repeat(501))];
    for (const run of refusals) expect(run).toThrow(KgateError);
    expect(questionWords('x'.repeat(500))).toEqual(['x'.repeat(64)]);
  });

  it('orders dates as numbers the way they order as strings', () => {
    const dates = ['1999-12-31', '2024-01-01', '2024-01-31', '2024-02-01', '2024-12-31', '2025-01-01'];
    expect(dates.map(dayNumber)).toEqual([19991231, 20240101, 20240131, 20240201, 20241231, 20250101]);
  });
});
