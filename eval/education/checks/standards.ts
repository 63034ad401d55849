/**
 * Standards visibility: every standard the request sent is visible in the answer (cited in a `standards` field or
 * named in its text), and the answer names no standard that was not sent (an invented or unauthorized code).
 */
import { noAnswer, result, type Check } from './types.ts';
import { referencesIn, requestRefs, stringsOf, valuesUnder } from './text.ts';

/**
 * What a standard code looks like in prose when the scenario gives no pattern: three or more segments joined by dots
 * or dashes, with a capital letter and a digit among them (6.RP.A.1, W.7.1, MS-LS1-6, CCSS.ELA-LITERACY.RL.7.2).
 */
export const DEFAULT_STANDARD_CODE = /\b[A-Z0-9]{1,12}(?:[.-][A-Za-z0-9]{1,12}){2,7}\b/g;

const STANDARD_KEYS = new Set(['standards', 'standard', 'standardCodes', 'standardCode', 'alignedStandards']);

function looksLikeCode(token: string): boolean {
  return /[A-Z]/.test(token) && /\d/.test(token);
}

/** See the module comment. */
export const standardsVisibility: Check = (scenario, request, envelope, facts) => {
  const failed = noAnswer('standards-visibility', envelope, facts);
  if (failed) return failed;
  const sent = scenario.expect.standards ?? requestRefs(request, ['standards', 'standard']);
  if (sent.length === 0) return result('standards-visibility', 'not-applicable', 'The request sent no standards.');
  const cited = new Set(valuesUnder(envelope.data, (key) => STANDARD_KEYS.has(key)).flatMap(({ value }) => referencesIn(value)));
  const texts = stringsOf(envelope.data).map((placed) => placed.text);
  const pattern = scenario.expect.standardCodePattern ? new RegExp(scenario.expect.standardCodePattern, 'g') : DEFAULT_STANDARD_CODE;
  const inProse = new Set(texts.flatMap((text) => [...text.matchAll(pattern)].map((match) => match[0])).filter((token) => scenario.expect.standardCodePattern !== undefined || looksLikeCode(token)));
  const visible = sent.filter((code) => cited.has(code) || texts.some((text) => text.includes(code)));
  const missing = sent.filter((code) => !visible.includes(code));
  // A longer form of a sent code (a framework prefix before it) is that code, not an invented one.
  const isSent = (token: string) => sent.some((code) => token === code || token.endsWith(`.${code}`) || token.endsWith(`-${code}`));
  const invented = [...new Set([...cited, ...inProse])].filter((token) => !isSent(token));
  const details = { sent, visible, missing, invented };
  if (missing.length > 0 || invented.length > 0) {
    const parts = [
      ...(missing.length > 0 ? [`not visible: ${missing.join(', ')}`] : []),
      ...(invented.length > 0 ? [`not sent: ${invented.join(', ')}`] : []),
    ];
    return result('standards-visibility', 'fail', `Standards ${parts.join('; ')}.`, details);
  }
  return result('standards-visibility', 'pass', `All ${sent.length} sent standards are visible and no other is named.`, details);
};
