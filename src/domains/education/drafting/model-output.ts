/**
 * Reading a model's answer: one JSON object, checked against a strict schema, and then against the request (what the
 * model may cite is what was sent). Pure: the operation turns a refusal into `model_output_invalid`.
 */
import type { z } from 'zod';

/** A model answer that passed every check, or the problems that made it invalid (at most 20, for the details). */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** The most problems reported for one invalid answer. */
const MAX_PROBLEMS = 20;

/** An invalid answer with its problems, bounded. */
export function invalid<T>(problems: readonly string[]): Checked<T> {
  return { ok: false, problems: problems.slice(0, MAX_PROBLEMS) };
}

/**
 * Parses the model's text as one JSON object and checks it against `schema`. A text that is not JSON (prose, a
 * Markdown fence, two objects) is invalid: the prompt asks for one object and nothing else.
 */
export function parseModelObject<S extends z.ZodType>(text: string, schema: S): Checked<z.output<S>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid(['the answer is not one JSON object']);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return invalid(['the answer is not one JSON object']);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return invalid(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(answer)'}: ${issue.message}`));
  }
  return { ok: true, value: parsed.data };
}
