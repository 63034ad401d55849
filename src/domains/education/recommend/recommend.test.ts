import { describe, expect, it } from 'vitest';
import { KgateError } from '../../../kernel/errors.ts';
import { deepShuffled, recommendRequest, seededRandom } from '../../../../test/support/education-analysis.ts';
import { contentFingerprint } from '../../../../test/support/education-fingerprint.ts';
import { RecommendInputSchema, type RecommendResult } from './contract.ts';
import { sketchSimilarity } from './near-duplicates.ts';
import { recommendArtifacts } from './recommend.ts';

const run = (request: unknown) => recommendArtifacts(RecommendInputSchema.parse(request));
const byId = (result: RecommendResult, id: string) => result.ranked.find((a) => a.id === id)!;

describe('artifact recommendations on the fixture', () => {
  const result = run(recommendRequest());

  it('ranks by the weighted factors, ties broken by id', () => {
    expect(result.ranked.map((a) => a.id).slice(0, 4)).toEqual(['art-ratio-worksheet-copy', 'art-ratio-worksheet-v2', 'art-razones-hoja', 'art-ratio-slides']);
    expect(result.ranked.map((a) => a.rank)).toEqual(result.ranked.map((_, k) => k + 1));
    const slides = byId(result, 'art-ratio-slides');
    expect(slides.score).toBe(0.9);
    expect(slides.signals.format).toMatchObject({ applies: true, weight: 0.1, score: 0, matched: false });
    expect(slides.signals.standard.matched).toEqual(['6.RP.A.2', 'CCSS.MATH.CONTENT.6.RP.A.3']);
    expect(byId(result, 'art-ratio-intro').signals.standard).toMatchObject({ score: 0.5, matched: [], related: ['6.RP.A.2', 'CCSS.MATH.CONTENT.6.RP.A.3'] });
  });

  it('recommends by the documented rules', () => {
    expect(byId(result, 'art-ratio-worksheet-v2')).toMatchObject({ recommendation: 'reuse', reasons: ['fits-goal'], cautions: [] });
    expect(byId(result, 'art-razones-hoja')).toMatchObject({ recommendation: 'translation', language: { artifact: 'es', target: 'en', matches: false } });
    expect(byId(result, 'art-ratio-slides').recommendation).toBe('format-conversion');
    expect(byId(result, 'art-ratio-worksheet-v1')).toMatchObject({ recommendation: 'differentiation', differentiation: { unmet: ['extension'] } });
    expect(byId(result, 'art-unit-rate-quiz')).toMatchObject({ recommendation: 'adaptation', actions: ['adaptation', 'format-conversion', 'differentiation'] });
    // en-GB serves learners of en: no translation.
    expect(byId(result, 'art-double-number-lines').language.matches).toBe(true);
    expect(byId(result, 'art-grade7-proportions').reasons).toContain('other-course');
  });

  it('groups near-duplicates by fingerprint and by metadata, and prefers the accepted, best, most recent one', () => {
    expect(result.nearDuplicates).toHaveLength(1);
    const [group] = result.nearDuplicates;
    expect(group).toMatchObject({ group: 'dup-1', ids: ['art-ratio-worksheet-copy', 'art-ratio-worksheet-v1', 'art-ratio-worksheet-v2'], preferred: 'art-ratio-worksheet-v2' });
    expect(group!.pairs.map((p) => p.reason)).toEqual(['same-title-format-language', 'content-fingerprint']);
    expect(byId(result, 'art-ratio-worksheet-copy').cautions).toEqual(['near-duplicate']);
    expect(byId(result, 'art-ratio-worksheet-v1').cautions).toEqual(['not-accepted', 'near-duplicate']);
  });

  it('answers ids and signals, never a title or a fingerprint', () => {
    const text = JSON.stringify(result);
    for (const candidate of recommendRequest().candidates) {
      expect(text).not.toContain(candidate.title as string);
      for (const hash of (candidate.fingerprint as string[] | undefined) ?? []) expect(text).not.toContain(hash);
    }
  });

  it('answers the same bytes for any order of the request\u2019s lists and keys', () => {
    const expected = JSON.stringify(result);
    for (let seed = 1; seed <= 25; seed++) expect(JSON.stringify(run(deepShuffled(recommendRequest(), seededRandom(seed))))).toBe(expected);
  });
});

describe('artifact recommendation rules and bounds', () => {
  const artifact = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    title: `Title of ${id}`,
    format: 'worksheet',
    language: 'en',
    accepted: true,
    updatedAt: '2025-01-01T00:00:00Z',
    ...extra,
  });

  it('weighs only the factors the goal asks about', () => {
    const result = run({ goal: { goalTags: ['fractions'] }, candidates: [artifact('a', { goalTags: ['Fractions'] }), artifact('b', { accepted: false })] });
    expect(byId(result, 'a')).toMatchObject({ score: 1, recommendation: 'reuse' });
    expect(byId(result, 'a').signals.course).toMatchObject({ applies: false, contribution: 0 });
    expect(byId(result, 'a').signals.goal.contribution).toBe(0.6667);
    expect(byId(result, 'b')).toMatchObject({ score: 0, recommendation: 'adaptation', cautions: ['not-accepted'] });
  });

  it('breaks ties by id', () => {
    const result = run({ goal: {}, candidates: [artifact('b'), artifact('a'), artifact('c')] });
    expect(result.ranked.map((a) => a.id)).toEqual(['a', 'b', 'c']);
  });

  it('estimates fingerprint similarity from bottom-k sketches', () => {
    const text = Array.from({ length: 120 }, (_, k) => `word${k % 37} term${k}`).join(' ');
    expect(sketchSimilarity(contentFingerprint(text), contentFingerprint(text))).toBe(1);
    expect(sketchSimilarity(contentFingerprint(text), contentFingerprint(`${text} and a few more words at the end`))).toBeGreaterThan(0.8);
    expect(sketchSimilarity(contentFingerprint(text), contentFingerprint('an entirely different text about something else, with many other words in it'))).toBe(0);
  });

  it('refuses two candidates of one id', () => {
    expect(() => run({ goal: {}, candidates: [artifact('a'), artifact('a', { format: 'quiz' })] })).toThrow(KgateError);
  });

  it('accepts 250 candidates and refuses 251', () => {
    const many = (n: number) => ({ goal: {}, candidates: Array.from({ length: n }, (_, k) => artifact(`a${k}`)) });
    expect(RecommendInputSchema.safeParse(many(250)).success).toBe(true);
    const refused = RecommendInputSchema.safeParse(many(251));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['candidates']);
  });
});
