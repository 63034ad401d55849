import type { Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { Actor } from '../../kernel/principal.ts';
import { approvalRefusal, type Mapping, type NoteChangeCapability } from '../vaults/index.ts';
import { failure } from './apply-group.ts';
import { writeOf, type PlanState } from './plan-model.ts';
import { planTransaction, type CanonicalAction } from './plan-transaction.ts';
import { assertMayChangeNotes } from './policy.ts';
import { againstHashOf, findReceipts, matchReceipt, notesHashOf, previewedAgainst } from './receipts.ts';
import type { ActionResult, MatchedPreview, NoteAction, TransactionResult } from './transaction-contract.ts';
import type { NoteWriteDeps, RemoteFileState, RemoteNotes } from './write-deps.ts';

/**
 * Applied changes to a remote mapping (docs/providers.md, "Writes"). The provider holds the notes, so a change is
 * made there first, conditionally on the provider's concurrency token, and recorded here afterwards; the two cannot
 * commit atomically, so an applied request holds exactly one note (spec 4.3 rule 7) and runs in two steps:
 *
 * 1. `stageRemoteChange`, once the idempotency key is claimed and outside any database transaction: the mapping's
 *    four write conditions, a live read of the note at the provider (its content hash is what `expectedHash` must
 *    match: the provider revision is not it, spec 2.3), the same planning and approval policy as a hosted apply, an
 *    intent recorded under the key, then the conditional provider write (a mismatch is `conflict`, nothing written).
 * 2. `recordRemoteChange`, in the transaction that stores the key's outcome: the synchronized copy, what the sync
 *    compares against, one provenance event attributed to the caller, and the intent's end.
 *
 * A crash between the two leaves the intent: a retry with the same key finds the provider already holding what the
 * intent wrote and records it instead of writing again, so nothing is written twice and nothing goes unrecorded.
 */

/** A remote change made at the provider and waiting to be recorded with its outcome. */
export interface StagedRemoteChange {
  readonly kind: 'remote-change';
  mapping: Mapping;
  path: string;
  /** The provider's file after the change; null when it was removed. */
  file: RemoteFileState | null;
  /** The content now at the provider (for the copy); null when removed. */
  content: string | null;
  results: ActionResult[];
  matched: MatchedPreview;
  scope: string;
  key: string;
  actor: Actor;
}

/** Input of `stageRemoteChange`. */
export interface RemoteChangeInput {
  actor: Actor;
  mappingId: string;
  actions: readonly NoteAction[];
  capability: NoteChangeCapability;
  /** The idempotency key's scope and value: the intent is recorded under them. */
  scope: string;
  key: string;
}

// Failures after which the provider may or may not hold the write.
const UNKNOWN_OUTCOME: ReadonlySet<string> = new Set(['provider_unavailable', 'provider_limit_reached', 'internal']);

function remoteOf(deps: NoteWriteDeps): RemoteNotes {
  if (!deps.remote) throw new KgateError('unavailable', 'Remote mappings are not available on this server.');
  return deps.remote;
}

/** The live note as planning sees a stored one: the same hash checks and results as a hosted apply. */
function stateOf(action: CanonicalAction, live: { content: string } | null): PlanState {
  const notes = new Map<string, ReturnType<typeof writeOf> & { id: string }>();
  if (live) notes.set(action.pathKey, { ...writeOf(action.path, action.pathKey, live.content), id: '00000000-0000-0000-0000-000000000000' });
  return { notes, trash: new Map() };
}

/**
 * Step one (see above); undefined when the mapping is hosted (the hosted apply does everything in its transaction).
 * `canonicalize` is the transaction module's, so paths and bounds are checked exactly as for hosted changes.
 */
export async function stageRemoteChange(
  deps: NoteWriteDeps,
  input: RemoteChangeInput,
  canonicalize: (actions: readonly NoteAction[]) => CanonicalAction[],
): Promise<StagedRemoteChange | undefined> {
  // A mapping this process knows to be hosted has nothing to stage: no authority lookup on the hosted apply's path.
  if (deps.vaults.providerOf(input.mappingId) === 'hosted') return undefined;
  const mapping = await deps.vaults.resolveMapping(input.actor.accountId, input.mappingId, 'write');
  if (mapping.provider === 'hosted') return undefined;
  const remote = remoteOf(deps);
  const actions = canonicalize(input.actions);
  if (actions.length !== 1) {
    throw new KgateError('one_note_per_key', 'An applied change to a remote mapping holds exactly one note; send each note with its own idempotency key (previews may hold several).', {
      actions: actions.length,
      limit: 1,
    });
  }
  const action = actions[0]!;
  if (action.type !== 'write-note' && action.type !== 'delete-note') {
    throw new KgateError('invalid_request', 'A remote mapping takes write-note and delete-note actions; a deleted remote note is restored from the provider\'s own trash or history.', {
      type: action.type,
    });
  }
  assertMayChangeNotes(mapping, actions, input.capability);
  const live = await remote.read(mapping, action.path, 'write');
  const base = { kind: 'remote-change' as const, mapping, path: action.path, scope: input.scope, key: input.key, actor: input.actor };

  // A retry after a crash: the provider already holds what this key's intent wrote. Record it; write nothing.
  const intent = await remote.findIntent(input.scope, input.key);
  if (intent && intent.mappingId === mapping.id && intent.path === action.path) {
    const landed = intent.action === 'delete' ? live === null : live !== null && contentHash(live.content) === intent.afterHash;
    if (landed) {
      const result: ActionResult = {
        index: 0,
        type: action.type,
        path: action.path,
        status: intent.action === 'delete' ? 'delete' : intent.beforeHash === null ? 'create' : 'update',
        beforeRevision: intent.beforeHash,
        afterRevision: intent.afterHash,
      };
      return { ...base, file: live?.file ?? null, content: live?.content ?? null, results: [result], matched: null };
    }
  }

  const planned = planTransaction(actions, stateOf(action, live), 'apply', { withDiff: false });
  // The provider keeps a remote note's trash: a kgate trash id would name nothing.
  const results = planned.map(({ result: { trashId: _trash, ...result } }) => result);
  const notesHash = notesHashOf(actions);
  const matched = matchReceipt(await findReceipts(deps.db, mapping.id, [notesHash]), input.actor, notesHash, againstHashOf(previewedAgainst(actions, results)));
  const refused = approvalRefusal(mapping.approvalPolicy, input.capability, matched !== null) ?? failure(planned);
  if (refused) throw refused;
  const effect = planned[0]!.effect;
  // Nothing to change (the same content again): answered like a hosted no-op, without asking the provider.
  if (!effect) return { ...base, file: live?.file ?? null, content: live?.content ?? null, results, matched };

  const writing = action.type === 'write-note';
  // A targeted write's whole note was made by planning, against the live note.
  const written = effect.kind === 'write' ? effect.write.content : action.type === 'write-note' ? action.content : '';
  await remote.beginIntent({
    scope: input.scope,
    key: input.key,
    mappingId: mapping.id,
    path: action.path,
    action: writing ? 'write' : 'delete',
    beforeHash: live ? contentHash(live.content) : null,
    afterHash: writing ? contentHash(written) : null,
  });
  const message = `${writing ? (live ? 'Update' : 'Create') : 'Delete'} ${action.path} (kgate)`;
  try {
    if (writing) {
      const file = await remote.write(mapping, action.path, written, live?.file ?? null, message);
      return { ...base, file, content: written, results, matched };
    }
    await remote.trash(mapping, action.path, live!.file, message);
    return { ...base, file: null, content: null, results, matched };
  } catch (error) {
    // Refused by the provider: nothing was written there, so nothing is left to recover. A failure that does not say
    // (the provider unreachable, an answer lost) keeps the intent: the write may have landed, and a retry finds out.
    if (error instanceof KgateError && !UNKNOWN_OUTCOME.has(error.code)) await remote.endIntent(undefined, input.scope, input.key);
    throw error;
  }
}

/** Step two (see above): records a staged change in the transaction that stores the key's outcome. */
export async function recordRemoteChange(deps: NoteWriteDeps, sql: Sql, staged: StagedRemoteChange): Promise<TransactionResult> {
  const remote = remoteOf(deps);
  const result = staged.results[0]!;
  const changed = result.status === 'create' || result.status === 'update' || result.status === 'delete';
  if (changed) {
    const receipt = staged.matched ? { previewReceipt: staged.matched.id, previewedAt: staged.matched.previewedAt } : {};
    await remote.record(sql, staged.mapping, { path: staged.path, file: staged.file, content: staged.content }, {
      accountId: staged.actor.accountId,
      credentialKind: staged.actor.credentialKind,
      credentialId: staged.actor.credentialId,
      client: staged.actor.client,
      idempotencyKey: staged.key,
      details: { via: 'remote', providerRevision: staged.file?.revision ?? null, ...receipt },
    });
  }
  await remote.endIntent(sql, staged.scope, staged.key);
  return { mappingId: staged.mapping.id, dryRun: false, applied: true, actions: staged.results, previewReceipt: staged.matched };
}

/** True for what `stageRemoteChange` returned (the commit carries it as unknown). */
export function isStagedRemoteChange(value: unknown): value is StagedRemoteChange {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'remote-change';
}
