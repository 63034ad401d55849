import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QualityReviewInputSchema, checkQualityReview, locateExcerpt, measureReadingLevel, qualityReviewPrompt, type QualityReviewInput } from './index.ts';

type Json = Record<string, unknown>;
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../../../test/fixtures/education/drafts/${name}.json`, import.meta.url), 'utf8')) as Json;
const request = () => fixture('quality-request');
const output = () => fixture('quality-output') as Json & { findings: Json[]; dimensions: Json[] };
const input = (body: Json = request()): QualityReviewInput => QualityReviewInputSchema.parse(body);
const check = (answer: unknown, body?: Json) => checkQualityReview(typeof answer === 'string' ? answer : JSON.stringify(answer), input(body));
const problemsOf = (checked: ReturnType<typeof check>) => (checked.ok ? '' : checked.problems.join('\n'));

describe('excerpt location', () => {
  it('finds a quote as written, or with its white space re-wrapped, and nothing else', () => {
    const text = 'One two\n  three four. Five.';
    expect(locateExcerpt(text, 'three four')).toEqual({ start: 10, end: 20, excerpt: 'three four' });
    expect(locateExcerpt(text, 'two three')).toEqual({ start: 4, end: 15, excerpt: 'two\n  three' });
    expect(locateExcerpt(text, 'six')).toBeUndefined();
    expect(locateExcerpt(text, '   ')).toBeUndefined();
  });
});

describe('quality review answer', () => {
  it('merges kgate\u2019s reading level with the model\u2019s dimensions, each finding located in the artifact', () => {
    const checked = check(output());
    expect(problemsOf(checked)).toBe('');
    if (!checked.ok) return;
    const { value } = checked;
    const text = (request().artifact as { text: string }).text;
    expect(value.status).toBe('advisory');
    expect(value.dimensions.map((d) => [d.dimension, d.by])).toEqual([
      ['alignment', 'model'],
      ['source-support', 'model'],
      ['citations', 'model'],
      ['reading-level', 'kgate'],
      ['accessibility', 'model'],
      ['bias-risk', 'model'],
      ['assessment-validity', 'model'],
      ['policy-conflicts', 'model'],
    ]);
    for (const finding of value.findings) expect(text.slice(finding.location.start, finding.location.end)).toBe(finding.location.excerpt);
    expect(value.findings.map((f) => f.dimension)).toEqual(['alignment', 'citations', 'bias-risk']);
    const { expectedGrades, comparison, ...measures } = value.readingLevel;
    expect(measures).toEqual(measureReadingLevel(text));
    expect([expectedGrades, comparison]).toEqual([{ min: 6, max: 8 }, 'below']);
  });

  it('answers the same reading level whatever the model rates', () => {
    const other = output();
    other.dimensions = other.dimensions.map((d) => ({ ...d, rating: 'strong', summary: 'Reading level is grade 12.' }));
    other.findings = [];
    const a = check(output());
    const b = check(other);
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(b.value.readingLevel).toEqual(a.value.readingLevel);
    expect(b.value.dimensions[3]).toEqual(a.value.dimensions[3]);
  });

  it('finds a long sentence itself, and a text above the band', () => {
    const long = `${Array.from({ length: 30 }, () => 'considerably').join(' ')}.`;
    const body = request();
    body.artifact = { ...(body.artifact as Json), text: `Short start. ${long}` };
    const checked = check({ ...output(), findings: [] }, body);
    expect(problemsOf(checked)).toBe('');
    if (!checked.ok) return;
    expect(checked.value.readingLevel.comparison).toBe('above');
    expect(checked.value.dimensions[3]).toMatchObject({ dimension: 'reading-level', rating: 'needs-attention', by: 'kgate' });
    expect(checked.value.findings).toEqual([
      expect.objectContaining({ dimension: 'reading-level', by: 'kgate', location: { start: 13, end: 13 + long.length, excerpt: long.slice(0, 300) } }),
    ]);
  });

  it('finds every kind of invalid review', () => {
    const withFinding = (change: Json) => ({ ...output(), findings: [{ ...output().findings[0]!, ...change }] });
    const cases: Array<[string, unknown, string]> = [
      ['not JSON', '{"dimensions": [', 'not one JSON object'],
      ['a dimension missing', { ...output(), dimensions: output().dimensions.slice(1) }, 'dimensions'],
      ['a dimension twice', { ...output(), dimensions: [...output().dimensions.slice(1), output().dimensions[1]] }, 'alignment is not rated'],
      ['reading level from the model', { ...output(), dimensions: [...output().dimensions.slice(1), { dimension: 'reading-level', rating: 'strong', summary: 's' }] }, 'dimension'],
      ['a quote not in the artifact', withFinding({ excerpt: 'Girls are worse at fractions.' }), 'not a quote of the artifact'],
      ['an unsent policy', withFinding({ policies: ['pol-9'] }), 'policy that was not sent'],
      ['an unsent standard', withFinding({ standards: ['7.RP.A.2'] }), 'standard that was not sent'],
      ['an unsent source', withFinding({ sources: ['src-9'] }), 'source that was not sent'],
      ['a finding without a quote', { ...output(), findings: [{ ...output().findings[0]!, excerpt: undefined }] }, 'excerpt'],
    ];
    for (const [name, answer, problem] of cases) expect(problemsOf(check(answer)), name).toContain(problem);
  });

  it('puts the artifact in the data message, never in the instructions', () => {
    const prompt = qualityReviewPrompt(input());
    expect(prompt.messages[0]!.content).not.toContain('Boys usually');
    expect(prompt.messages[1]!.content).toContain('Boys usually');
  });
});
