import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { ProposalsService } from '../proposals/index.ts';
import type { VaultsService } from '../vaults/index.ts';
import { roleAllows, type WorkspacesService } from '../workspaces/index.ts';
import {
  MAX_TRIGGERS_PER_WORKSPACE,
  TriggerCreateSchema,
  TriggerPatchSchema,
  type AutomationService,
  type Trigger,
  type TriggerAction,
  type TriggerWhen,
  type WebhooksService,
} from './contract.ts';
import { eventFingerprint, normalizeEvent } from './events/normalize.ts';
import * as events from './events/store.ts';
import { processAutomation } from './process.ts';
import * as runs from './runs/store.ts';
import { conditionsHold, filterTakes } from './triggers/match.ts';
import * as triggers from './triggers/store.ts';

/** What the automation service needs. */
export interface AutomationDependencies {
  db: Database;
  clock: Clock;
  workspaces: Pick<WorkspacesService, 'authorize' | 'listWorkspaces'>;
  proposals: ProposalsService;
  webhooks: WebhooksService;
  vaults: Pick<VaultsService, 'resolveHostedMapping' | 'findMappingAsOperator'>;
}

/** Parses a trigger's input; what does not fit is `invalid_request` naming the field (direct callers, the pages). */
function parseInput<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } } }, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.') || '(trigger)';
  throw new KgateError('invalid_request', `The trigger is not valid: ${field}: ${issue.message}.`, { field });
}

const unknownTrigger = () => new KgateError('not_found', 'No such trigger.');
const unknownRun = () => new KgateError('not_found', 'No such run.');

/**
 * Builds the automation service (docs/automation.md): events, triggers, runs and `process`. Authority comes from the
 * caller's workspace role, read from the server's records on every call.
 */
