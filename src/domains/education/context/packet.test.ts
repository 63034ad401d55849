import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isKgateError } from '../../../kernel/errors.ts';
import {
  EDUCATION_CONTEXT_LIMITS as LIMITS,
  EducationContextField,
  SUPPORT_CATEGORIES,
  parseEducationContext,
} from './index.ts';

// The packet's rules at their edges: each bound at the limit and one past it, group size four against five, the kind,
// the version, unknown fields, and the same rules when the packet is embedded in an operation's input.

const BASE = { kind: 'partner.education-context', version: 1 } as const;
const packet = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({ ...BASE, ...fields });
const support = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({ category: 'reading_support', learnerCount: 6, ...fields });

/** The code and details `thunk` is refused with; fails when it is accepted. */
function refusedWith(thunk: () => unknown): { code: string; details: Record<string, unknown> } {
  try {
    thunk();
  } catch (error) {
    if (isKgateError(error)) return { code: error.code, details: { ...error.details } };
    throw error;
  }
  throw new Error('accepted');
}

/** Parses `input`, proving that a refusal left it as it was. */
function codeOf(input: unknown): string {
  const before = JSON.stringify(input);
  let code = 'accepted';
  try {
    parseEducationContext(input);
  } catch (error) {
    if (!isKgateError(error)) throw error;
    code = error.code;
  }
  expect(JSON.stringify(input)).toBe(before);
  return code;
}

/** A compact JSON packet of exactly `bytes` bytes (UTF-8): every field within its own bound, notes of two-byte characters. */
function packetOfBytes(bytes: number): Record<string, unknown> {
  const supports = SUPPORT_CATEGORIES.slice(0, 16).map((category) => ({
    category,
    label: 'l'.repeat(LIMITS.labelLength),
    learnerCount: 500,
    note: 'n'.repeat(LIMITS.noteLength),
  }));
  const base = packet({ supports, notes: '' });
  const room = bytes - Buffer.byteLength(JSON.stringify(base));
  const notes = 'é'.repeat(Math.floor(room / 2)) + 'x'.repeat(room % 2);
  const result = packet({ supports, notes });
  expect(Buffer.byteLength(JSON.stringify(result))).toBe(bytes);
  expect(notes.length).toBeLessThanOrEqual(LIMITS.notesLength);
  return result;
}

