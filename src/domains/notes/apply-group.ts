import type { Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { Settled, SharedMember } from '../idempotency/index.ts';
import { appendEvents, type EventKind, type NewProvenanceEvent } from '../provenance/index.ts';
import type { HostedMapping, NoteChangeCapability } from '../vaults/index.ts';
import { keysOf, loadState, rewritesLinks } from './plan-state.ts';
import { planTransaction, type CanonicalAction, type PlannedAction } from './plan-transaction.ts';
import { assertMayChangeNotes } from './policy.ts';
import * as store from './store.ts';
import * as trash from './trash-store.ts';
import { writeNoteChanges, type NoteChanges } from './change-store.ts';
import type { TransactionResult } from './transaction-contract.ts';
import type { NoteWriteDeps } from './write-deps.ts';

/**
 * An applied transaction made ready outside any database transaction: its actions canonical, and each written
 * note's row (hash, title, Markdown model) computed, so that the vault's lock is held for database work only.
 */
export interface PreparedTransaction {
  actor: Actor;
  mappingId: string;
  capability: NoteChangeCapability;
  actions: readonly CanonicalAction[];
}

function eventKind(effect: NonNullable<PlannedAction['effect']>): EventKind {
  switch (effect.kind) {
    case 'delete':
      return 'note.deleted';
    case 'restore':
      return 'note.restored';
    case 'move':
      return 'note.moved';
    case 'rewrite':
      return 'note.updated';
    case 'write':
      return effect.before ? 'note.updated' : 'note.created';
  }
}

function eventDetails(effect: NonNullable<PlannedAction['effect']>): Record<string, unknown> {
  if (effect.kind === 'move') return { previousPath: effect.note.path };
  if (effect.kind === 'rewrite') return { via: 'link-rewrite' };
  return effect.kind === 'write' && effect.before && effect.before.path !== effect.write.path ? { previousPath: effect.before.path } : {};
}

/** What one accepted member changes: its plan, and for its events, the mapping, actor and key. */
interface Accepted {
  index: number;
  prepared: PreparedTransaction;
  mapping: HostedMapping;
  key: string;
  planned?: readonly PlannedAction[];
}

function eventsOf(member: Accepted & { planned: readonly PlannedAction[] }): NewProvenanceEvent[] {
  const { mapping, prepared, key } = member;
  const actor = prepared.actor;
  return member.planned.flatMap(({ effect, result }) => {
    if (!effect) return [];
    return [
      {
        mappingId: mapping.id,
        vaultId: mapping.vaultId,
        accountId: actor.accountId,
        credentialKind: actor.credentialKind,
        credentialId: actor.credentialId,
        client: actor.client,
        kind: eventKind(effect),
        path: effect.kind === 'move' ? effect.write.path : result.path,
        beforeRevision: result.beforeRevision,
        afterRevision: result.afterRevision,
        idempotencyKey: key,
        trashId: result.trashId,
        details: eventDetails(effect),
      },
    ];
  });
}

/**
 * Writes the effects and events of every accepted member of one vault, each kind of change in one statement for all
 * of them, the statements sent together (change-store.ts): trash copies, note rows and links, restored entries,
 * provenance events.
 */
async function execute(sql: Sql, vaultId: string, writing: ReadonlyArray<Accepted & { planned: readonly PlannedAction[] }>): Promise<void> {
  const effects = writing.flatMap((m) => m.planned.flatMap((p) => (p.effect ? [{ effect: p.effect, accountId: m.prepared.actor.accountId }] : [])));
  const deletes = effects.flatMap(({ effect, accountId }) => (effect.kind === 'delete' ? [{ ...effect, accountId }] : []));
  const moves = effects.flatMap(({ effect }) => (effect.kind === 'move' ? [effect] : []));
  const changes: NoteChanges = {
    deletes: deletes.map((d) => d.note.id),
    moves: moves.map((m) => ({ id: m.note.id, path: m.write.path, pathKey: m.write.pathKey, title: m.write.title })),
    // A move whose links were rewritten is then written in its row, after the move.
    updates: effects.flatMap(({ effect: e }) =>
      (e.kind === 'write' && e.before) || e.kind === 'rewrite' || (e.kind === 'move' && e.write.contentHash !== e.note.contentHash)
        ? [{ ...e.write, id: e.kind === 'write' ? e.before!.id : e.note.id }]
        : [],
    ),
    creates: effects.flatMap(({ effect: e }) => ((e.kind === 'write' && !e.before) || e.kind === 'restore' ? [e.write] : [])),
  };
  await Promise.all([
    // The trash copy is written before the live note is removed (spec 3.1), in the same transaction.
    trash.insertTrash(
      sql,
      vaultId,
      deletes.map((d) => ({
        id: d.trashId,
        originalPath: d.note.path,
        content: d.note.content,
        contentHash: d.note.contentHash,
        size: d.note.size,
        title: d.note.title,
        deletedBy: d.accountId,
      })),
    ),
    writeNoteChanges(sql, vaultId, changes),
    trash.markRestored(sql, effects.flatMap(({ effect }) => (effect.kind === 'restore' ? [effect.entry.id] : []))),
    appendEvents(sql, writing.flatMap(eventsOf)),
  ]);
}

function failure(planned: readonly PlannedAction[]): KgateError | undefined {
  const problems = planned.flatMap((p) => (p.problem ? [{ index: p.result.index, path: p.result.path, ...p.problem }] : []));
  const first = problems[0];
  if (!first) return undefined;
  return new KgateError(first.code, `Action ${first.index} (${first.path}): ${first.detail}`, { problems });
}

/** A refusal settles its member; anything else is a failure of the whole group. */
function refusal(error: unknown): Settled<never> {
  if (error instanceof KgateError) return { ok: false, error };
  throw error;
}

/**
 * Applies prepared note transactions in one open database transaction (a group commit of several, or one alone).
 * For each member it checks authority and policy, then, per vault, locks the vault once, reads the state every
 * member touches once, plans each member against it (their keys are disjoint, so no member sees another's change),
 * refuses a member with any problem without writing anything of it, and writes all accepted members together:
 * trash copies before removals, each kind of change in one statement, one provenance event per change under the
 * member's own key. Throws (and so fails the group) only on an unexpected error, or when members were given that
 * may not share a group: overlapping keys, or more than one member when one rewrites links.
 */
export async function applyTransactions(
  deps: NoteWriteDeps,
  sql: Sql,
  members: ReadonlyArray<SharedMember<PreparedTransaction>>,
): Promise<Array<Settled<TransactionResult>>> {
  if (members.length > 1) {
    const seen = new Set<string>();
    for (const { payload } of members) {
      if (rewritesLinks(payload.actions)) throw new Error('a transaction that rewrites links is applied alone');
      for (const key of keysOf(payload.actions)) {
        if (seen.has(key)) throw new Error(`two transactions of one group touch ${key}`);
        seen.add(key);
      }
    }
  }
  const settled: Array<Settled<TransactionResult> | undefined> = members.map(() => undefined);
  // Authority is read in the transaction, once per caller and mapping, all in one round trip.
  const mappings = new Map<string, Promise<HostedMapping>>();
  for (const { payload } of members) {
    const id = `${payload.actor.accountId}\u0000${payload.mappingId}`;
    const resolving = mappings.get(id) ?? deps.vaults.resolveHostedMapping(payload.actor.accountId, payload.mappingId, 'write', sql);
    // Settled below, member by member; a refusal of one caller must not surface as unhandled meanwhile.
    resolving.catch(() => undefined);
    mappings.set(id, resolving);
  }
  const accepted: Accepted[] = [];
  for (const [index, { payload, key }] of members.entries()) {
    try {
      const mapping = await mappings.get(`${payload.actor.accountId}\u0000${payload.mappingId}`)!;
      assertMayChangeNotes(mapping, payload.actions, payload.capability);
      accepted.push({ index, prepared: payload, mapping, key });
    } catch (error) {
      settled[index] = refusal(error);
    }
  }
  const vaultIds = [...new Set(accepted.map((m) => m.mapping.vaultId))].sort();
  // Locks in one order, so that two groups over the same vaults never wait for each other in a circle. The state is
  // read right behind the locks, in the same round trip: statements on one connection run in the order sent.
  const locked = Promise.all(vaultIds.map((vaultId) => store.lockVault(sql, vaultId)));
  const states = vaultIds.map((vaultId) =>
    loadState(sql, vaultId, accepted.filter((m) => m.mapping.vaultId === vaultId).flatMap((m) => m.prepared.actions), 'apply'),
  );
  await Promise.all([locked, ...states]);
  for (const [v, vaultId] of vaultIds.entries()) {
    const inVault = accepted.filter((m) => m.mapping.vaultId === vaultId);
    const state = await states[v]!;
    const writing: Array<Accepted & { planned: readonly PlannedAction[] }> = [];
    for (const member of inVault) {
      const planned = planTransaction(member.prepared.actions, state, 'apply', { withDiff: false });
      const refused = failure(planned);
      if (refused) settled[member.index] = { ok: false, error: refused };
      else writing.push({ ...member, planned });
    }
    if (writing.length === 0) continue;
    await execute(sql, vaultId, writing);
    sql.afterCommit(() => deps.onContentChanged(vaultId));
    for (const member of writing) {
      settled[member.index] = {
        ok: true,
        value: { mappingId: member.mapping.id, dryRun: false, applied: true, actions: member.planned.map((p) => p.result) },
      };
    }
  }
  return settled.map((s) => s!);
}
