/**
 * A fair share of the request thread for heavy calls. Node runs every callback that is ready in one turn of its
 * event loop before it looks for new I/O again; fifty note transactions whose database answers arrive together
 * would each plan and diff ten notes in that one turn, and a health check on a new connection would wait for all of
 * them (measured: up to 665 ms). Heavy calls therefore run at most `slots` at a time, and a finished call hands its
 * slot to the next one in a later turn (`setImmediate`), after the loop has taken in waiting I/O. Light calls never
 * wait here. The work done is the same; what changes is that no turn of the loop holds more than `slots` heavy calls.
 */
export interface FairShare {
  /** Runs `work` when a slot is free, in arrival order. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Calls running and waiting now. */
  load(): { running: number; waiting: number };
}

/** Heavy calls at once: enough to keep the database busy while one of them computes, few enough to keep turns short. */
export const HEAVY_SLOTS = 4;

/** A gate of `slots` heavy calls at a time. */
export function createFairShare(slots: number = HEAVY_SLOTS): FairShare {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    // The slot passes to the next waiter as it is; only the last one out frees it.
    if (next) setImmediate(next);
    else running -= 1;
  };
  return {
    async run(work) {
      if (running < slots) running += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        release();
      }
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}
