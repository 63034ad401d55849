/**
 * The automation gateway as its tests reach it: a real gateway whose webhook signing secrets can be sealed
 * (KGATE_PROVIDER_TOKEN_KEYS, a random key), that moves automation on only when asked (KGATE_AUTOMATION_PROCESS_MS=0:
 * the tests call POST /process), and whose webhook transport trusts a local receiver's self-signed certificate on
 * 127.0.0.1; one workspace on the Team plan with an owner, an admin, an editor and a viewer, each with a personal
 * access token and a password (their REST allowances raised: the tests read everything back after each refusal);
 * its hosted mapping; and a client of /api/dev/automation per member.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { WorkspaceRole } from '../../src/domains/workspaces/index.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import { createWebhookTransport } from '../../src/app/webhook-http.ts';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.ts';
import { restClient, type ApiResponse, type RequestOptions } from './rest-client.ts';

/** A member of the test workspace: its role, how it signs in, its token and its automation client. */
export interface AutomationMember {
  role: WorkspaceRole;
  email: string;
  password: string;
  accountId: string;
  token: string;
  api: AutomationClient;
}

/** Options of {@link startAutomationGateway}. */
export interface AutomationGatewayOptions {
  /** The gateway's clock (the retry test moves it forward between POST /process calls). */
  clock?: Clock;
  /** Trusted certificates (PEM) of the local receivers the gateway delivers to. */
  trust?: string | readonly string[];
  /** More environment for the configuration. */
  env?: Record<string, string>;
  /**
   * `trusting` (default): a transport that trusts `trust` and allows private addresses, for local receivers;
   * `default`: the gateway's own, configured from its environment (private addresses refused).
   */
  transport?: 'trusting' | 'default';
}

/** A started automation gateway with its workspace, mapping and members. */
export interface AutomationGateway {
  gateway: TestGateway;
  workspaceId: string;
  mappingId: string;
  owner: AutomationMember;
  admin: AutomationMember;
  editor: AutomationMember;
  viewer: AutomationMember;
  /** Every member, owner first. */
  members: readonly AutomationMember[];
  stop(): Promise<void>;
}

/** A client of /api/dev/automation with one member's token (pass `token: null` or another token per request). */
export function automationClient(gateway: Pick<TestGateway, 'url'>, token: string) {
  const rest = restClient(gateway, token);
  const at = (path: string) => `/automation${path}`;
  const request = <T = Record<string, unknown>>(method: string, path: string, options?: RequestOptions) => rest.request<T>(method, at(path), options);
  return {
    request,
    get: <T = Record<string, unknown>>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
    post: <T = Record<string, unknown>>(path: string, options?: RequestOptions) => request<T>('POST', path, options),
    patch: <T = Record<string, unknown>>(path: string, options?: RequestOptions) => request<T>('PATCH', path, options),
    delete: <T = Record<string, unknown>>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
    /** POST /events under an Idempotency-Key. */
    ingest: <T = Record<string, unknown>>(event: unknown, key: string, options: RequestOptions = {}) =>
      request<T>('POST', '/events', { ...options, json: event, headers: { 'idempotency-key': key, ...(options.headers ?? {}) } }),
    /** POST /process, expected to succeed: its summary. */
    async process(): Promise<ProcessSummaryBody> {
      const response = await request<ProcessSummaryBody>('POST', '/process');
      expect(response.status, response.text).toBe(200);
      return response.body;
    },
  };
}

/** See automationClient. */
export type AutomationClient = ReturnType<typeof automationClient>;

/** What POST /process answers. */
export interface ProcessSummaryBody {
  runsStarted: number;
  runsStepped: number;
  proposalsExecuted: number;
  deliveriesAttempted: number;
  delivered: number;
  failedAttempts: number;
  gaveUp: number;
}

/** A random 32-byte sealing key in the KGATE_PROVIDER_TOKEN_KEYS format. */
export function randomSealingKeys(): string {
  return `k1:${randomBytes(32).toString('base64')}`;
}

const PASSWORD_BYTES = 12;

/** Starts the gateway, makes the workspace (owner on the Team plan) and invites an admin, an editor and a viewer. */
export async function startAutomationGateway(options: AutomationGatewayOptions = {}): Promise<AutomationGateway> {
  const trust = options.trust === undefined ? [] : typeof options.trust === 'string' ? [options.trust] : [...options.trust];
  const gatewayOptions: TestGatewayOptions = {
    ...(options.clock ? { clock: options.clock } : {}),
    env: { KGATE_PROVIDER_TOKEN_KEYS: randomSealingKeys(), KGATE_AUTOMATION_PROCESS_MS: '0', ...options.env },
    ...(options.transport === 'default'
      ? {}
      : { webhookTransport: createWebhookTransport({ allowPrivateAddresses: true, ...(trust.length > 0 ? { ca: trust } : {}) }) }),
  };
  const gateway = await startTestGateway(gatewayOptions);
  try {
    const made = async (role: WorkspaceRole) => {
      const email = `automation-${role}-${randomBytes(4).toString('hex')}@example.test`;
      const password = `pw-${randomBytes(PASSWORD_BYTES).toString('hex')}`;
      const result = await gateway.services.onboarding.bootstrapOwner({ email, password });
      // The refusal tests read everything back after each refusal: far more calls a minute than a plan allows.
      await gateway.services.accounts.setAllowanceOverrides(result.accountId, { restOperationsPerMinute: 100_000, restOperationsPerMonth: 10_000_000 });
      return { result, member: { role, email, password, accountId: result.accountId, token: result.token, api: automationClient(gateway, result.token) } };
    };
    const { result: first, member: owner } = await made('owner');
    // Four members: more than the Developer & Agent plan's workspace holds. The members keep their own plans.
    await gateway.services.accounts.setPlan(owner.accountId, 'team');
    const invited: AutomationMember[] = [];
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      const { member } = await made(role);
      const { token } = await gateway.services.membership.invite(owner.accountId, first.workspaceId, role);
      await gateway.services.membership.acceptInvitation(member.accountId, token);
      invited.push(member);
    }
    const [admin, editor, viewer] = invited as [AutomationMember, AutomationMember, AutomationMember];
    return {
      gateway,
      workspaceId: first.workspaceId,
      mappingId: first.mapping.id,
      owner,
      admin,
      editor,
      viewer,
      members: [owner, admin, editor, viewer],
      stop: () => gateway.stop(),
    };
  } catch (error) {
    await gateway.stop();
    throw error;
  }
}

/** A clock the test moves forward: the wall clock plus an offset. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
}

/** See ManualClock. */
export function manualClock(): ManualClock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
  };
}

/** Row counts of everything the automation gateway stores for a workspace (and proposals), for "nothing stored". */
export async function automationCounts(gateway: Pick<TestGateway, 'db'>, workspaceId: string): Promise<Record<string, number>> {
  const tables = ['automation_events', 'webhook_endpoints', 'automation_triggers', 'automation_runs', 'webhook_deliveries', 'automation_executions'];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const rows = await gateway.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
    counts[table] = rows[0]?.n ?? 0;
  }
  const steps = await gateway.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM automation_run_steps s JOIN automation_runs r ON r.id = s.run_id WHERE r.workspace_id = $1',
    [workspaceId],
  );
  counts.automation_run_steps = steps[0]?.n ?? 0;
  const proposals = await gateway.db.query<{ n: number }>('SELECT count(*)::int AS n FROM action_proposals');
  counts.action_proposals = proposals[0]?.n ?? 0;
  return counts;
}

/** The stable error code of a problem answer. */
export function codeOf(response: ApiResponse): unknown {
  return (response.body as { code?: unknown }).code;
}