describe('the education context packet', () => {
  it('is optional: absent answers undefined; null is not a packet', () => {
    expect(parseEducationContext(undefined)).toBeUndefined();
    expect(codeOf(null)).toBe('invalid_request');
  });

  it('accepts the smallest packet and answers it unchanged', () => {
    expect(parseEducationContext(packet())).toEqual(packet());
  });

  it('refuses another kind or version, and unknown fields, as invalid_request', () => {
    expect(codeOf({ ...BASE, kind: 'partner.education-context-v2' })).toBe('invalid_request');
    expect(codeOf({ ...BASE, version: 2 })).toBe('invalid_request');
    expect(codeOf({ ...BASE, version: 0 })).toBe('invalid_request');
    expect(codeOf({ kind: BASE.kind })).toBe('invalid_request');
    expect(codeOf(packet({ learners: ['Maria'] }))).toBe('invalid_request');
    expect(codeOf(packet({ supports: [support({ names: ['Maria'] })] }))).toBe('invalid_request');
  });

  it('accepts a group of five and refuses four as group_too_small, for the class and for each support', () => {
    expect(codeOf(packet({ learnerCount: 5 }))).toBe('accepted');
    expect(refusedWith(() => parseEducationContext(packet({ learnerCount: 4 })))).toEqual({
      code: 'group_too_small',
      details: { minimum: 5, fields: [{ field: 'learnerCount' }] },
    });
    expect(codeOf(packet({ supports: [support({ learnerCount: 5 })] }))).toBe('accepted');
    expect(refusedWith(() => parseEducationContext(packet({ supports: [support(), support({ category: 'extended_time', learnerCount: 4 })] })))).toEqual({
      code: 'group_too_small',
      details: { minimum: 5, fields: [{ field: 'supports.1.learnerCount' }] },
    });
    expect(codeOf(packet({ supports: [support({ learnerCount: 0 })] }))).toBe('group_too_small');
    expect(codeOf(packet({ supports: [support({ learnerCount: -1 })] }))).toBe('invalid_request');
  });

  it('holds each learner count to at most 1000 and a support to at most the class', () => {
    expect(codeOf(packet({ learnerCount: 1000, supports: [support({ learnerCount: 1000 })] }))).toBe('accepted');
    expect(codeOf(packet({ learnerCount: 1001 }))).toBe('invalid_request');
    expect(codeOf(packet({ supports: [support({ learnerCount: 1001 })] }))).toBe('invalid_request');
    expect(codeOf(packet({ learnerCount: 20, supports: [support({ learnerCount: 20 })] }))).toBe('accepted');
    expect(codeOf(packet({ learnerCount: 20, supports: [support({ learnerCount: 21 })] }))).toBe('invalid_request');
    expect(codeOf(packet({ learnerCount: 5.5 }))).toBe('invalid_request');
  });

  it('holds supports to 16, distinct by category and label, `other` with a label', () => {
    const categories = SUPPORT_CATEGORIES.filter((category) => category !== 'other');
    const supports = (n: number) => categories.slice(0, n).map((category) => support({ category }));
    expect(codeOf(packet({ supports: supports(16) }))).toBe('accepted');
    expect(codeOf(packet({ supports: supports(17) }))).toBe('invalid_request');
    expect(codeOf(packet({ supports: [support(), support()] }))).toBe('invalid_request');
    expect(codeOf(packet({ supports: [support({ label: 'Audio books' }), support({ label: 'audio books ' })] }))).toBe('invalid_request');
    expect(codeOf(packet({ supports: [support({ label: 'Audio books' }), support({ label: 'Phonics' })] }))).toBe('accepted');
    expect(codeOf(packet({ supports: [support({ category: 'other' })] }))).toBe('invalid_request');
    expect(codeOf(packet({ supports: [support({ category: 'other', label: 'Learners new to the school' })] }))).toBe('accepted');
    expect(codeOf(packet({ supports: [support({ category: 'students_with_ieps' })] }))).toBe('invalid_request');
  });

  it('holds every text field to its length, one past it refused', () => {
    const cases: Array<[string, number, (text: string) => Record<string, unknown>]> = [
      ['subject', LIMITS.subjectLength, (text) => packet({ subject: text })],
      ['courseRef', LIMITS.courseRefLength, (text) => packet({ courseRef: text })],
      ['label', LIMITS.labelLength, (text) => packet({ supports: [support({ label: text })] })],
      ['note', LIMITS.noteLength, (text) => packet({ supports: [support({ note: text })] })],
      ['notes', LIMITS.notesLength, (text) => packet({ notes: text })],
    ];
    for (const [name, limit, make] of cases) {
      expect(codeOf(make('x'.repeat(limit))), name).toBe('accepted');
      expect(codeOf(make('x'.repeat(limit + 1))), name).toBe('invalid_request');
    }
  });

  it('holds the whole packet to 8192 bytes of compact JSON, one past it refused', () => {
    expect(codeOf(packetOfBytes(LIMITS.maximumBytes))).toBe('accepted');
    expect(refusedWith(() => parseEducationContext(packetOfBytes(LIMITS.maximumBytes + 1)))).toEqual({
      code: 'invalid_request',
      details: { issues: [{ path: '', message: 'is 8193 bytes of JSON; at most 8192' }] },
    });
  });

  it('refuses blank text, control characters, and line breaks outside notes', () => {
    expect(codeOf(packet({ notes: ' \n ' }))).toBe('invalid_request');
    expect(codeOf(packet({ subject: 'Grade 7\u0000science' }))).toBe('invalid_request');
    expect(codeOf(packet({ subject: 'Grade 7\nscience' }))).toBe('invalid_request');
    expect(codeOf(packet({ notes: 'Visuals help.\nSentence frames help.\tAlways.' }))).toBe('accepted');
    expect(codeOf(packet({ supports: [support({ note: 'Visuals help.\nFrames help.' })] }))).toBe('accepted');
    expect(codeOf(packet({ courseRef: 'course 7' }))).toBe('invalid_request');
    expect(codeOf(packet({ gradeBand: '7' }))).toBe('invalid_request');
  });

  it('screens every free-text field and names the field and rules, never the text', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [packet({ subject: 'Tutoring plan for her' }), 'subject'],
      [packet({ supports: [support({ label: 'Maria has an IEP' })] }), 'supports.0.label'],
      [packet({ supports: [support(), support({ category: 'extended_time', note: 'He was absent.' })] }), 'supports.1.note'],
      [packet({ notes: 'Write to jake@school.org' }), 'notes'],
    ];
    for (const [input, field] of cases) {
      const { code, details } = refusedWith(() => parseEducationContext(input));
      expect(code, field).toBe('learner_specific_content');
      expect((details.fields as Array<{ field: string }>).map((finding) => finding.field)).toEqual([field]);
      expect(JSON.stringify(details)).not.toMatch(/Maria|absent|jake|her\b/);
    }
  });

  it('answers learner_specific_content before group_too_small when a packet has both', () => {
    const input = packet({ learnerCount: 3, notes: 'She needs visuals. Three students need glossaries.' });
    expect(refusedWith(() => parseEducationContext(input))).toEqual({
      code: 'learner_specific_content',
      details: { fields: [{ field: 'notes', rules: ['gendered_pronoun'] }] },
    });
    expect(refusedWith(() => parseEducationContext(packet({ learnerCount: 3, notes: 'Three students need glossaries.' })))).toEqual({
      code: 'group_too_small',
      details: { minimum: 5, fields: [{ field: 'learnerCount' }, { field: 'notes', rules: ['small_group_count'] }] },
    });
  });

  it('refuses structure first: a learner-specific note in a packet with an unknown field is invalid_request', () => {
    expect(codeOf(packet({ notes: 'Maria has an IEP', extra: true }))).toBe('invalid_request');
  });
});

