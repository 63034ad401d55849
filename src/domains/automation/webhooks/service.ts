import { performance } from 'node:perf_hooks';
import type { Database, Sql } from '../../../db/port.ts';
import { uuidArrayParam } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { TokenSealer } from '../../providers/index.ts';
import type { WorkspacesService } from '../../workspaces/index.ts';
import {
  AUTOMATION_CONTRACT,
  EndpointCreateSchema,
  MAX_ENDPOINTS_PER_WORKSPACE,
  SECRET_OVERLAP_MS,
  type WebhookEndpoint,
  type WebhooksService,
} from '../contract.ts';
import { insertExecution, listExecutions } from '../executions.ts';
import { filterTakes } from '../triggers/match.ts';
import type { WebhookTransport } from './port.ts';
import { newMessageId, newWebhookSecret, secretContext, secretHint, signedHeaders } from './signing.ts';

/** What {@link createWebhooksService} needs. */
export interface WebhooksDependencies {
  db: Database;
  clock: Clock;
  workspaces: Pick<WorkspacesService, 'authorize'>;
  /** Seals endpoint secrets; undefined when KGATE_PROVIDER_TOKEN_KEYS is unset (endpoints cannot be made then). */
  sealer: TokenSealer | undefined;
  transport: WebhookTransport;
  /** Milliseconds to wait after failed attempt n (index n-1); one attempt more than its length, then given up. */
  retrySchedule?: readonly number[];
  /** Source of the retry jitter, in [0, 1). */
  random?: () => number;
  /** How long a claimed delivery stays claimed; longer than a batch of attempts takes. */
  leaseMs?: number;
}

/** After failed attempt n wait RETRY_SCHEDULE_MS[n-1] (times a jitter in [0.8, 1.2)); 8 attempts in all. */
export const RETRY_SCHEDULE_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000];

const NO_SEALER = 'Webhook endpoints need KGATE_PROVIDER_TOKEN_KEYS (the keys that seal their signing secrets).';
const DEFAULT_LEASE_MS = 5 * 60_000;
const DEFAULT_BATCH = 100;
const MAX_BATCH = 1000;
// Attempts of one batch run this many at a time: a slow receiver does not hold up the rest for its whole timeout.
const CONCURRENCY = 8;

interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string;
  event_types: string[];
  secret_sealed: string;
  secret_hint: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  secret_rotated_at: Date | null;
  created_by: string;
  created_at: Date;
  deleted_at: Date | null;
  [key: string]: unknown;
}

interface ClaimedRow {
  id: string;
  endpoint_id: string;
  workspace_id: string;
  run_id: string | null;
  event_type: string;
  payload: string;
  attempts: number;
  [key: string]: unknown;
}

type DeliverySummary = { deliveriesAttempted: number; delivered: number; failedAttempts: number; gaveUp: number };

const ENDPOINT_COLUMNS = `id, workspace_id, url, description, event_types, secret_sealed, secret_hint, previous_secret_sealed,
  previous_secret_expires_at, secret_rotated_at, created_by, created_at, deleted_at`;

/**
 * Webhook endpoints, their secrets, and delivery (docs/automation.md, "Webhooks"). Endpoint management needs the
 * workspace permission automation.manage. Secrets are stored sealed (TokenSealer, context `webhook:<endpointId>`) and
 * shown once. Delivery is at least once: a message keeps its `webhook-id` and its exact bytes on every attempt, and
 * each attempt is claimed under a lease and recorded as an execution.
 */
