/** A hello-world probe beside a measured call: how long the gateway kept other requests waiting. */
import type { McpClient } from './mcp-client.ts';

/** `GET /healthz` every 20 ms until stopped (the last probe finishes first), on connections of its own. */
export function probeHello(client: McpClient): { stop(): void; done: Promise<{ maxMs: number; probes: number }> } {
  let running = true;
  const done = (async () => {
    let maxMs = 0;
    let probes = 0;
    while (running) {
      maxMs = Math.max(maxMs, await client.hello());
      probes++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { maxMs, probes };
  })();
  return { stop: () => (running = false), done };
}
