import type { Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { GroupHooks, Settled, SharedMember } from '../idempotency/index.ts';
import { appendEvents, type EventKind, type NewProvenanceEvent } from '../provenance/index.ts';
import { approvalRefusal, type HostedMapping, type NoteChangeCapability } from '../vaults/index.ts';
import { againstHashOf, findReceipts, matchReceipt, previewedAgainst } from './receipts.ts';
import { keysOf, lockAndLoadState, rewritesLinks } from './plan-state.ts';
import { planTransaction, type CanonicalAction, type PlannedAction } from './plan-transaction.ts';
import { assertMayChangeNotes } from './policy.ts';
import * as trash from './trash-store.ts';
import { writeNoteChanges, type NoteChanges } from './change-store.ts';
import type { MatchedPreview, TransactionResult } from './transaction-contract.ts';
import type { NoteTransition, NoteWriteDeps } from './write-deps.ts';
import { changedBy } from './changed-by.ts';
import { unifiedDiff } from './diff.ts';

/**
 * An applied transaction made ready outside any database transaction: its actions canonical, and each written
 * note's row (hash, title, Markdown model) computed, so that the vault's lock is held for database work only.
 */
export interface PreparedTransaction {
  actor: Actor;
  mappingId: string;
  capability: NoteChangeCapability;
  actions: readonly CanonicalAction[];
  /** notesHashOf(actions): what a preview receipt of exactly these actions records. */
  notesHash: string;
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

/**
 * The diff an event keeps: of a change that replaced a note's content (an update, a move that changed it, a link
 * rewrite), bounded as previews' are. Creations, deletions and restores keep none: their content is the note itself
 * or its trash entry.
 */
function eventDiff(effect: NonNullable<PlannedAction['effect']>): { diff?: string; truncated?: true } {
  const replaced = effect.kind === 'write' ? effect.before : effect.kind === 'move' || effect.kind === 'rewrite' ? effect.note : undefined;
  if (!replaced || effect.kind === 'delete' || effect.kind === 'restore' || replaced.content === effect.write.content) return {};
  const { diff, diffTruncated } = unifiedDiff(replaced.path, replaced.content, effect.write.content, effect.write.path);
  return diffTruncated ? { diff, truncated: true } : { diff };
}

/** A member whose caller may change the mapping's notes: its place in the group, and for its events, mapping and key. */
interface Accepted {
  index: number;
  prepared: PreparedTransaction;
  mapping: HostedMapping;
  key: string;
}

function eventsOf(member: Accepted & { planned: readonly PlannedAction[]; matched: MatchedPreview }): NewProvenanceEvent[] {
  const { mapping, prepared, key, matched } = member;
  // Every event of an apply names the preview it matched, so the feed shows the preview, then the apply.
  const receipt = matched ? { previewReceipt: matched.id, previewedAt: matched.previewedAt } : {};
  const actor = prepared.actor;
  return member.planned.flatMap(({ effect, result }) => {
    if (!effect) return [];
    const { diff, truncated } = eventDiff(effect);
    return [
      {
        ...changedBy(actor, mapping),
        kind: eventKind(effect),
        path: effect.kind === 'move' ? effect.write.path : result.path,
        beforeRevision: result.beforeRevision,
        afterRevision: result.afterRevision,
        idempotencyKey: key,
        trashId: result.trashId,
        details: truncated ? { ...eventDetails(effect), ...receipt, diffTruncated: true } : { ...eventDetails(effect), ...receipt },
        ...(diff === undefined ? {} : { diff }),
      },
    ];
  });
}

/**
 * Writes the effects and events of every accepted member of one vault, each kind of change in one statement for all
 * of them, the statements sent together (change-store.ts): trash copies, note rows and links, restored entries,
 * provenance events.
 */
/** Where each effect leaves notes: gone from a path, or at a path with new content. */
function transitionsOf(effects: ReadonlyArray<NonNullable<PlannedAction['effect']>>): NoteTransition[] {
  return effects.flatMap((e): NoteTransition[] => {
    const at = (write: { path: string; contentHash: string; content: string }) => ({ path: write.path, after: { revision: write.contentHash, content: write.content } });
    switch (e.kind) {
      case 'delete':
        return [{ path: e.note.path, after: null }];
      case 'move':
        return [{ path: e.note.path, after: null }, at(e.write)];
      case 'write':
        return e.before && e.before.path !== e.write.path ? [{ path: e.before.path, after: null }, at(e.write)] : [at(e.write)];
      case 'rewrite':
      case 'restore':
        return [at(e.write)];
    }
  });
}

async function execute(
  deps: NoteWriteDeps,
  sql: Sql,
  vaultId: string,
  writing: ReadonlyArray<Accepted & { planned: readonly PlannedAction[]; matched: MatchedPreview }>,
): Promise<void> {
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
    // Knowledge compiles from the same change, in the same transaction (its reads run after the writes above).
    deps.observeChanges && !writing[0]!.mapping.deviceEncrypted
      ? deps.observeChanges(sql, vaultId, transitionsOf(effects.map((e) => e.effect)))
      : undefined,
  ]);
}

