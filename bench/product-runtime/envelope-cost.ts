/**
 * What the V1 envelope costs beside the data it carries: the runtime read's answer serialized whole, and its `data`
 * alone, timed in this process. The envelope adds the version, kind, status, receipts, problems and request id
 * around the same note, and one JSON.stringify of it all (docs/runtime.md, "The V1 envelope").
 */

/** Bytes and microseconds of JSON for the envelope and for its data alone. */
export interface EnvelopeCost {
  envelopeBytes: number;
  dataBytes: number;
  envelopeMicros: number;
  dataMicros: number;
}

const ROUNDS = 20_000;

function microsEach(work: () => unknown): number {
  for (let k = 0; k < 1_000; k++) work();
  let best = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 3; pass++) {
    const started = performance.now();
    for (let k = 0; k < ROUNDS; k++) work();
    best = Math.min(best, ((performance.now() - started) * 1000) / ROUNDS);
  }
  return best;
}

/** Measures the envelope of `answer`, a runtime read's response body (best of three passes of 20,000 each). */
export function envelopeCost(answer: string): EnvelopeCost {
  const envelope = JSON.parse(answer) as { data: unknown };
  return {
    envelopeBytes: Buffer.byteLength(JSON.stringify(envelope)),
    dataBytes: Buffer.byteLength(JSON.stringify(envelope.data)),
    envelopeMicros: microsEach(() => JSON.stringify(envelope)),
    dataMicros: microsEach(() => JSON.stringify(envelope.data)),
  };
}