export function createWebhooksService(deps: WebhooksDependencies): WebhooksService {
  const { db, clock, workspaces, sealer, transport } = deps;
  const schedule = deps.retrySchedule ?? RETRY_SCHEDULE_MS;
  const random = deps.random ?? Math.random;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;

  const requireSealer = (): TokenSealer => {
    if (sealer === undefined) throw new KgateError('unavailable', NO_SEALER, { setting: 'KGATE_PROVIDER_TOKEN_KEYS' });
    return sealer;
  };

  /** A live endpoint and the caller's right to manage its workspace; not_found when deleted or unknown. */
  const managedEndpoint = async (accountId: string, endpointId: string, sql: Sql = db): Promise<EndpointRow> => {
    const rows = /^[0-9a-f-]{36}$/i.test(endpointId)
      ? await sql.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND deleted_at IS NULL`, [endpointId])
      : [];
    const row = rows[0];
    if (row === undefined) throw new KgateError('not_found', 'The webhook endpoint does not exist.');
    await workspaces.authorize(accountId, row.workspace_id, 'automation.manage', sql);
    return row;
  };

  const attemptOne = async (row: ClaimedRow, endpoint: EndpointRow | undefined, lease: Date, summary: DeliverySummary): Promise<void> => {
    const attempt = row.attempts + 1;
    const base = {
      workspaceId: row.workspace_id,
      kind: 'webhook' as const,
      runId: row.run_id,
      deliveryId: row.id,
      endpointId: endpoint === undefined ? null : row.endpoint_id,
      proposalId: null,
    };
    if (endpoint === undefined || endpoint.deleted_at !== null) {
      const now = clock.now();
      await db.transaction(async (tx) => {
        const done = await finish(tx, row.id, lease, 'failed', row.attempts, now);
        if (!done) return;
        await insertExecution(tx, {
          ...base,
          attempt,
          outcome: 'gave_up',
          httpStatus: null,
          errorCode: 'endpoint_deleted',
          detail: 'endpoint deleted',
          startedAt: now,
          durationMs: 0,
          nextAttemptAt: null,
        });
      });
      summary.gaveUp += 1;
      return;
    }

    const startedAt = clock.now();
    const started = performance.now();
    let status: number | null = null;
    let errorCode: string | null = null;
    let detail: string;
    const secrets = openSecrets(requireSealer(), endpoint, startedAt);
    if (secrets === undefined) {
      errorCode = 'secret_unavailable';
      detail = 'the signing secret could not be opened (its key is not configured)';
    } else {
      try {
        const response = await transport.post({ url: endpoint.url, headers: signedHeaders(row.id, startedAt, row.payload, secrets), body: row.payload });
        status = response.status;
        detail = status >= 200 && status < 300 ? `delivered: HTTP ${status}` : `endpoint answered HTTP ${status}`;
      } catch (error) {
        const reason = error instanceof KgateError && typeof error.details?.['reason'] === 'string' ? error.details['reason'] : 'network';
        errorCode = reason;
        detail = `not delivered: ${reason}`;
      }
      summary.deliveriesAttempted += 1;
    }
    const durationMs = performance.now() - started;
    const endedAt = clock.now();
    const delivered = status !== null && status >= 200 && status < 300;
    const gaveUp = !delivered && attempt > schedule.length;
    const nextAttemptAt = delivered || gaveUp ? null : new Date(endedAt.getTime() + Math.round(schedule[attempt - 1]! * (0.8 + 0.4 * random())));

    await db.transaction(async (tx) => {
      if (nextAttemptAt === null) await finish(tx, row.id, lease, delivered ? 'delivered' : 'failed', attempt, endedAt);
      else {
        await tx.query(
          `UPDATE webhook_deliveries SET attempts = $2, next_attempt_at = $3, lease_until = NULL
           WHERE id = $1 AND state = 'pending' AND lease_until = $4`,
          [row.id, attempt, nextAttemptAt, lease],
        );
      }
      // Recorded even when the lease was lost meanwhile: the request was sent, and the record says so.
      await insertExecution(tx, {
        ...base,
        attempt,
        outcome: delivered ? 'succeeded' : gaveUp ? 'gave_up' : 'failed',
        httpStatus: status,
        errorCode,
        detail: nextAttemptAt === null ? detail : `${detail}; next attempt at ${nextAttemptAt.toISOString()}`,
        startedAt,
        durationMs,
        nextAttemptAt,
      });
    });
    if (delivered) summary.delivered += 1;
    else summary.failedAttempts += 1;
    if (gaveUp) summary.gaveUp += 1;
  };

  return {
    async list(actor, workspaceId) {
      await workspaces.authorize(actor.accountId, workspaceId, 'automation.manage');
      const rows = await db.query<EndpointRow>(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC`,
        [workspaceId],
      );
      return rows.map(toEndpoint);
    },

    async create(actor, raw) {
      const parsed = EndpointCreateSchema.safeParse(raw);
      if (!parsed.success) throw new KgateError('invalid_request', 'The webhook endpoint is not valid.', { issues: parsed.error.issues.map((i) => i.message) });
      const input = parsed.data;
      await workspaces.authorize(actor.accountId, input.workspaceId, 'automation.manage');
      const seal = requireSealer();
      await transport.check(input.url);
      const id = newId();
      const secret = newWebhookSecret();
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        // The workspace row is the lock that keeps two concurrent creations from both passing the count.
        await tx.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [input.workspaceId]);
        const [count] = await tx.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL',
          [input.workspaceId],
        );
        if ((count?.n ?? 0) >= MAX_ENDPOINTS_PER_WORKSPACE) {
          throw new KgateError('conflict', `A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one first.`, {
            limit: MAX_ENDPOINTS_PER_WORKSPACE,
          });
        }
        const [inserted] = await tx.query<EndpointRow>(
          `INSERT INTO webhook_endpoints (id, workspace_id, url, description, event_types, secret_sealed, secret_hint, created_by, created_at)
           VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9) RETURNING ${ENDPOINT_COLUMNS}`,
          [id, input.workspaceId, input.url, input.description ?? '', input.eventTypes ?? [], seal.seal(secret, secretContext(id)), secretHint(secret), actor.accountId, now],
        );
        return inserted!;
      });
      return { endpoint: toEndpoint(row), secret };
    },

    async rotateSecret(actor, endpointId) {
      await managedEndpoint(actor.accountId, endpointId);
      const seal = requireSealer();
      const secret = newWebhookSecret();
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        // The previous secret is the one current at rotation; a second rotation inside the overlap drops the oldest.
        const [updated] = await tx.query<EndpointRow>(
          `UPDATE webhook_endpoints SET previous_secret_sealed = secret_sealed, previous_secret_expires_at = $2, secret_rotated_at = $3,
             secret_sealed = $4, secret_hint = $5
           WHERE id = $1 AND deleted_at IS NULL RETURNING ${ENDPOINT_COLUMNS}`,
          [endpointId, new Date(now.getTime() + SECRET_OVERLAP_MS), now, seal.seal(secret, secretContext(endpointId)), secretHint(secret)],
        );
        if (updated === undefined) throw new KgateError('not_found', 'The webhook endpoint does not exist.');
        return updated;
      });
      return { endpoint: toEndpoint(row), secret };
    },

    async remove(actor, endpointId) {
      await managedEndpoint(actor.accountId, endpointId);
      const now = clock.now();
      await db.transaction(async (tx) => {
        const rows = await tx.query('UPDATE webhook_endpoints SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL RETURNING id', [endpointId, now]);
        if (rows.length === 0) throw new KgateError('not_found', 'The webhook endpoint does not exist.');
        // Its pending deliveries fall due now, so the next deliverDue ends them (failed, an execution `gave_up`).
        await tx.query(
          `UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE endpoint_id = $1 AND state = 'pending' AND next_attempt_at > $2`,
          [endpointId, now],
        );
      });
    },

    async enqueue(sql, message) {
      const now = clock.now();
      const endpoints = await sql.query<{ id: string; event_types: string[] }>(
        'SELECT id, event_types FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at, id',
        [message.workspaceId],
      );
      const named = message.endpointIds === undefined ? undefined : new Set(message.endpointIds);
      const targets = endpoints.filter(
        (endpoint) =>
          (named === undefined || named.has(endpoint.id)) &&
          (endpoint.event_types.length === 0 || endpoint.event_types.some((filter) => filterTakes(filter, message.eventType))),
      );
      if (targets.length === 0) return [];
      // Fixed now: every attempt sends these bytes, so a signature a receiver checked once stays checkable.
      const payload = JSON.stringify({ type: message.eventType, timestamp: now.toISOString(), contract: AUTOMATION_CONTRACT, data: message.data });
      const ids: string[] = [];
      for (const endpoint of targets) {
        const id = newMessageId();
        await sql.query(
          `INSERT INTO webhook_deliveries (id, endpoint_id, workspace_id, run_id, event_type, payload, state, attempts, next_attempt_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7)`,
          [id, endpoint.id, message.workspaceId, message.runId ?? null, message.eventType, payload, now],
        );
        ids.push(id);
      }
      return ids;
    },

    async deliverDue(options = {}) {
      const summary: DeliverySummary = { deliveriesAttempted: 0, delivered: 0, failedAttempts: 0, gaveUp: 0 };
      // Without the keys no secret opens: deliveries wait (pending) rather than fail for a configuration gap.
      if (sealer === undefined) return summary;
      if (options.workspaceIds !== undefined && options.workspaceIds.length === 0) return summary;
      const limit = Math.min(Math.max(Math.floor(options.limit ?? DEFAULT_BATCH), 1), MAX_BATCH);
      const now = clock.now();
      const lease = new Date(now.getTime() + leaseMs);
      // One statement claims: rows another process holds (locked or leased) are skipped, so no attempt is sent twice.
      const claimed = await db.query<ClaimedRow>(
        `UPDATE webhook_deliveries SET lease_until = $1
         WHERE id IN (
           SELECT id FROM webhook_deliveries
           WHERE state = 'pending' AND next_attempt_at <= $2 AND (lease_until IS NULL OR lease_until < $2)
             AND ($3::uuid[] IS NULL OR workspace_id = ANY($3::uuid[]))
           ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING id, endpoint_id, workspace_id, run_id, event_type, payload, attempts`,
        [lease, now, options.workspaceIds === undefined ? null : uuidArrayParam(options.workspaceIds), limit],
      );
      if (claimed.length === 0) return summary;
      const endpointIds = [...new Set(claimed.map((row) => row.endpoint_id))];
      const endpoints = new Map(
        (await db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ANY($1::uuid[])`, [uuidArrayParam(endpointIds)])).map(
          (row) => [row.id, row],
        ),
      );
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < claimed.length) {
          const row = claimed[next]!;
          next += 1;
          await attemptOne(row, endpoints.get(row.endpoint_id), lease, summary);
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, claimed.length) }, worker));
      return summary;
    },

    async deliveriesOfRun(runId, sql = db) {
      const rows = await sql.query<{ state: 'pending' | 'delivered' | 'failed'; n: number }>(
        'SELECT state, count(*)::int AS n FROM webhook_deliveries WHERE run_id = $1 GROUP BY state',
        [runId],
      );
      const counts = { pending: 0, delivered: 0, failed: 0 };
      for (const row of rows) counts[row.state] = row.n;
      return counts;
    },

    async executions(actor, workspaceId, query = {}) {
      await workspaces.authorize(actor.accountId, workspaceId, 'automation.manage');
      return listExecutions(db, workspaceId, query);
    },
  };
}

/** Ends a claimed delivery (delivered or failed) if this process still holds its lease; answers whether it did. */
async function finish(sql: Sql, id: string, lease: Date, state: 'delivered' | 'failed', attempts: number, at: Date): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE webhook_deliveries SET state = $3, attempts = $4, next_attempt_at = NULL, lease_until = NULL, finished_at = $5
     WHERE id = $1 AND state = 'pending' AND lease_until = $2 RETURNING id`,
    [id, lease, state, attempts, at],
  );
  return rows.length > 0;
}

/** The secrets that sign now: the current one, then the previous one while it overlaps. Undefined if one will not open. */
function openSecrets(sealer: TokenSealer, endpoint: EndpointRow, at: Date): string[] | undefined {
  const context = secretContext(endpoint.id);
  try {
    const secrets = [sealer.open(endpoint.secret_sealed, context)];
    if (endpoint.previous_secret_sealed !== null && endpoint.previous_secret_expires_at !== null && endpoint.previous_secret_expires_at > at) {
      secrets.push(sealer.open(endpoint.previous_secret_sealed, context));
    }
    return secrets;
  } catch {
    return undefined;
  }
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    secretHint: row.secret_hint,
    secretRotatedAt: row.secret_rotated_at ? row.secret_rotated_at.toISOString() : null,
    previousSecretExpiresAt: row.previous_secret_expires_at ? row.previous_secret_expires_at.toISOString() : null,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
  };
}
