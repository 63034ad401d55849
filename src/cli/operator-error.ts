/**
 * A mistake the operator can fix (a missing folder, a non-empty export target, an unreachable database). The CLI
 * prints its message on one line, without a stack trace; stack traces are for bugs.
 */
export class OperatorError extends Error {
  override readonly name = 'OperatorError';
}
