/**
 * Long work in slices: `due()` says when the current slice has run its time, and `pause()` then lets the event loop
 * serve others before the work goes on. `due()` is a clock read, cheap enough to ask for every item; awaiting only
 * when it is due keeps the cost of slicing to one turn of the loop per slice.
 */
export class Slices {
  #start = performance.now();

  constructor(private readonly ms: number) {}

  /** True when this slice has used its time. */
  due(): boolean {
    return performance.now() - this.#start > this.ms;
  }

  /** Yields to the event loop, then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.#start = performance.now();
  }
}

/** The time of one slice of index work: a request waiting behind it waits at most about this long. */
export const SLICE_MS = 10;

/**
 * The time of one slice of work that runs beside a chain of database round trips, as an import parses the next
 * batch while the database writes the current one: each reply waits for the slice in progress to end, about half a
 * slice on average, and a batch's write is about ten round trips. With 10 ms slices a 20,000-note `kgate import`
 * took 12.4 s on PostgreSQL, with 1 ms slices 10.4 s (2026-11-24, development VM); a yield costs a few microseconds.
 */
export const SHORT_SLICE_MS = 1;
