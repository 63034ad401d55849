/**
 * Accessibility, where the scenario asks for it: alt text present (a described image: a string of at least five words
 * under an `altText`/`alt` key), accessibility notes present (a non-empty field whose key names accessibility, or
 * prose that gives one: read aloud, screen reader, large print, captions...), and the learner-facing text within a reading band, measured with kgate's deterministic Flesch-Kincaid grade
 * (src/domains/education/quality/reading-level.ts), so the same text always gets the same grade.
 */
import { measureReadingLevel } from '../../../src/domains/education/quality/index.ts';
import { noAnswer, result, type Check } from './types.ts';
import { stringsAt, stringsOf, valuesUnder, wordCount } from './text.ts';

const ALT_KEYS = new Set(['altText', 'alt', 'alternativeText', 'imageAlt']);
/** Prose that gives an accessibility note (an answer in Markdown has no field for it). */
const ACCESSIBILITY_PROSE = /\baccessib\w*|\bscreen[- ]readers?\b|\bread (?:it |them )?aloud\b|\blarge print\b|\bcaptions?\b|\balt text\b/i;
/** Strings of fewer words are labels, codes or enum values, not prose a reader reads. */
const PROSE_WORDS = 4;

function present(value: unknown): boolean {
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.some(present);
  if (value !== null && typeof value === 'object') return Object.values(value).some(present);
  return false;
}

/** See the module comment. */
export const accessibility: Check = (scenario, _request, envelope, facts) => {
  const asked = scenario.expect.accessibility;
  if (!asked || (!asked.altText && !asked.notes && !asked.readingLevel)) {
    return result('accessibility', 'not-applicable', 'This scenario asks for no alt text, accessibility notes or reading band.');
  }
  const failed = noAnswer('accessibility', envelope, facts);
  if (failed) return failed;
  const problems: string[] = [];
  const details: Record<string, unknown> = {};
  if (asked.altText) {
    const alts = valuesUnder(envelope.data, (key) => ALT_KEYS.has(key)).filter(({ value }) => typeof value === 'string' && wordCount(value) >= 5);
    details.altText = alts.map((a) => a.path);
    if (alts.length === 0) problems.push('no alt text of at least five words');
  }
  if (asked.notes) {
    const fields = valuesUnder(envelope.data, (key) => /accessib/i.test(key)).filter(({ value }) => present(value));
    const prose = stringsOf(envelope.data).filter(({ text }) => ACCESSIBILITY_PROSE.test(text));
    const notes = [...fields, ...prose];
    details.notes = notes.map((n) => n.path);
    if (notes.length === 0) problems.push('no accessibility notes');
  }
  if (asked.readingLevel) {
    const band = asked.readingLevel;
    const texts = (band.paths ? stringsAt(envelope.data, band.paths) : stringsOf(envelope.data)).filter(({ text }) => wordCount(text) >= PROSE_WORDS);
    const level = measureReadingLevel(texts.map(({ text }) => text.trim().replace(/([^.!?])$/, '$1.')).join('\n\n'));
    const grade = level.fleschKincaidGrade;
    details.readingLevel = { grade, band: [band.minGrade, band.maxGrade], words: level.words, sentences: level.sentences };
    if (grade === null) problems.push('no learner-facing text to measure');
    else if (grade < band.minGrade || grade > band.maxGrade) problems.push(`reading grade ${grade} outside ${band.minGrade} to ${band.maxGrade}`);
  }
  if (problems.length > 0) return result('accessibility', 'fail', `Accessibility: ${problems.join('; ')}.`, details);
  return result('accessibility', 'pass', 'Alt text, accessibility notes and reading band as asked.', details);
};
