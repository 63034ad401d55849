import { randomBytes, randomUUID } from 'node:crypto';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver/index.ts';
import { openDomainDatabase, type DomainDatabase } from './domain-database.ts';
import { createOwner, type Owner } from './fixtures.ts';
import { createWebhookTransport } from '../../src/app/webhook-http.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import type { Actor } from '../../src/kernel/principal.ts';
import { createTokenSealer, parseTokenKeys } from '../../src/domains/providers/index.ts';
import type { AutomationService, WebhooksService } from '../../src/domains/automation/index.ts';
import { createAutomationService } from '../../src/domains/automation/index.ts';
import { createWebhooksService } from '../../src/domains/automation/webhooks/index.ts';

/** A clock the tests move on by hand (schedules, retries), starting at the real time. */
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

/** What the automation tests start from: the real services, a receiver, and people of every role in one workspace. */
export interface AutomationFixture extends DomainDatabase {
  clock: ManualClock;
  receiver: WebhookReceiver;
  webhooks: WebhooksService;
  automation: AutomationService;
  admin: Owner;
  editor: Owner;
  viewer: Owner;
  stranger: Owner;
  /** The owner signed in on the page (approvals are a person's act). */
  ownerSession: Actor;
  /** Rows of an automation table of the owner's workspace. */
  count(table: 'automation_events' | 'automation_runs' | 'automation_triggers' | 'automation_run_steps' | 'automation_executions' | 'webhook_deliveries'): Promise<number>;
  close(): Promise<void>;
}

/** Opens a database with the real services and builds the automation and webhooks services over them. */
export async function openAutomation(label: string): Promise<AutomationFixture> {
  const clock = manualClock();
  const domain = await openDomainDatabase(label, clock);
  const receiver = await startWebhookReceiver();
  const { services, db, owner } = domain;
  const webhooks = createWebhooksService({
    db,
    clock,
    workspaces: services.workspaces,
    sealer: createTokenSealer(parseTokenKeys(`k1:${randomBytes(32).toString('base64')}`)),
    transport: createWebhookTransport({ allowPrivateAddresses: true, ca: receiver.cert }),
    retrySchedule: [1000, 2000],
  });
  const automation = createAutomationService({ db, clock, workspaces: services.workspaces, proposals: services.proposals, webhooks, vaults: services.vaults });
  const member = async (name: string, role: 'admin' | 'editor' | 'viewer') => {
    const person = await createOwner(services, name);
    await services.workspaces.setMemberRole(owner.workspaceId, person.accountId, role);
    return person;
  };
  const count: AutomationFixture['count'] = async (table) => {
    const where = table === 'automation_run_steps' ? 'run_id IN (SELECT id FROM automation_runs WHERE workspace_id = $1)' : 'workspace_id = $1';
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, [owner.workspaceId]);
    return row!.n;
  };
  return {
    ...domain,
    clock,
    receiver,
    webhooks,
    automation,
    admin: await member('admin', 'admin'),
    editor: await member('editor', 'editor'),
    viewer: await member('viewer', 'viewer'),
    stranger: await createOwner(services, 'stranger'),
    ownerSession: { accountId: owner.accountId, credentialKind: 'session', credentialId: randomUUID() },
    count,
    async close() {
      await receiver.close();
      await db.close();
    },
  };
}

/** The code of the refusal `work` ends in (it must refuse). */
export async function refusalOf(work: () => Promise<unknown>): Promise<{ code: string; details: Record<string, unknown> | undefined }> {
  try {
    await work();
  } catch (error) {
    const e = error as { code?: string; details?: Record<string, unknown> };
    if (typeof e.code === 'string') return { code: e.code, details: e.details };
    throw error;
  }
  throw new Error('accepted, not refused');
}
