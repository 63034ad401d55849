import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isKgateError } from '../../../kernel/errors.ts';
import { LEARNER_LANGUAGE_RULES, parseEducationContext, type ContextFinding } from './index.ts';

// The corpus of test/fixtures/education/context-packets: every acceptable packet is accepted unchanged; every
// unacceptable one is refused with the code its file name starts with (`<code>--<rule or reason>--<what>.json`). For
// learner_specific_content and group_too_small the middle part is the detector's rule that must be among the reported
// ones, or `count` for a learnerCount below five.

const CORPUS = new URL('../../../../test/fixtures/education/context-packets/', import.meta.url);
const files = (folder: string): string[] =>
  readdirSync(new URL(`${folder}/`, CORPUS))
    .filter((name) => name.endsWith('.json'))
    .sort();
const read = (folder: string, name: string): unknown => JSON.parse(readFileSync(new URL(`${folder}/${name}`, CORPUS), 'utf8'));

/** The free texts of a packet (subject, notes, each label and note). */
function freeTexts(packet: unknown): string[] {
  const { subject, notes, supports } = packet as { subject?: string; notes?: string; supports?: Array<{ label?: string; note?: string }> };
  return [subject, notes, ...(supports ?? []).flatMap((support) => [support.label, support.note])].filter((text): text is string => text !== undefined);
}

/** The refusal of `input`, or a failure when it is accepted or fails with something else. */
function refusal(input: unknown): { code: string; details: Record<string, unknown> } {
  try {
    parseEducationContext(input);
  } catch (error) {
    if (isKgateError(error)) return { code: error.code, details: { ...error.details } };
    throw error;
  }
  throw new Error('accepted');
}

describe('education context packet corpus', () => {
  it('holds at least 25 packets of each kind', () => {
    expect(files('acceptable').length).toBeGreaterThanOrEqual(25);
    expect(files('unacceptable').length).toBeGreaterThanOrEqual(25);
    expect(files('unacceptable').filter((name) => name.startsWith('learner_specific_content--')).length).toBeGreaterThanOrEqual(25);
  });

  it.each(files('acceptable'))('accepts %s unchanged', (name) => {
    const packet = read('acceptable', name);
    expect(parseEducationContext(packet)).toEqual(packet);
  });

  it.each(files('unacceptable'))('refuses %s with the code its name gives', (name) => {
    const [code, reason] = name.replace(/\.json$/, '').split('--');
    const packet = read('unacceptable', name);
    const before = JSON.stringify(packet);
    const { code: answered, details } = refusal(packet);
    expect(answered).toBe(code);
    // Refusing changed nothing of what it was given.
    expect(JSON.stringify(packet)).toBe(before);
    if (code === 'invalid_request') {
      expect(details.issues).not.toEqual([]);
      return;
    }
    const fields = details.fields as ContextFinding[];
    if (reason === 'count') {
      expect(fields.some((finding) => finding.field.endsWith('learnerCount'))).toBe(true);
    } else {
      expect(LEARNER_LANGUAGE_RULES).toContain(reason);
      expect(fields.flatMap((finding) => finding.rules ?? [])).toContain(reason);
    }
    // The refusal names fields and rules, never the text.
    const answer = JSON.stringify(details);
    for (const text of freeTexts(packet)) expect(answer).not.toContain(text);
  });
});
