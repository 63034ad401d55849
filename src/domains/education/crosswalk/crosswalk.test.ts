import { describe, expect, it } from 'vitest';
import { KgateError } from '../../../kernel/errors.ts';
import { Slices } from '../../../kernel/slices.ts';
import { generateFrameworkPair } from '../../../../bench/education-analysis/generate.ts';
import { crosswalkRequest, deepShuffled, seededRandom, statementsOf } from '../../../../test/support/education-analysis.ts';
import { compareCodes, codeDomain, isCodeAncestor, normalizeCode, segmentsOf } from './codes.ts';
import { CrosswalkInputSchema, type CrosswalkResult } from './contract.ts';
import { crosswalkFrameworks, crosswalkInSlices } from './crosswalk.ts';
import { compareGrades, gradesOf, subjectsOf } from './levels.ts';
import { termsOf } from './text.ts';

const segments = (code: string) => segmentsOf(normalizeCode(code)!);
const run = (request: unknown, search: 'blocked' | 'exhaustive' = 'blocked') => crosswalkFrameworks(CrosswalkInputSchema.parse(request), search);
const candidate = (result: CrosswalkResult, sourceCode: string, targetCode: string) =>
  result.mappings.find((m) => m.sourceCode === sourceCode)?.candidates.find((c) => c.targetCode === targetCode);

describe('codes, grades, subjects and terms', () => {
  it('normalizes publishers\u2019 spellings of a code and compares them segment by segment', () => {
    expect(normalizeCode(' ccss.math.content.6.rp.a.01 ')).toBe('CCSS.MATH.CONTENT.6.RP.A.1');
    expect(normalizeCode('MA-6_RP 1/1')).toBe('MA.6.RP.1.1');
    expect(normalizeCode(' .. ')).toBeNull();
    expect(compareCodes(segments('6.RP.A.1'), segments('6.rp.a.01'))).toEqual({ match: 'exact', score: 1 });
    expect(compareCodes(segments('CCSS.Math.Content.6.RP.A.1'), segments('6.RP.A.1')).match).toBe('suffix');
    expect(compareCodes(segments('6.RP.A.1'), segments('6.RP.1'))).toEqual({ match: 'partial', score: 0.45 });
    // Siblings differ in their last segment: not a match at all.
    expect(compareCodes(segments('6.RP.A.1'), segments('6.RP.A.2')).match).toBe('different');
    expect(compareCodes(null, segments('6.RP.A.1'))).toEqual({ match: 'missing', score: 0.5 });
    expect(isCodeAncestor(segments('6.RP.A'), segments('6.RP.A.3'))).toBe(true);
    expect(isCodeAncestor(segments('CCSS.MATH.CONTENT.6.RP'), segments('6.RP.A.3'))).toBe(true);
    expect(isCodeAncestor(segments('6.RP.A.2'), segments('6.RP.A.3'))).toBe(false);
    expect(codeDomain(segments('MA.6.RP.1.1'))).toBe('RP');
    expect(codeDomain(segments('K.CC.1'))).toBe('CC');
    expect(codeDomain(segments('HSA-SSE.A.1'))).toBeNull();
  });

  it('reads grade levels as CASE and publishers write them', () => {
    expect(gradesOf(['KG', '01', 'Grade 2', '9-12', 'PS']).all).toEqual(['K', '1', '2', '9', '10', '11', '12', 'PS']);
    expect(gradesOf(['PK', 'K-2']).all).toEqual(['PK', 'K', '1', '2']);
    expect(compareGrades(gradesOf(['06']), gradesOf(['6'])).match).toBe('same');
    expect(compareGrades(gradesOf(['HS']), gradesOf(['09'])).match).toBe('overlap');
    expect(compareGrades(gradesOf(['06']), gradesOf(['07'])).match).toBe('adjacent');
    expect(compareGrades(gradesOf(['03']), gradesOf(['07'])).match).toBe('disjoint');
    expect(compareGrades(gradesOf([]), gradesOf(['07'])).match).toBe('unknown');
    expect(subjectsOf(['Math', 'English Language Arts & Literacy'])).toEqual(['english language arts', 'mathematics']);
  });

  it('reduces a statement to stemmed terms without stop words', () => {
    expect(termsOf('Students represent ratios, using the ratios\u2019 language; e.g. 3:2.')).toEqual(['2', '3', 'language', 'ratio', 'represent']);
  });
});

