import type { AnyOperation } from '../operations/operation.ts';

// A frozen output (a cached search page) is the same object on every call that hits its cache: it is presented once
// per operation, and the presented value, frozen too, is shared by those calls.
const presentedFrozen = new WeakMap<object, { operation: AnyOperation; value: Record<string, unknown> }>();

/**
 * The output of an operation as it may leave the server: parsed with the operation's output schema, which drops
 * every field the schema does not declare (presenters list fields; this makes it impossible to forget). An output
 * that does not match its own schema is a bug, answered as an internal error rather than sent.
 */
export function present(operation: AnyOperation, output: unknown): Record<string, unknown> {
  const frozen = typeof output === 'object' && output !== null && Object.isFrozen(output);
  if (frozen) {
    const known = presentedFrozen.get(output);
    if (known?.operation === operation) return known.value;
  }
  const parsed = operation.output.safeParse(output);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(output)'}: ${issue.message}`).join('; ');
    throw new Error(`The output of ${operation.id} does not match its schema: ${where}`);
  }
  if (frozen) presentedFrozen.set(output, { operation, value: deepFreeze(parsed.data) });
  return parsed.data;
}

/** Freezes a plain JSON-like value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
