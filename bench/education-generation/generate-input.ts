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
    intent: 'plan',
    course: { title: 'Grade 6 Mathematics', subject: 'mathematics', gradeBand: '6-8' },
    standards: [{ code: '6.RP.A.1', statement: 'Understand the concept of a ratio and use ratio language to describe a ratio relationship between two quantities.' }],
    sources: [{ id: 'source-1', title: 'Ratio tables lesson', excerpt: 'Students compare quantities with ratio tables and tape diagrams.' }],
    request: 'Plan three lessons introducing ratio language with checks for understanding.',
  };
}

const PARAGRAPH =
  'Day one introduces ratio language with a class survey of favourite fruits (source-1, 6.RP.A.1). Students describe ' +
  'the relationship between two quantities with sentences such as "for every two apples there are three pears". ' +
  'Check for understanding: each pair writes one ratio sentence on a mini whiteboard and explains it to the teacher. ';

/** A reply of about `chunks` × 12 characters (so that the fake can split it into `chunks` pieces). */
export function generateReply(chunks: number): string {
  const wanted = Math.max(chunks * 12, PARAGRAPH.length);
  let text = '# Ratio language: a three-day plan (proposed, for teacher review)\n\n';
  while (text.length < wanted) text += PARAGRAPH;
  return text;
}

/** One NDJSON event as the benchmark reads it: its kind, and for `done` whether it finished well. */
export interface ReadEvent {
  kind: 'ready' | 'delta' | 'done' | 'other';
  ok: boolean;
}

/** Reads one NDJSON line (the kind in `type`, `event` or `kind`). */
export function parseNdjsonEvent(line: string): ReadEvent {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { kind: 'other', ok: false };
  }
  const kind = value.type ?? value.event ?? value.kind;
  if (kind === 'ready' || kind === 'delta') return { kind, ok: true };
  if (kind === 'done') return { kind, ok: value.status === undefined || value.status === 'ok' };
  return { kind: 'other', ok: false };
}
