/**
 * Checks for understanding: a plan holds at least the scenario's minimum of checks for understanding: items of the
 * arrays under the named keys (default: checksForUnderstanding, exitTicket, quickChecks and the like), or, where
 * there is no such field, lines of text that name one (an exit ticket, a hinge question, a quick check...).
 */
import { noAnswer, result, type Check } from './types.ts';
import { stringsOf, valuesUnder } from './text.ts';

const DEFAULT_KEYS = ['checksForUnderstanding', 'checkForUnderstanding', 'checks', 'exitTicket', 'exitTickets', 'quickChecks', 'formativeChecks'];
/** Words that name a check for understanding in prose. */
export const CFU_WORDS =
  /\b(?:checks? for understanding|exit (?:ticket|slip)s?|hinge questions?|quick checks?|cold[- ]call|show[- ]me boards?|mini[- ]whiteboards?|thumbs[- ](?:up|check)|fist[- ]to[- ]five|turn[- ]and[- ]talk|think[- ]pair[- ]share|formative (?:check|assessment)s?)\b/i;

/** See the module comment. */
export const checksForUnderstanding: Check = (scenario, _request, envelope, facts) => {
  const asked = scenario.expect.checksForUnderstanding;
  if (!asked) return result('checks-for-understanding', 'not-applicable', 'This workflow asks for no checks for understanding.');
  const failed = noAnswer('checks-for-understanding', envelope, facts);
  if (failed) return failed;
  const keys = new Set(asked.keys ?? DEFAULT_KEYS);
  const fields = valuesUnder(envelope.data, (key) => keys.has(key));
  const structured = fields.reduce((sum, { value }) => sum + (Array.isArray(value) ? value.length : value === null || value === '' ? 0 : 1), 0);
  // In prose, each line that names a check is one (a plan in Markdown lists one a line or bullet).
  const prose = stringsOf(envelope.data).flatMap(({ path, text }) => text.split('\n').filter((line) => CFU_WORDS.test(line)).map(() => path));
  const count = structured > 0 ? structured : prose.length;
  const details = { min: asked.min, structured, fields: fields.map((f) => f.path), prose };
  if (count < asked.min) return result('checks-for-understanding', 'fail', `Found ${count} checks for understanding; at least ${asked.min} expected.`, details);
  return result('checks-for-understanding', 'pass', `Holds ${count} checks for understanding (${structured > 0 ? 'fields' : 'named in text'}).`, details);
};
