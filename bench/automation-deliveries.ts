/**
 * Webhook deliveries per second against a local https receiver (test/fakes/webhook-receiver, a self-signed
 * certificate on 127.0.0.1, verifying every signature with the standardwebhooks library), from an in-process
 * gateway over the installation's database: N messages are queued for one endpoint (outside the timing), then
 * delivered by `POST /api/dev/automation/process` calls until every one is delivered, and again by the webhooks
 * service's `deliverDue` called directly (no HTTP, no authentication). The baseline is N plain HTTPS POSTs of the same
 * bytes, signed the same way, to the same receiver from the same process: one at a time on a new connection each
 * (as the guarded transport connects: the address it checked, no connection reuse), and by 8 callers at once.
 */
import { request } from 'node:https';
import { Writable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { createWebhookTransport } from '../src/app/webhook-http.ts';
import { startGateway } from '../src/app/gateway.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../test/fakes/webhook-receiver/index.ts';
import type { EngineName, Reader } from './http/installation.ts';
import { openInstallation } from './http/installation.ts';

/** Messages delivered per row. */
export const DELIVERIES = 400;
/** Callers of the concurrent baseline. */
export const BASELINE_CALLERS = 8;

/** One row of the deliveries table. */
export interface DeliveryRow {
  what: string;
  perSecond: number;
  seconds: number;
  /** Calls of POST /process or deliverDue it took (0 for the baseline). */
  calls: number;
}

/** What one engine's deliveries measured. */
export interface DeliveryRun {
  rows: DeliveryRow[];
  payloadBytes: number;
}

interface Delivered {
  delivered: number;
  deliveriesAttempted: number;
  failedAttempts: number;
  gaveUp: number;
}

/** Posts `body` with `headers` to the receiver on a new TLS connection; resolves with the status. */
function post(receiver: WebhookReceiver, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(receiver.url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, ca: receiver.cert, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `n` jobs by `callers` at once; answers the seconds it took. */
async function timedJobs(n: number, callers: number, job: (k: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let k = next++; k < n; k = next++) await job(k);
    }),
  );
  return (performance.now() - started) / 1000;
}

/**
 * Measures deliveries on the installation of `env` (no server may be running on it) for `reader`'s workspace:
 * the rows, in table order. Failures go to `failures`.
 */
export async function measureDeliveries(engine: EngineName, env: Record<string, string>, reader: Reader, workspaceId: string, failures: string[]): Promise<DeliveryRun> {
  const receiver = await startWebhookReceiver();
  const opened = await openInstallation(env);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const config = loadConfig({ ...env, PORT: '0', KGATE_HOST: '127.0.0.1', KGATE_AUTOMATION_PROCESS_MS: '0' });
  const gateway = await startGateway(config, opened, {
    logger: createLogger('warn', sink),
    webhookTransport: createWebhookTransport({ allowPrivateAddresses: true, ca: receiver.cert }),
  });
  const rows: DeliveryRow[] = [];
  try {
    const auth = { authorization: `Bearer ${reader.token}` };
    const created = await fetch(`${gateway.url}/api/dev/automation/endpoints`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId, url: receiver.url, description: 'Benchmark receiver', eventTypes: ['bench.delivery'] }),
    });
    if (created.status !== 200) throw new Error(`creating the endpoint: ${created.status} ${await created.text()}`);
    const { secret } = (await created.json()) as { secret: string };
    receiver.trust(secret);
    const data = { form: 'contact', name: 'Ada Lovelace', email: 'ada@example.com', message: 'Please call me back about the pilot next week.' };
    const queue = async (tag: string) => {
      for (let k = 0; k < DELIVERIES; k++) {
        const ids = await gateway.services.webhooks.enqueue(opened.db, { workspaceId, eventType: 'bench.delivery', data: { ...data, tag, k } });
        if (ids.length !== 1) throw new Error(`queued ${ids.length} deliveries for one message`);
      }
    };
    /** Delivers until `DELIVERIES` are delivered, by `step`; one row. */
    const drain = async (what: string, step: () => Promise<Delivered>): Promise<DeliveryRow> => {
      const before = receiver.received.length;
      let delivered = 0;
      let calls = 0;
      const started = performance.now();
      while (delivered < DELIVERIES) {
        const summary = await step();
        calls += 1;
        delivered += summary.delivered;
        if (summary.failedAttempts > 0 || summary.gaveUp > 0) throw new Error(`${what}: ${summary.failedAttempts} failed attempts, ${summary.gaveUp} given up`);
        if (summary.deliveriesAttempted === 0) throw new Error(`${what}: nothing due with ${DELIVERIES - delivered} deliveries left`);
      }
      const seconds = (performance.now() - started) / 1000;
      if (receiver.received.length - before !== DELIVERIES) failures.push(`${engine} ${what}: the receiver got ${receiver.received.length - before} requests for ${DELIVERIES} deliveries`);
      const unverified = receiver.received.slice(before).filter((r) => r.verified !== true).length;
      if (unverified > 0) failures.push(`${engine} ${what}: ${unverified} deliveries did not verify at the receiver`);
      process.stderr.write(`  ${engine} ${what}: ${Math.round(DELIVERIES / seconds)} per second in ${calls} calls\n`);
      return { what, perSecond: DELIVERIES / seconds, seconds, calls };
    };

    await queue('warm');
    await drain('warm-up', () => gateway.services.webhooks.deliverDue({ workspaceIds: [workspaceId] }));
    await queue('process');
    rows.push(
      await drain('`POST /process` until all are delivered', async () => {
        const response = await fetch(`${gateway.url}/api/dev/automation/process`, { method: 'POST', headers: auth });
        if (response.status !== 200) throw new Error(`POST /process: ${response.status} ${await response.text()}`);
        return (await response.json()) as Delivered;
      }),
    );
    await queue('direct');
    rows.push(await drain('`deliverDue` called directly until all are delivered', () => gateway.services.webhooks.deliverDue({ workspaceIds: [workspaceId] })));

    // The receiver verified what kgate sent: a sample checked here too, with the secret shown at creation.
    const sample = receiver.received.at(-1)!;
    new Webhook(secret).verify(sample.body, sample.headers);

    // The baseline: the same bytes, signed the same way, posted by this process.
    const payload = sample.body;
    const signer = new Webhook(secret);
    const baseline = async (callers: number): Promise<DeliveryRow> => {
      const before = receiver.received.length;
      const seconds = await timedJobs(DELIVERIES, callers, async (k) => {
        const id = `msg_baseline_${callers}_${k}`;
        const at = new Date();
        const status = await post(
          receiver,
          {
            'content-type': 'application/json',
            'user-agent': 'kgate-bench',
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': signer.sign(id, at, payload),
          },
          payload,
        );
        if (status < 200 || status > 299) throw new Error(`baseline POST answered ${status}`);
      });
      if (receiver.received.length - before !== DELIVERIES) failures.push(`${engine} baseline: the receiver got ${receiver.received.length - before} of ${DELIVERIES}`);
      const what = `baseline: plain HTTPS POSTs, new connection each, ${callers === 1 ? 'one at a time' : `${callers} callers at once`}`;
      process.stderr.write(`  ${engine} ${what}: ${Math.round(DELIVERIES / seconds)} per second\n`);
      return { what, perSecond: DELIVERIES / seconds, seconds, calls: 0 };
    };
    rows.unshift(await baseline(1), await baseline(BASELINE_CALLERS));
    return { rows, payloadBytes: Buffer.byteLength(payload) };
  } finally {
    await gateway.stop();
    await receiver.close();
  }
}