export function createAutomationService(deps: AutomationDependencies): AutomationService {
  const { db, clock, workspaces } = deps;
  const manage = async (actor: Actor, workspaceId: string, sql: Sql = db) => {
    if (!isUuid(workspaceId)) throw new KgateError('not_found', 'The workspace does not exist.');
    return workspaces.authorize(actor.accountId, workspaceId, 'automation.manage', sql);
  };

  /** Checks what a trigger's `when` and `action` name: a mapping the creator may write in this workspace, its endpoints. */
  async function checkTrigger(actor: Actor, workspaceId: string, when: TriggerWhen, action: TriggerAction): Promise<void> {
    if ('eventType' in when && when.conditions) {
      for (const c of when.conditions) {
        if (!/^(?:type|source|subject|data(?:\.[A-Za-z0-9_-]+)+)$/.test(c.field)) {
          throw new KgateError('invalid_request', `A condition names ${c.field}; conditions test type, source, subject or data.<field>.`, { field: 'when.conditions' });
        }
      }
    }
    if (action.kind === 'propose') {
      const mapping = await deps.vaults.resolveHostedMapping(actor.accountId, action.mappingId, 'write').catch((error: unknown) => {
        if (error instanceof KgateError && (error.code === 'not_found' || error.code === 'forbidden')) {
          throw new KgateError('invalid_request', 'The propose action names a mapping you cannot change notes of.', { field: 'action.mappingId' });
        }
        throw error;
      });
      if (mapping.workspaceId !== workspaceId) {
        throw new KgateError('invalid_request', "The propose action's mapping belongs to another workspace.", { field: 'action.mappingId' });
      }
    } else if (action.endpointIds && action.endpointIds.length > 0) {
      const live = new Set((await deps.webhooks.list(actor, workspaceId)).map((e) => e.id));
      const unknown = action.endpointIds.filter((id) => !live.has(id));
      if (unknown.length > 0) {
        throw new KgateError('invalid_request', `The webhook action names endpoints this workspace does not have: ${unknown.join(', ')}.`, { field: 'action.endpointIds' });
      }
    }
  }

  const nextDue = (when: TriggerWhen, enabled: boolean): Date | null =>
    'everyMinutes' in when && enabled ? new Date(clock.now().getTime() + when.everyMinutes * 60_000) : null;

  async function triggerOf(actor: Actor, triggerId: string): Promise<Trigger> {
    if (!isUuid(triggerId)) throw unknownTrigger();
    const trigger = await triggers.findTrigger(db, triggerId);
    if (!trigger) throw unknownTrigger();
    await manage(actor, trigger.workspaceId).catch((error: unknown) => {
      // Another workspace's trigger looks exactly like no trigger.
      if (error instanceof KgateError && error.code === 'not_found') throw unknownTrigger();
      throw error;
    });
    return trigger;
  }

  return {
    async ingest(actor, raw, idempotencyKey, sql) {
      const event = normalizeEvent(raw);
      await manage(actor, event.workspaceId, sql);
      const fingerprint = eventFingerprint(event);
      const work = async (tx: Sql) => {
        const receivedAt = clock.now();
        const { stored, inserted } = await events.insertEvent(tx, { ...event, id: newId(), receivedBy: actor.accountId, key: idempotencyKey, fingerprint, receivedAt });
        if (!inserted) {
          if (stored.fingerprint !== fingerprint) {
            throw new KgateError('idempotency_key_reused', 'This workspace already received another event under this Idempotency-Key; nothing was stored.');
          }
          return { event: stored.event, duplicate: true, runIds: await events.runsOfEvent(tx, stored.event.id) };
        }
        const matching = (await triggers.eventTriggersOf(tx, event.workspaceId)).filter(
          (t) => 'eventType' in t.when && filterTakes(t.when.eventType, stored.event.type) && conditionsHold(stored.event, t.when.conditions ?? []),
        );
        const runIds: string[] = [];
        for (const trigger of matching) {
          const id = newId();
          await runs.insertRun(tx, { id, trigger, eventId: stored.event.id, at: receivedAt, step: 'matched', detail: { eventId: stored.event.id, eventType: stored.event.type, source: stored.event.source } });
          runIds.push(id);
        }
        if (matching.length > 0) await events.setMatched(tx, stored.event.id, matching.length);
        return { event: stored.event, duplicate: false, runIds };
      };
      return sql === undefined || sql === db ? db.transaction(work) : work(sql);
    },

    async listTriggers(actor, workspaceId) {
      await manage(actor, workspaceId);
      return triggers.listTriggers(db, workspaceId);
    },

    async createTrigger(actor, rawInput) {
      const input = parseInput(TriggerCreateSchema, rawInput);
      await manage(actor, input.workspaceId);
      await checkTrigger(actor, input.workspaceId, input.when, input.action);
      const enabled = input.enabled ?? true;
      return db.transaction(async (tx) => {
        // The workspace's row is the lock that makes the count hold under concurrent creations.
        await tx.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [input.workspaceId]);
        if ((await triggers.countTriggers(tx, input.workspaceId)) >= MAX_TRIGGERS_PER_WORKSPACE) {
          throw new KgateError('conflict', `A workspace has at most ${MAX_TRIGGERS_PER_WORKSPACE} triggers; delete one first.`, { limit: MAX_TRIGGERS_PER_WORKSPACE });
        }
        return triggers.insertTrigger(tx, {
          id: newId(),
          workspaceId: input.workspaceId,
          createdBy: actor.accountId,
          at: clock.now(),
          name: input.name,
          enabled,
          when: input.when,
          action: input.action,
          nextDueAt: nextDue(input.when, enabled),
        });
      });
    },

    async updateTrigger(actor, triggerId, rawPatch) {
      const patch = parseInput(TriggerPatchSchema, rawPatch);
      const current = await triggerOf(actor, triggerId);
      if (patch.expectedVersion !== undefined && patch.expectedVersion !== current.version) {
        throw new KgateError('conflict', `The trigger is at version ${current.version}, not ${patch.expectedVersion}; read it again.`, { version: current.version });
      }
      const when = patch.when ?? current.when;
      const action = patch.action ?? current.action;
      const enabled = patch.enabled ?? current.enabled;
      if (patch.when || patch.action) await checkTrigger(actor, current.workspaceId, when, action);
      // A schedule keeps its due time unless its interval changed or it was switched on again.
      const keepDue = current.nextDueAt !== null && !patch.when && enabled;
      const updated = await triggers.updateTrigger(
        db,
        current.id,
        current.version,
        { name: patch.name ?? current.name, enabled, when, action, nextDueAt: keepDue ? new Date(current.nextDueAt!) : nextDue(when, enabled) },
        clock.now(),
      );
      if (!updated) throw new KgateError('conflict', 'The trigger changed while this change was made; read it again.');
      return updated;
    },

    async deleteTrigger(actor, triggerId) {
      const trigger = await triggerOf(actor, triggerId);
      await triggers.deleteTrigger(db, trigger.id);
    },

    async listRuns(actor, workspaceId, query = {}) {
      await manage(actor, workspaceId);
      if (query.triggerId !== undefined && !isUuid(query.triggerId)) {
        throw new KgateError('invalid_request', 'triggerId is not a trigger id.', { field: 'triggerId' });
      }
      return runs.listRuns(db, workspaceId, query);
    },

    async getRun(actor, runId) {
      if (!isUuid(runId)) throw unknownRun();
      const run = await runs.findRun(db, runId);
      if (!run) throw unknownRun();
      await manage(actor, run.workspaceId).catch((error: unknown) => {
        if (error instanceof KgateError && error.code === 'not_found') throw unknownRun();
        throw error;
      });
      const { accountId: _account, ...visible } = run;
      return visible;
    },

    async process(scope) {
      const workspaceIds =
        scope === 'all'
          ? undefined
          : (await workspaces.listWorkspaces(scope.accountId)).filter((w) => roleAllows(w.role, 'automation.manage')).map((w) => w.id);
      return processAutomation(deps, scope, workspaceIds);
    },
  };
}
