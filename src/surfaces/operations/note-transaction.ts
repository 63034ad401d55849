import type { NoteAction, TransactionResult } from '../../domains/notes/index.ts';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import type { OperationContext, SharedCall } from './operation.ts';

/**
 * Runs note actions through the notes domain's governed transaction, under the caller's note-change capability and,
 * when applying, in the commit the pipeline opened for the idempotency key. Every note-changing operation calls it.
 */
export function noteTransaction(ctx: OperationContext, mappingId: string, dryRun: boolean, actions: NoteAction[]): Promise<TransactionResult> {
  return ctx.services.notes.runTransaction({
    actor: ctx.principal.actor,
    mappingId,
    dryRun,
    actions,
    capability: ctx.noteChanges,
    ...(ctx.commit ? { commit: ctx.commit } : {}),
  });
}

/** An operation's call read as one note transaction: where, whether it applies, and its actions. */
export interface NoteTransactionCall {
  mappingId: string;
  dryRun: boolean;
  actions: NoteAction[];
}

/**
 * `run` and `share` of an operation whose call is one note transaction, from how its input reads as one: applied
 * calls share their commit with concurrent applies to the same mapping where they can (NotesService.shareTransaction).
 */
export function asNoteTransaction<In>(toCall: (input: In) => NoteTransactionCall): {
  run(ctx: OperationContext, input: In): Promise<TransactionResult>;
  share(ctx: OperationContext, input: In): SharedCall | undefined;
  stage(ctx: OperationContext, input: In, claim: { scope: string; key: string }): Promise<unknown>;
} {
  return {
    run(ctx, input) {
      const call = toCall(input);
      return noteTransaction(ctx, call.mappingId, call.dryRun, call.actions);
    },
    share(ctx, input) {
      const call = toCall(input);
      if (call.dryRun) return undefined;
      return ctx.services.notes.shareTransaction({ actor: ctx.principal.actor, mappingId: call.mappingId, actions: call.actions, capability: ctx.noteChanges });
    },
    // A remote mapping's change is made at its provider here, before the outcome's transaction (remote-writes.ts).
    async stage(ctx, input, claim) {
      const call = toCall(input);
      if (call.dryRun) return undefined;
      return ctx.services.notes.stageTransaction({ actor: ctx.principal.actor, mappingId: call.mappingId, actions: call.actions, capability: ctx.noteChanges, ...claim });
    },
  };
}

/** The errors of every operation that previews or applies note changes. */
export const NOTE_CHANGE_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'invalid_path',
  'payload_too_large',
  'not_found',
  'forbidden',
  'mapping_read_only',
  'device_encrypted',
  'conflict',
  'stale_revision',
  'precondition_required',
  'target_not_found',
  'target_ambiguous',
  'idempotency_key_required',
  'idempotency_key_reused',
  'idempotency_key_in_flight',
  'mapping_pull_only',
  'provider_disconnected',
  'provider_write_not_granted',
  'one_note_per_key',
  'provider_limit_reached',
  'provider_rate_limited',
  'provider_unavailable',
];

/** The errors of note-changing operations that agents call: also the owner's switch (spec 2.1). */
export const AGENT_NOTE_CHANGE_ERRORS: readonly ErrorCode[] = [...NOTE_CHANGE_ERRORS, 'mcp_changes_disabled'];
