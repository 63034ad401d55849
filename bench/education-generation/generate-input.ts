/**
 * What the benchmark sends `generate` and what the fake model answers it, and how it reads the NDJSON events
 * (spec 6.3: `ready`, `delta`, `done`). The streamed series run only when kgate's operation table serves `generate`
 * with an NDJSON binding.
 */
import { OPERATIONS } from '../../src/surfaces/operations/table.ts';

/** The route of `generate`. */
export const GENERATE_PATH = '/api/product/v1/intelligence/education/generate';

/** True when `kgate serve` serves `generate` as an NDJSON stream. */
export function generateAvailable(): boolean {
  return OPERATIONS.some((operation) => (operation.product ?? []).some((binding) => binding.path === GENERATE_PATH && binding.stream === 'ndjson'));
}

/** A generate request: a weekly plan for one course and standard, with one selected source. */
export function generateRequest(): Record<string, unknown> {
  return {
    intent: 'weekly-plan',
    course: { title: 'Grade 6 Mathematics', subject: 'mathematics', gradeBand: '6-8' },
    standards: [
      {
        code: '6.RP.A.1',
        framework: 'Common Core State Standards for Mathematics',
        statement: 'Understand the concept of a ratio and use ratio language to describe a ratio relationship between two quantities.',
      },
    ],
    sources: [{ id: 'source-1', title: 'Ratio tables lesson', excerpt: 'Students compare quantities with ratio tables and tape diagrams.' }],
    request: 'Plan three lessons introducing ratio language with checks for understanding.',
    maxOutputTokens: 4000,
  };
}

const PARAGRAPH =
  'Day one introduces ratio language with a class survey of favourite fruits ([source: source-1], 6.RP.A.1). Students describe ' +
  'the relationship between two quantities with sentences such as "for every two apples there are three pears". ' +
  'Check for understanding: each pair writes one ratio sentence on a mini whiteboard and explains it to the teacher. ';

/** A reply of exactly `chunks` × 12 characters (at least a paragraph), which the fake splits into `chunks` pieces of 12. */
export function generateReply(chunks: number): string {
  const wanted = Math.max(chunks, Math.ceil(PARAGRAPH.length / 12)) * 12;
  let text = '# Ratio language: a three-day plan (proposed, for teacher review)\n\n';
  while (text.length < wanted) text += PARAGRAPH;
  return text.slice(0, wanted);
}

/** One NDJSON event as the benchmark reads it: its kind, and for `done` whether it finished well. */
export interface ReadEvent {
  kind: 'ready' | 'delta' | 'done' | 'other';
  ok: boolean;
  /** A delta's text ('' otherwise). */
  text: string;
}

/** Reads one NDJSON line: `{ type: 'ready' | 'delta' | 'done', ... }`, `done` carrying the V1 envelope. */
export function parseNdjsonEvent(line: string): ReadEvent {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { kind: 'other', ok: false, text: '' };
  }
  const kind = value.type;
  if (kind === 'ready') return { kind, ok: true, text: '' };
  if (kind === 'delta') return { kind, ok: true, text: typeof value.text === 'string' ? value.text : '' };
  if (kind === 'done') return { kind, ok: (value.envelope as { status?: unknown } | undefined)?.status === 'ok', text: '' };
  return { kind: 'other', ok: false, text: '' };
}
