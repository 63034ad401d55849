/**
 * The callbacks a transaction collects through `Sql.afterCommit`, run once it committed. Every callback runs even
 * when one throws; the first error is rethrown afterwards, so a cache that failed to forget is never silent.
 */
export class CommitCallbacks {
  readonly #callbacks: Array<() => void> = [];

  /** Keeps `callback` for `run`. */
  add(callback: () => void): void {
    this.#callbacks.push(callback);
  }

  /** Runs every kept callback in the order added. */
  run(): void {
    let failure: { error: unknown } | undefined;
    for (const callback of this.#callbacks.splice(0)) {
      try {
        callback();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /** Like `run`, for a COMMIT that failed but may have committed: the caller reports the COMMIT's own error. */
  runQuietly(): void {
    try {
      this.run();
    } catch {
      // The COMMIT's error is the one to report.
    }
  }
}

/** `afterCommit` outside a transaction: the statements already committed, so the callback runs at once. */
export function runAtOnce(callback: () => void): void {
  callback();
}
