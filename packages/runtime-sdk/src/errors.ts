/**
 * The one exception the SDK throws on a call: the hosted adapter could not get an answer from the server at all.
 * Every answer the server gives, refusals included, is returned as an envelope instead.
 */

/**
 * Why no answer came: `network` (the connection failed before a response, after every retry), `timeout` (no
 * response within the per-request timeout, after every retry), `aborted` (the caller's signal), `response_too_large`
 * (the answer exceeded the response size bound, or a streamed line its line bound; it is not read further),
 * `body_read_failed` (the connection broke while the answer was being read; not retried, since the server had
 * answered), `stream_interrupted` (a streamed answer ended without its `done` event, or with a line that is not an
 * event).
 */
export type RuntimeTransportFailure = 'network' | 'timeout' | 'aborted' | 'response_too_large' | 'body_read_failed' | 'stream_interrupted';

/** The hosted adapter got no usable answer. Nothing in it is a secret: no token, no credential, no body. */
export class RuntimeTransportError extends Error {
  /** Why no answer came. */
  readonly reason: RuntimeTransportFailure;
  /** How many requests were sent, retries included. */
  readonly attempts: number;
  /** The URL path (without query) of the request that failed. */
  readonly path: string;
  /**
   * The `Idempotency-Key` the call was sent with (applies and metered calls). Call again with this key to learn what
   * became of it: the server replays a settled or billable answer without a second model call or a second apply.
   */
  readonly idempotencyKey: string | undefined;

  constructor(reason: RuntimeTransportFailure, message: string, details: { attempts: number; path: string; cause?: unknown; idempotencyKey?: string }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'RuntimeTransportError';
    this.reason = reason;
    this.attempts = details.attempts;
    this.path = details.path;
    this.idempotencyKey = details.idempotencyKey;
  }

  /** The same failure, naming the key the call was sent with. */
  withKey(idempotencyKey: string | undefined): RuntimeTransportError {
    if (idempotencyKey === undefined || this.idempotencyKey !== undefined) return this;
    return new RuntimeTransportError(this.reason, this.message, { attempts: this.attempts, path: this.path, cause: this.cause, idempotencyKey });
  }
}
