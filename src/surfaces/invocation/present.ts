import type { AnyOperation } from '../operations/operation.ts';

/**
 * The output of an operation as it may leave the server: parsed with the operation's output schema, which drops
 * every field the schema does not declare (presenters list fields; this makes it impossible to forget). An output
 * that does not match its own schema is a bug, answered as an internal error rather than sent.
 */
export function present(operation: AnyOperation, output: unknown): Record<string, unknown> {
  const parsed = operation.output.safeParse(output);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(output)'}: ${issue.message}`).join('; ');
    throw new Error(`The output of ${operation.id} does not match its schema: ${where}`);
  }
  return parsed.data;
}
