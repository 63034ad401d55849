/**
 * Events ingested per second: the real `kgate serve` (automation processing off, KGATE_AUTOMATION_PROCESS_MS=0, so
 * only ingestion is measured) under autocannon, `POST /api/dev/automation/events` with a distinct Idempotency-Key per
 * request, of a type no trigger takes and of a type one trigger takes (each such event also starts a queued run),
 * beside hello-world (`GET /healthz`) of the same server measured just before and just after each row. Every answer is
 * checked, and once the server has stopped the stored events and runs are counted against the answers.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import type { Database } from '../src/db/port.ts';
import { bootstrapInstallation, loudLogEntries, openInstallation, prepareAccounts, startServer, type EngineName, type Reader } from './http/installation.ts';
import { measureScenario, type LoadOptions, type LoadScenario, type Measurement } from './http/load.ts';

/** The rows of the ingestion table. */
export type IngestKey = 'hello' | 'unmatched' | 'matched';

/** How the table names each row. */
export const INGEST_ROUTE_NAMES: Record<IngestKey, string> = {
  hello: 'hello-world: `GET /healthz`',
  unmatched: '`POST /events`, no trigger takes the type',
  matched: '`POST /events`, one trigger takes the type (a run queued)',
};

const TYPES: Record<Exclude<IngestKey, 'hello'>, string> = { unmatched: 'bench.unmatched', matched: 'bench.matched' };

/** What one engine's ingestion measured, and what the database held afterwards. */
export interface IngestRun {
  rows: Array<Measurement<IngestKey> & { pairedHelloRps?: number }>;
  /** Stored events and runs by row, the 2xx answers counted (warm-up included) and the requests built. */
  stored: Record<Exclude<IngestKey, 'hello'>, { events: number; runs: number; answered: number; built: number }>;
  /** Bytes of one event's body. */
  eventBytes: number;
  /** A second account of the installation, in a workspace of its own, for the deliveries part. */
  deliveryReader: Reader;
  deliveryWorkspaceId: string;
}

/** A typical form submission, about 400 bytes. */
function eventBody(workspaceId: string, type: string, k: number): string {
  return JSON.stringify({
    workspaceId,
    type,
    source: 'forms.example.com',
    subject: `submission-${k}`,
    data: { form: 'contact', name: 'Ada Lovelace', email: 'ada@example.com', message: 'Please call me back about the pilot next week.', k },
  });
}

function ingestScenario(key: Exclude<IngestKey, 'hello'>, reader: Reader, workspaceId: string, runTag: string): LoadScenario<IngestKey> & { built(): number } {
  let built = 0;
  const headers = { authorization: `Bearer ${reader.token}`, 'content-type': 'application/json' };
  const request: autocannon.Request = {
    method: 'POST',
    path: '/api/dev/automation/events',
    setupRequest(req) {
      built += 1;
      return { ...req, headers: { ...headers, 'idempotency-key': `${runTag}-${key}-${built}` }, body: eventBody(workspaceId, TYPES[key], built) };
    },
  };
  return {
    key,
    label: INGEST_ROUTE_NAMES[key],
    options: { path: '/api/dev/automation/events', requests: [request] },
    verify: (body) => body.includes('"duplicate":false') && body.includes(key === 'matched' ? '"runIds":["' : '"runIds":[]'),
    built: () => built,
  };
}

/** The workspace of a reader's mapping, read before the server starts (PGlite: one process at a time). */
export async function workspaceOf(env: Record<string, string>, reader: Reader): Promise<string> {
  const opened = await openInstallation(env);
  try {
    const [row] = await opened.db.query<{ workspace_id: string }>('SELECT workspace_id FROM mappings WHERE id = $1', [reader.mappingId]);
    if (!row) throw new Error(`no mapping ${reader.mappingId}`);
    return row.workspace_id;
  } finally {
    await opened.close();
  }
}

