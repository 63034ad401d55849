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