/** The refusal of a planned apply: its first problem, with every problem listed; undefined when it has none. */
export function failure(planned: readonly PlannedAction[]): KgateError | undefined {
  const problems = planned.flatMap((p) => (p.problem ? [{ index: p.result.index, path: p.result.path, ...p.problem }] : []));
  const first = problems[0];
  if (!first) return undefined;
  return new KgateError(first.code, `Action ${first.index} (${first.path}): ${first.detail}`, { ...first.details, problems });
}

/** A refusal settles its member; anything else is a failure of the whole group. */
function refusal(error: unknown): Settled<never> {
  if (error instanceof KgateError) return { ok: false, error };
  throw error;
}

/**
 * Applies prepared note transactions to one mapping in one open database transaction: a group commit of several
 * (GroupRunner), or one alone. Round trip one, sent behind the group's claims: each caller's authority over the
 * mapping, the lock of its vault and the notes and trash entries every member names. Then, for each admitted
 * member, policy and planning against that one state (their keys are disjoint, so no member sees another's change);
 * a member with any problem is refused, writing nothing. Round trip two: all accepted members' writes, each kind of
 * change in one statement (trash copies, removals, moves, rows and links, restored entries, one provenance event per
 * change under the member's own key), sent together with the storing of every outcome. Throws (and so fails the
 * group) only on an unexpected error, or when members were given that may not share a group: other mappings,
 * overlapping keys, or more than one member when one rewrites links.
 */
export async function applyTransactions(
  deps: NoteWriteDeps,
  sql: Sql,
  members: ReadonlyArray<SharedMember<PreparedTransaction>>,
  hooks: GroupHooks<TransactionResult>,
): Promise<void> {
  const mappingId = members[0]!.payload.mappingId;
  if (members.some((m) => m.payload.mappingId !== mappingId)) throw new Error('a group applies to one mapping');
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
  // Round trip one. Authority is read in the transaction, once per caller; the reads are of the mapping's vault, so
  // they need not wait for it to be known. A refusal is settled member by member below, never left unhandled.
  const authority = new Map<string, Promise<HostedMapping>>();
  for (const { payload } of members) {
    const accountId = payload.actor.accountId;
    if (authority.has(accountId)) continue;
    const resolving = deps.vaults.resolveHostedMapping(accountId, mappingId, 'write', sql);
    resolving.catch(() => undefined);
    authority.set(accountId, resolving);
  }
  const loading = isUuid(mappingId) ? lockAndLoadState(sql, mappingId, members.flatMap((m) => m.payload.actions)) : Promise.resolve(undefined);
  loading.catch(() => undefined);
  // The preview receipts any member may match, read beside the lock (receipts.ts).
  const receipts = isUuid(mappingId) ? findReceipts(sql, mappingId, members.map((m) => m.payload.notesHash)) : Promise.resolve([]);
  receipts.catch(() => undefined);
  const admitted = await hooks.admitted;

  const settled: Array<Settled<TransactionResult> | undefined> = members.map(() => undefined);
  const accepted: Accepted[] = [];
  for (const [index, { payload, key }] of members.entries()) {
    if (!admitted[index]) continue;
    try {
      const mapping = await authority.get(payload.actor.accountId)!;
      assertMayChangeNotes(mapping, payload.actions, payload.capability);
      // A remote mapping's notes change at its provider (remote-writes.ts), never here: its vault is only the copy.
      if (mapping.provider !== 'hosted') throw new KgateError('unavailable', 'This way of applying changes is not available for remote mappings; apply one note per request through the note-change tools or routes.');
      accepted.push({ index, prepared: payload, mapping, key });
    } catch (error) {
      settled[index] = refusal(error);
    }
  }
  const loaded = await loading;
  const writing: Array<Accepted & { planned: readonly PlannedAction[]; matched: MatchedPreview }> = [];
  if (accepted.length > 0) {
    // Authority found the same hosted vault that was locked and read (a mapping never changes its vault).
    if (!loaded || loaded.vaultId !== accepted[0]!.mapping.vaultId) throw new Error('the locked vault is not the vault of the mapping');
    const found = await receipts;
    for (const member of accepted) {
      const { actions, actor, notesHash, capability } = member.prepared;
      const planned = planTransaction(actions, loaded.state, 'apply', { withDiff: false });
      const results = planned.map((p) => p.result);
      const matched = matchReceipt(found, actor, notesHash, againstHashOf(previewedAgainst(actions, results)));
      // The owner's approval policy first: under it, a change not previewed (or now at other revisions) is refused as such.
      const refused = approvalRefusal(member.mapping.approvalPolicy, capability, matched !== null) ?? failure(planned);
      if (refused) settled[member.index] = { ok: false, error: refused };
      else {
        writing.push({ ...member, planned, matched });
        settled[member.index] = {
          ok: true,
          value: { mappingId: member.mapping.id, dryRun: false, applied: true, actions: results, previewReceipt: matched },
        };
      }
    }
  }
  // Round trip two: the writes and the outcomes together.
  const stored = hooks.settle(settled);
  if (writing.length === 0) return stored;
  const vaultId = loaded!.vaultId;
  await Promise.all([execute(deps, sql, vaultId, writing), stored]);
  sql.afterCommit(() => deps.onContentChanged(vaultId));
}