/** The workspace's one trigger: a webhook trigger on the matched type (no endpoint: its runs stay queued). */
async function createTrigger(url: string, reader: Reader, workspaceId: string): Promise<void> {
  const created = await fetch(`${url}/api/dev/automation/triggers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${reader.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ workspaceId, name: 'Benchmark trigger', when: { eventType: TYPES.matched }, action: { kind: 'webhook' } }),
  });
  if (created.status !== 200) throw new Error(`creating the trigger: ${created.status} ${await created.text()}`);
}

/** Stored events of a type whose key carries the run's tag, and the runs they started. */
async function storedOf(db: Database, workspaceId: string, type: string, runTag: string): Promise<{ events: number; runs: number }> {
  const [events] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM automation_events WHERE workspace_id = $1 AND type = $2 AND idempotency_key LIKE $3', [
    workspaceId,
    type,
    `${runTag}-%`,
  ]);
  const [runs] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM automation_runs r JOIN automation_events e ON e.id = r.event_id WHERE e.workspace_id = $1 AND e.type = $2 AND e.idempotency_key LIKE $3',
    [workspaceId, type, `${runTag}-%`],
  );
  return { events: events?.n ?? 0, runs: runs?.n ?? 0 };
}

/**
 * Bootstraps an installation on `env`, raises its allowances, and measures the three rows (H U H M H) on the real
 * server; the owner's account and workspace are left for the deliveries part. Failures go to `failures`.
 */
export async function measureIngestion(engine: EngineName, env: Record<string, string>, root: string, load: LoadOptions, failures: string[]): Promise<IngestRun> {
  const boot = await bootstrapInstallation(env);
  const [reader, deliveryReader] = await prepareAccounts(env, boot, 1, 1_000_000_000);
  const workspaceId = await workspaceOf(env, reader!);
  const deliveryWorkspaceId = await workspaceOf(env, deliveryReader!);
  const logFile = join(root, `${engine}-automation-serve.log`);
  const server = await startServer(env, logFile);
  const runTag = `bench-${randomBytes(4).toString('hex')}`;
  const scenarios: Partial<Record<IngestKey, LoadScenario<IngestKey> & { built?: () => number }>> = {
    hello: { key: 'hello', label: INGEST_ROUTE_NAMES.hello, options: { path: '/healthz' }, verify: (body) => body.startsWith('{"status":"ok"') },
  };
  const rows: IngestRun['rows'] = [];
  const answered = { unmatched: 0, matched: 0 };
  try {
    await createTrigger(server.url, reader!, workspaceId);
    scenarios.unmatched = ingestScenario('unmatched', reader!, workspaceId, runTag);
    scenarios.matched = ingestScenario('matched', reader!, workspaceId, runTag);
    const measure = async (key: IngestKey) => {
      const m = await measureScenario(server.url, scenarios[key]!, load, server);
      if (m.errors > 0 || m.non2xx > 0 || m.mismatches > 0) {
        failures.push(`${engine} ${key}: ${m.errors} errors, ${m.non2xx} non-2xx ${JSON.stringify(m.otherStatuses)}, ${m.mismatches} wrong bodies`);
      }
      if (key !== 'hello') answered[key] += m.ok + m.warmupOk;
      process.stderr.write(`  ${engine} ${key}: ${Math.round(m.requestsPerSecond)} req/s, p99 ${m.p99Ms} ms\n`);
      return m;
    };
    const h1 = await measure('hello');
    const unmatched = await measure('unmatched');
    const h2 = await measure('hello');
    const matched = await measure('matched');
    const h3 = await measure('hello');
    rows.push(
      h1,
      { ...unmatched, pairedHelloRps: (h1.requestsPerSecond + h2.requestsPerSecond) / 2 },
      { ...matched, pairedHelloRps: (h2.requestsPerSecond + h3.requestsPerSecond) / 2 },
    );
  } finally {
    await server.stop();
  }
  const loud = await loudLogEntries([logFile]);
  if (loud.length > 0) failures.push(`${engine} ingestion: ${loud.length} server log lines at warn or above, e.g. ${JSON.stringify(loud[0])}`);
  const opened = await openInstallation(env);
  try {
    const stored = {} as IngestRun['stored'];
    for (const key of ['unmatched', 'matched'] as const) {
      const counts = await storedOf(opened.db, workspaceId, TYPES[key], runTag);
      const built = scenarios[key]!.built!();
      stored[key] = { ...counts, answered: answered[key], built };
      // Every 2xx answer stored its event; a request cut at autocannon's deadline may have stored one too.
      if (counts.events < answered[key] || counts.events > built) failures.push(`${engine} ${key}: ${counts.events} events stored for ${answered[key]} answers and ${built} requests`);
      const expectedRuns = key === 'matched' ? counts.events : 0;
      if (counts.runs !== expectedRuns) failures.push(`${engine} ${key}: ${counts.runs} runs for ${counts.events} events`);
    }
    return { rows, stored, eventBytes: Buffer.byteLength(eventBody(workspaceId, TYPES.matched, 1_000_000)), deliveryReader: deliveryReader!, deliveryWorkspaceId };
  } finally {
    await opened.close();
  }
}
