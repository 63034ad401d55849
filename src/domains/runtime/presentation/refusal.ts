import type { z } from 'zod';
import { KgateError } from '../../../kernel/errors.ts';

/** The field an issue is about, as a dotted path; an unknown field is named itself; `(root)` is the value as a whole. */
function fieldOf(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
  return path.length > 0 ? path.join('.') : '(root)';
}

/** Whether `path` names a field that `root` does not have (zod does not keep the input in its issues). */
function isAbsent(root: unknown, path: readonly PropertyKey[]): boolean {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return true;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value === undefined;
}

/** The issue as a predicate on its field ("must ..."), in words a person writing a profile or a pack can act on. */
function problemOf(issue: z.core.$ZodIssue, root: unknown, what: string): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `is not a field of ${what}`;
    case 'invalid_key':
      return `is not a valid key: ${issue.issues[0]?.message ?? 'malformed'}`;
    case 'invalid_type':
      if (issue.path.length > 0 && isAbsent(root, issue.path)) return 'is required';
      return `must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`;
    case 'invalid_value':
      // A long list (the capability catalogue) would drown the message: such schemas say what they want themselves.
      return issue.values.length <= 4 ? `must be ${issue.values.map((value) => JSON.stringify(value)).join(' or ')}` : issue.message;
    case 'too_big':
      return issue.origin === 'array' ? `must have at most ${String(issue.maximum)} items` : issue.message;
    default:
      return issue.message;
  }
}

/**
 * Parses `value` with a presentation schema, or refuses it with `invalid_request`, a message naming the field and
 * what is wrong with it, and `details.field` (the dotted path, as the message says it). `what` names the value in
 * the message ("a brand profile"). Only the first issue is reported: fixing it and trying again finds the next.
 */
export function parseOrRefuse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue === undefined) throw new KgateError('invalid_request', `${capitalized(what)} is not valid.`, { field: '(root)' });
  const field = fieldOf(issue);
  throw new KgateError('invalid_request', `${capitalized(what)} is not valid: ${field} ${problemOf(issue, value, what)}.`, { field });
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
