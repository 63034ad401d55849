import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AssessmentDraftInputSchema, assessmentDraftPrompt, checkAssessmentDraft, type AssessmentDraftInput } from './index.ts';

type Json = Record<string, unknown>;
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../../../test/fixtures/education/drafts/${name}.json`, import.meta.url), 'utf8')) as Json;
const request = () => fixture('assessment-request');
const output = () => fixture('assessment-output') as Json & { items: Json[] };
const input = (body: Json = request()): AssessmentDraftInput => AssessmentDraftInputSchema.parse(body);
const check = (answer: unknown, body?: Json) => checkAssessmentDraft(typeof answer === 'string' ? answer : JSON.stringify(answer), input(body));
const problemsOf = (checked: ReturnType<typeof check>) => (checked.ok ? '' : checked.problems.join('\n'));

describe('assessment draft request', () => {
  it('accepts the fixture, and refuses DOK level 5 or 0, unknown item types, too many items, and an unsent standard on a target', () => {
    expect(AssessmentDraftInputSchema.safeParse(request()).success).toBe(true);
    const bad: Json[] = [
      { ...request(), dokLevels: [2, 5] },
      { ...request(), dokLevels: [0] },
      { ...request(), itemTypes: ['essay'] },
      { ...request(), itemCount: 21 },
      { ...request(), itemCount: 0 },
      { ...request(), itemTypes: ['short-answer', 'short-answer'] },
      { ...request(), learningTargets: [{ id: 'lt-9', statement: 'I can.', standards: ['7.RP.A.2'], reviewed: true }] },
      { ...request(), learningTargets: [{ id: 'lt-9', statement: 'I can.', standards: ['6.RP.A.1'], reviewed: false }] },
      { ...request(), rosterIds: ['a'] },
    ];
    expect(bad.map((body) => AssessmentDraftInputSchema.safeParse(body).success)).toEqual(bad.map(() => false));
  });

  it('bounds the answer by the items asked', () => {
    expect(assessmentDraftPrompt(input()).maxOutputTokens).toBe(600 + 450 * 3);
  });
});

describe('assessment draft answer', () => {
  it('presents a valid draft with the coverage computed from its items', () => {
    const checked = check(output());
    expect(problemsOf(checked)).toBe('');
    if (!checked.ok) return;
    expect(checked.value.status).toBe('proposed');
    expect(checked.value.draft.items).toHaveLength(3);
    expect(checked.value.coverage).toEqual({
      byType: [
        { type: 'multiple-choice', items: 1 },
        { type: 'short-answer', items: 1 },
        { type: 'constructed-response', items: 1 },
      ],
      byDokLevel: [
        { level: 1, items: 1 },
        { level: 2, items: 1 },
        { level: 3, items: 1 },
      ],
      byStandard: [
        { code: '6.RP.A.1', items: 2 },
        { code: '6.RP.A.3', items: 2 },
      ],
    });
  });

  it('finds every kind of invalid draft', () => {
    const withItem = (o: ReturnType<typeof output>, index: number, change: Json) => ({ ...o, items: o.items.map((item, k) => (k === index ? { ...item, ...change } : item)) });
    const cases: Array<[string, unknown, string]> = [
      ['not JSON', 'I drafted three items for you.', 'not one JSON object'],
      ['too few items', { ...output(), items: output().items.slice(0, 2) }, '2 items, 3 asked'],
      ['an unsent standard', withItem(output(), 0, { standards: ['7.RP.A.2'] }), 'standard that was not sent'],
      ['an unsent target', withItem(output(), 0, { learningTargets: ['lt-9'] }), 'target that was not sent'],
      ['an unsent source', withItem(output(), 1, { sources: ['src-9'] }), 'source that was not sent'],
      ['a type not asked', withItem(output(), 1, { type: 'sort', categories: ['a', 'b'], cards: ['x', 'y', 'z'], answerKey: { placements: [{ card: 0, category: 0 }, { card: 1, category: 1 }, { card: 2, category: 0 }], rationale: 'r' } }), 'sort was not asked'],
      ['a level not asked', withItem(output(), 2, { dokLevel: 4 }), 'level 4 was not asked'],
      ['a level 5', withItem(output(), 2, { dokLevel: 5 }), 'dokLevel'],
      ['an asked level unused', withItem(output(), 2, { dokLevel: 2 }), 'no item at the asked DOK level 3'],
      ['a key naming no option', withItem(output(), 0, { answerKey: { correct: 'D', rationale: 'r' } }), 'distinct options'],
      ['numbers out of order', withItem(output(), 0, { number: 2 }), 'numbered'],
      ['a grade for a learner', { ...output(), scores: [] }, 'scores'],
    ];
    for (const [name, answer, problem] of cases) expect(problemsOf(check(answer)), name).toContain(problem);
  });
});