describe('the crosswalk of two CASE slices', () => {
  const result = run(crosswalkRequest());

  it('proposes the paraphrased standards, floors a declared exactMatchOf and leaves unmatched items unmapped', () => {
    expect(result.status).toBe('proposed');
    expect(result.review.required).toBe(true);
    expect(result.frameworks.relation).toBe('different');
    expect(candidate(result, '6.RP.A.3', 'MA.6.RP.1.3')).toMatchObject({ band: 'high', proposedAssociationType: 'exactMatchOf', status: 'proposed' });
    const declared = candidate(result, '6.RP.A.1', 'MA.6.RP.1.1')!;
    expect(declared.signals.framework.declared).toBe('exactMatchOf');
    expect(declared.confidence).toBe(0.9);
    expect(candidate(result, '6.NS.B.3', 'MA.6.NSO.2.3')?.signals.domain.match).toBe('different');
    // 6.SP.A.1 has no counterpart; MA.6.GR.1.1 none either.
    expect(result.mappings.some((m) => m.sourceCode === '6.SP.A.1')).toBe(false);
    const geometry = (crosswalkRequest().target.CFItems as Array<{ identifier: string; humanCodingScheme: string }>).find((i) => i.humanCodingScheme === 'MA.6.GR.1.1')!;
    expect(result.unmapped.target).toContain(geometry.identifier);
  });

  it('answers no statement text, and every candidate is a proposal with a rationale', () => {
    const text = JSON.stringify(result);
    const request = crosswalkRequest();
    for (const statement of [...statementsOf(request.source), ...statementsOf(request.target)]) expect(text).not.toContain(statement);
    for (const m of result.mappings) for (const c of m.candidates) expect(c.rationale.at(-1)).toMatch(/^Proposal only/);
  });

  it('answers the same bytes for any order of the slices\u2019 lists and keys', () => {
    const expected = JSON.stringify(result);
    for (let seed = 1; seed <= 20; seed++) expect(JSON.stringify(run(deepShuffled(crosswalkRequest(), seededRandom(seed))))).toBe(expected);
  });

  it('answers the same when computed in slices, pausing between them', async () => {
    let pauses = 0;
    const everyStep = new (class extends Slices {
      override due(): boolean {
        return true;
      }
      override async pause(): Promise<void> {
        pauses += 1;
        await super.pause();
      }
    })(0);
    const sliced = await crosswalkInSlices(CrosswalkInputSchema.parse(crosswalkRequest()), everyStep);
    expect(JSON.stringify(sliced)).toBe(JSON.stringify(result));
    expect(pauses).toBeGreaterThan((crosswalkRequest().source.CFItems as unknown[]).length);
  });

  it('finds the same candidates on the fixture by blocking as by comparing every pair', () => {
    expect(JSON.stringify(run(crosswalkRequest(), 'exhaustive').mappings)).toBe(JSON.stringify(result.mappings));
  });

  it('knows two versions of one framework: the same document, the same items', () => {
    const request = crosswalkRequest();
    const revised = structuredClone(request.source) as { CFItems: Array<{ fullStatement: string; humanCodingScheme: string }> };
    revised.CFItems.find((i) => i.humanCodingScheme === '6.RP.A.2')!.fullStatement = 'Understand what a unit rate is.';
    const same = run({ source: request.source, target: revised });
    expect(same.frameworks.relation).toBe('same-document');
    const rewritten = candidate(same, '6.RP.A.2', '6.RP.A.2')!;
    expect(rewritten.signals.framework.sameItemIdentifier).toBe(true);
    expect(rewritten.confidence).toBeGreaterThanOrEqual(0.95);
  });

  it('refuses a slice with two items of one identifier', () => {
    const request = crosswalkRequest();
    const items = request.source.CFItems as unknown[];
    items.push(structuredClone(items[0]));
    expect(() => run(request)).toThrow(KgateError);
  });
});

describe('blocking on generated frameworks', () => {
  it('keeps every high-band candidate of the exhaustive search and nearly all the others', () => {
    const pair = generateFrameworkPair(400, 7);
    const request = { source: pair.source, target: pair.target };
    const blocked = run(request);
    const exhaustive = run(request, 'exhaustive');
    const pairs = (r: CrosswalkResult, band?: string) =>
      r.mappings.flatMap((m) => m.candidates.filter((c) => band === undefined || c.band === band).map((c) => `${m.sourceIdentifier}>${c.targetIdentifier}`));
    const found = new Set(pairs(blocked));
    expect(pairs(exhaustive, 'high').filter((p) => !found.has(p))).toEqual([]);
    const all = pairs(exhaustive);
    expect(all.filter((p) => found.has(p)).length / all.length).toBeGreaterThan(0.97);
    expect(blocked.counts.comparedPairs).toBeLessThan(exhaustive.counts.comparedPairs / 4);
    // The generator's ground truth: the paraphrase is the first candidate of nearly every source standard.
    const first = new Map(blocked.mappings.map((m) => [m.sourceIdentifier, m.candidates[0]!.targetIdentifier]));
    const right = [...pair.truth].filter(([s, t]) => first.get(s) === t).length;
    expect(right / pair.truth.size).toBeGreaterThan(0.95);
  });
});
