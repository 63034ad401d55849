/**
 * The time and cancellation of one model call, across its attempts: the caller's signal and the call's deadline
 * combined into one signal, with which of them fired (that decides the failure class: a deadline is model_timeout,
 * the caller going away is model_interrupted).
 */
export class CallScope {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private stoppedBy: 'caller' | 'deadline' | undefined;
  private readonly onCallerAbort = (): void => this.stop('caller');
  /** Epoch milliseconds after which the call is over. */
  readonly deadline: number;

  constructor(
    private readonly caller: AbortSignal | undefined,
    timeoutMs: number,
  ) {
    this.deadline = Date.now() + timeoutMs;
    this.timer = setTimeout(() => this.stop('deadline'), timeoutMs);
    if (caller?.aborted) this.stop('caller');
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Aborts when the caller stops or the deadline passes. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** What stopped the call, if anything did. */
  get reason(): 'caller' | 'deadline' | undefined {
    return this.stoppedBy;
  }

  /** Milliseconds left before the deadline. */
  remainingMs(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  /** Ends the call (a consumer that stopped reading counts as the caller). */
  stop(reason: 'caller' | 'deadline'): void {
    if (this.stoppedBy !== undefined) return;
    this.stoppedBy = reason;
    this.controller.abort(reason);
  }

  /** Releases the timer and the listener on the caller's signal; the call is over. */
  close(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** Waits `ms`, or until the scope stops (then resolves false). */
export function pause(scope: CallScope, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (scope.signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      scope.signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    scope.signal.addEventListener('abort', onAbort, { once: true });
  });
}
