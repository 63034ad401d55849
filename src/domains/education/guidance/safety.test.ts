import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizedText } from './normalize.ts';
import { GUIDANCE_SAFETY_VERSION, SAFETY_CHECKS, checkGuidanceText, linksOut, messagesDirectly, revealsAnswer, type WithheldReason } from './safety.ts';

// The corpus (test/fixtures/education/guidance/safety-corpus.json): per activity, texts a model might answer that
// must be delivered and texts that must be withheld with exactly their reasons.
interface Corpus {
  activities: Array<{ name: string; answerKey: string[]; pass: string[]; withhold: Array<{ text: string; reasons: WithheldReason[] }> }>;
}
const corpus = JSON.parse(readFileSync(new URL('../../../../test/fixtures/education/guidance/safety-corpus.json', import.meta.url), 'utf8')) as Corpus;

describe('the guidance safety corpus', () => {
  for (const activity of corpus.activities) {
    describe(activity.name, () => {
      it.each(activity.pass)('delivers: %s', (text) => {
        const verdict = checkGuidanceText(text, activity.answerKey);
        expect(verdict).toEqual({ checks: SAFETY_CHECKS.map((check) => ({ check, passed: true })), reasons: [], withheld: false });
      });
      it.each(activity.withhold.map((c) => [c.text, c.reasons] as const))('withholds: %s', (text, reasons) => {
        const verdict = checkGuidanceText(text, activity.answerKey);
        expect(verdict.withheld).toBe(true);
        expect(verdict.reasons).toEqual(reasons);
      });
    });
  }

  it('holds enough cases to mean something', () => {
    const counts = corpus.activities.reduce((sum, a) => ({ pass: sum.pass + a.pass.length, withhold: sum.withhold + a.withhold.length }), { pass: 0, withhold: 0 });
    expect(counts.pass).toBeGreaterThanOrEqual(30);
    expect(counts.withhold).toBeGreaterThanOrEqual(40);
  });
});

describe('normalization of answers', () => {
  it.each([
    ['Forty-Two', '42'],
    ['one hundred and five', '105'],
    ['two thousand three hundred', '2300'],
    ['seven eight', '7 8'],
    ['1,000,000 people', '1000000 people'],
    ['3.5 cm', '3.5 cm'],
    ['Café  au\tlait!', 'cafe au lait'],
    ['twenty one and twenty', '21 and 20'],
  ])('%s -> %s', (text, expected) => {
    expect(normalizedText(text)).toBe(expected);
  });
});

describe('the checks one by one', () => {
  it('finds an answer only as whole tokens', () => {
    expect(revealsAnswer('The answer is 420.', ['42'])).toBe(false);
    expect(revealsAnswer('cats and dogs', ['cat'])).toBe(false);
    expect(revealsAnswer('a cat', ['cat'])).toBe(true);
    expect(revealsAnswer('anything', ['?!'])).toBe(false);
    expect(revealsAnswer('education and location', ['cat'])).toBe(false);
    expect(revealsAnswer('photo-synthesis', ['photosynthesis'])).toBe(true);
    expect(revealsAnswer('photos synthesis', ['photosynthesis'])).toBe(false);
  });

  it('checks links and contacts apart', () => {
    expect(linksOut('write to me at a@b.com')).toBe(false);
    expect(messagesDirectly('write to me at a@b.com')).toBe(true);
    expect(linksOut('http://localhost:3000')).toBe(true);
    expect(messagesDirectly('5 + 100 - 20 - 30 = 55')).toBe(false);
    expect(messagesDirectly('The dm of this shape is 3.')).toBe(false);
  });

  it('names its version', () => {
    expect(GUIDANCE_SAFETY_VERSION).toMatch(/^student-guidance-safety\/\d+$/);
  });
});
