/** Publishing the generated pack as an operator does, beside a running gateway, and what that does to the gateway. */
import { runKgate, startServer } from '../http/installation.ts';
import { mcpClient } from './mcp-client.ts';
import type { GeneratedPack } from '../pack/model.ts';
import { probeHello } from './probe.ts';
import type { PackInstallation } from './setup.ts';

/** The pack published with `kgate packs publish DIR --json` beside the running gateway, then again unchanged. */
export interface Publication {
  /** Wall time of the whole command, and of the second (unchanged) one. */
  ms: number;
  againMs: number;
  /** `GET /healthz` of the gateway probed every 20 ms during the first command: the slowest answer, and how many. */
  helloDuringPublish: { maxMs: number; probes: number };
}

/**
 * Publishes the pack with `kgate packs publish DIR --json` beside a started gateway, as an operator does (on PGlite the
 * command runs inside the gateway, over its control channel; on PostgreSQL in its own process), while probing the
 * gateway's `GET /healthz`; then runs the command again, which must store nothing. The gateway is stopped after.
 */
export async function publishBeside(env: Record<string, string>, logFile: string, target: PackInstallation, inputs: { pack: GeneratedPack; packDir: string }, failures: string[]): Promise<Publication> {
  const serve = await startServer(env, logFile);
  try {
    const probe = probeHello(mcpClient(serve.url, target.token));
    const started = performance.now();
    const first = await runKgate(['packs', 'publish', inputs.packDir, '--json'], env).finally(() => probe.stop());
    const ms = performance.now() - started;
    const helloDuringPublish = await probe.done;
    const again = performance.now();
    const second = await runKgate(['packs', 'publish', inputs.packDir, '--json'], env);
    const againMs = performance.now() - again;
    type Outcome = { created: boolean; info: { version: number }; counts: { sources: number; assertions: number; insights: number } };
    const [a, b] = [JSON.parse(first) as Outcome, JSON.parse(second) as Outcome];
    const want = { sources: inputs.pack.sources.length, assertions: inputs.pack.assertions.length, insights: inputs.pack.insights.length };
    if (!a.created || a.info.version !== 1 || JSON.stringify(a.counts) !== JSON.stringify(want) || b.created || b.info.version !== 1) {
      failures.push(`kgate packs publish answered ${first.trim()}, then ${second.trim()}; expected version 1 created with ${JSON.stringify(want)}, then unchanged`);
    }
    return { ms, againMs, helloDuringPublish };
  } finally {
    await serve.stop();
  }
}
