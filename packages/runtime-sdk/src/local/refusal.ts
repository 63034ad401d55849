import type { RuntimeProblem } from '../envelope.js';

/**
 * A refusal of the local adapter, with the stable code and HTTP status the hosted server gives the same refusal
 * (docs/errors.md). Thrown inside the adapter and turned into an `error` envelope at each operation's boundary; it
 * never reaches the caller as an exception.
 */
export class LocalRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'LocalRefusal';
  }

  /** The refusal as an envelope problem. */
  toProblem(): RuntimeProblem {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
  }
}

/** 400 invalid_path with `details.reason`, as the server (docs/notes.md, "Path rules"). */
export function invalidPath(reason: string, message: string): LocalRefusal {
  return new LocalRefusal('invalid_path', message, 400, { reason });
}

/** 400 invalid_request naming the field at fault. */
export function invalidRequest(message: string, field?: string): LocalRefusal {
  return new LocalRefusal('invalid_request', message, 400, field ? { field } : undefined);
}

/** 404 not_found: the note, trash entry, workspace or vault does not exist here. */
export function notFound(message: string): LocalRefusal {
  return new LocalRefusal('not_found', message, 404);
}