describe('the packet embedded in an operation input', () => {
  const Input = z.strictObject({ goal: z.string().max(20), context: EducationContextField });

  it('is optional there too, and gives the same codes as parseEducationContext', () => {
    expect(Input.parse({ goal: 'plan' })).toEqual({ goal: 'plan' });
    expect(Input.parse({ goal: 'plan', context: packet({ learnerCount: 25 }) })).toEqual({ goal: 'plan', context: packet({ learnerCount: 25 }) });
    expect(refusedWith(() => Input.safeParse({ goal: 'plan', context: packet({ notes: 'Maria has an IEP' }) })).code).toBe('learner_specific_content');
    expect(refusedWith(() => Input.safeParse({ goal: 'plan', context: packet({ learnerCount: 4 }) })).code).toBe('group_too_small');
    const structural = Input.safeParse({ goal: 'plan', context: packet({ version: 2 }) });
    expect(structural.success).toBe(false);
    expect(structural.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['context.version']);
    expect(Input.safeParse({ goal: 'plan', context: null }).success).toBe(false);
  });

  it('publishes a strict JSON Schema: no unknown fields, the bounds as written', () => {
    const schema = z.toJSONSchema(Input, { io: 'input' });
    const context = schema.properties?.context as {
      additionalProperties: boolean;
      required: string[];
      properties: Record<string, Record<string, unknown>>;
    };
    expect(context.additionalProperties).toBe(false);
    expect(context.required.sort()).toEqual(['kind', 'version']);
    expect(context.properties.kind).toMatchObject({ const: 'partner.education-context' });
    expect(context.properties.supports).toMatchObject({ maxItems: LIMITS.maximumSupports });
    expect(context.properties.notes).toMatchObject({ maxLength: LIMITS.notesLength });
  });
});
