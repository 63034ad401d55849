/**
 * A single request that asks for a lot of work: one JSON-RPC batch of 10,000 `list_vaults` calls to `POST /api/mcp`.
 * kgate refuses a batch of more than MAX_BATCH_MESSAGES whole, before any entry runs or reserves a unit; this
 * measures how fast that answer comes and what a newcomer's `GET /healthz` sees meanwhile.
 */
import { mcpHeaders } from '../mcp/requests.ts';
import { startProber } from './load.ts';

/** Entries in the batch. */
export const BIG_BATCH_ENTRIES = 10_000;

/** What the big batch got, over several sends. */
export interface BigBatchResult {
  sends: number;
  /** Bytes of the request body. */
  bytes: number;
  /** The answer's status and JSON-RPC error code (the same for every send, else the benchmark fails). */
  status: number;
  errorCode: number | undefined;
  /** Milliseconds from sending to the whole answer: the worst send. */
  worstMs: number;
  /** A new connection's `GET /healthz` every 20 ms meanwhile. */
  newConnectionMs: { max: number; probes: number; failed: number };
}

/** Sends the batch `sends` times, one after another, with a prober running. */
export async function measureBigBatch(url: string, token: string, sends = 5): Promise<BigBatchResult> {
  const body = JSON.stringify(Array.from({ length: BIG_BATCH_ENTRIES }, (_, k) => ({ jsonrpc: '2.0', id: k + 1, method: 'tools/call', params: { name: 'list_vaults', arguments: {} } })));
  const prober = startProber(url, 20);
  const seen: Array<{ status: number; errorCode: number | undefined; ms: number }> = [];
  let probes: { ms: number[]; failed: number };
  try {
    // Let the prober's first probe go out before the first send.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let k = 0; k < sends; k++) {
      const started = performance.now();
      const response = await fetch(`${url}/api/mcp`, { method: 'POST', headers: mcpHeaders(token), body });
      const text = await response.text();
      const ms = performance.now() - started;
      const parsed = JSON.parse(text) as { error?: { code?: number } };
      seen.push({ status: response.status, errorCode: parsed.error?.code, ms });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    probes = await prober.stop();
  }
  const first = seen[0]!;
  if (seen.some((s) => s.status !== first.status || s.errorCode !== first.errorCode)) {
    throw new Error(`the big batch got different answers: ${JSON.stringify(seen)}`);
  }
  return {
    sends: seen.length,
    bytes: Buffer.byteLength(body),
    status: first.status,
    errorCode: first.errorCode,
    worstMs: Math.max(...seen.map((s) => s.ms)),
    newConnectionMs: { max: Math.max(...probes.ms), probes: probes.ms.length, failed: probes.failed },
  };
}
