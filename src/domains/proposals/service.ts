import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { decodeCursor, encodeCursor } from '../../kernel/cursor.ts';
import { KgateError } from '../../kernel/errors.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import { normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import { inSlice } from '../knowledge/index.ts';
import { noteTags, parseMarkdown } from '../markdown/index.ts';
import { MAX_TRANSACTION_ACTIONS, type ActionResult, type NoteAction, type NoteTarget, type NotesService, type TransactionResult } from '../notes/index.ts';
import { appendEvents, type EventKind } from '../provenance/index.ts';
import type { ScopeSlice, ScopesService } from '../scopes/index.ts';
import { noteChangeRefusal, type HostedMapping, type NoteChangeCapability, type VaultsService } from '../vaults/index.ts';
import { roleAllows, type WorkspacesService } from '../workspaces/index.ts';
import {
  DEFAULT_PROPOSAL_PAGE,
  MAX_PENDING_PROPOSALS,
  MAX_PROPOSAL_PAGE,
  MAX_PROPOSAL_TEXT,
  MAX_PROPOSAL_TITLE,
  PROPOSAL_TTL_MS,
  type Proposal,
  type ProposalKind,
  type ProposalState,
  type ProposalStep,
  type ProposedAction,
} from './contract.ts';
import { hasExpired, nextState, type PersonStep } from './states.ts';
import * as store from './store.ts';

/** What an agent proposes: note writes and deletions, previewed now and applied only once a person approves. */
export interface ProposeInput {
  actor: Actor;
  /** The capability the proposer changes notes under (an agent needs the owner's switch to propose, as to apply). */
  capability: NoteChangeCapability;
  mappingId: string;
  kind: ProposalKind;
  /** Required for `knowledge-change`: every note the proposal touches must be in this scope. */
  contextScopeId?: string | undefined;
  title: string;
  rationale?: string | undefined;
  /** With `target`, `content` is the new content of that part of the note; the proposal stores the whole note it makes. */
  writes: ReadonlyArray<{ path: string; content: string; expectedHash?: string | undefined; target?: NoteTarget | undefined }>;
  deletions: ReadonlyArray<{ path: string; expectedHash?: string | undefined }>;
  /** Where it came from: an agent (the MCP tools, the REST routes; the default) or the automation gateway. */
  origin?: 'agent' | 'automation';
  /** An automation proposal's bridge or producer, in its own words (`n8n`, `zapier`, a trigger's name). */
  automationSource?: string | undefined;
}

/** A proposal as it is read, and its steps. */
export interface ProposalDetail {
  proposal: Proposal;
  steps: ProposalStep[];
}

/** One page of a mapping's proposals, newest first. */
export interface ProposalPage {
  proposals: Proposal[];
  truncated: boolean;
  nextCursor: string | null;
}

/** The ActionProposal lifecycle (docs/proposals.md); every state change goes through `nextState` (states.ts). */
export interface ProposalsService {
  /**
   * Previews the change through the guarded transaction service and stores it as a proposal: the exact actions, the
   * revisions previewed against, the diff. A change that could not apply now is refused (nothing stored). The same
   * proposer proposing the same change against the same revisions again gets the proposal already waiting.
   */
  propose(input: ProposeInput): Promise<{ proposal: Proposal; created: boolean }>;
  /** A person's approval, on the workspace page only (a web session; vault.write). */
  approve(actor: Actor, mappingId: string, proposalId: string, comment?: string): Promise<Proposal>;
  /** A person's rejection (or withdrawal of an approval before execution), on the workspace page only. */
  reject(actor: Actor, mappingId: string, proposalId: string, comment?: string): Promise<Proposal>;
  /**
   * Applies exactly the approved actions against the revisions previewed, as the person, under the idempotency key
   * `proposal:<id>`. Executing an executed proposal again answers it as it is (idempotent). A note changed since the
   * preview fails the execution with nothing applied; the proposal is `failed` and says why.
   */
  execute(actor: Actor, mappingId: string, proposalId: string): Promise<Proposal>;
  /**
   * Reverts an executed proposal where every note is still as the execution left it: created notes go to the trash,
   * changed notes get their previous content back, deleted notes are restored from the trash. Otherwise nothing
   * changes, the proposal stays executed and says why the undo failed.
   */
  undo(actor: Actor, mappingId: string, proposalId: string): Promise<Proposal>;
  /** One proposal of a mapping the caller may read, with its steps; not_found for any other id. */
  get(actor: Actor, mappingId: string, proposalId: string): Promise<ProposalDetail>;
  /** A mapping's proposals, newest first, optionally of some states. */
  list(actor: Actor, mappingId: string, query?: { states?: readonly ProposalState[]; limit?: number; cursor?: string }): Promise<ProposalPage>;
  /**
   * The proposals of a workspace's mappings that `actor` may read (user-scoped), newest first; `origin` narrows them
   * to the automation gateway's (GET /api/dev/automation/proposals) or agents'.
   */
  listWorkspace(
    actor: Actor,
    workspaceId: string,
    query?: { states?: readonly ProposalState[]; origin?: 'agent' | 'automation'; limit?: number; cursor?: string },
  ): Promise<ProposalPage>;
  /**
   * The bounded executor of the automation gateway: executes one approved automation proposal exactly as `execute`
   * does, as the person who approved it (credential kind `automation`), after checking again that this person may
   * still write the vault. Anything but an approved automation proposal answers undefined and changes nothing; an
   * executed one answers as it is. A note changed since the preview fails it, as on the page.
   */
  executeApproved(proposalId: string): Promise<Proposal | undefined>;
  /**
   * Ids of approved automation proposals waiting for the executor, oldest approval first: of the workspaces where
   * `scope.accountId` has automation management, or of every workspace (`all`, maintenance).
   */
  approvedForExecution(scope: { accountId: string } | 'all', limit: number): Promise<string[]>;
  /** Moves proposals that waited past their expiry to `expired`; returns how many (maintenance). */
  expireDue(): Promise<number>;
  /**
   * Whether `actor` may propose note changes on the mapping now under `capability`, by the rules a proposal's preview
   * applies (a role that writes, the mapping's rules for that capability, readable bodies), and why not.
   */
  availability(actor: Actor, mappingId: string, capability: NoteChangeCapability): Promise<{ available: boolean; reason: string | null }>;
}

/** What the proposals service needs. */
export interface ProposalsDependencies {
  db: Database;
  clock: Clock;
  notes: NotesService;
  vaults: VaultsService;
  scopes: ScopesService;
  /** Membership of a workspace (listing a workspace's proposals). */
  workspaces: Pick<WorkspacesService, 'authorize'>;
}

const unknownProposal = () => new KgateError('not_found', 'No such proposal on this mapping.');

const PERSON_ONLY: Readonly<Record<PersonStep, string>> = {
  approve: 'Only a signed-in person approves a proposal, on the workspace page; no token or connected application can.',
  reject: 'Only a signed-in person rejects a proposal, on the workspace page; no token or connected application can.',
  execute: 'Only a signed-in person executes an approved proposal, on the workspace page; no token or connected application can.',
  undo: 'Only a signed-in person undoes a proposal, on the workspace page; no token or connected application can.',
};

const EVENT_OF: Readonly<Record<ProposalStep['step'], EventKind>> = {
  propose: 'proposal.created',
  approve: 'proposal.approved',
  reject: 'proposal.rejected',
  expire: 'proposal.expired',
  execute: 'proposal.executed',
  fail: 'proposal.failed',
  undo: 'proposal.undone',
  'undo-failed': 'proposal.undo-failed',
};

function checkText(value: string, limit: number, what: string): string {
  const text = value.trim();
  if (text.length > limit) throw new KgateError('invalid_request', `${what} has at most ${limit} characters.`, { limit });
  return text;
}

/** The public view of a stored proposal. */
function present(p: store.StoredProposal, reversible?: boolean): Proposal {
  const { seq: _seq, vaultId: _vault, beforeContents: _before, expiresAtDate: _expires, decidedBy: _decidedBy, ...proposal } = p;
  return reversible === undefined ? proposal : { ...proposal, reversible };
}

/** The note actions an execution applies: exactly the stored ones. */
function toNoteActions(actions: readonly ProposedAction[]): NoteAction[] {
  return actions.map((a) =>
    a.type === 'write-note'
      ? { type: 'write-note', path: a.path, content: a.content, ...(a.expectedHash ? { expectedHash: a.expectedHash } : {}) }
      : { type: 'delete-note', path: a.path, expectedHash: a.expectedHash },
  );
}

/** The actions that revert an execution's results, or why it cannot be reverted. */
function inverseOf(p: store.StoredProposal): NoteAction[] {
  const results = (p.result ?? []).filter((r) => r.type === 'write-note' || r.type === 'delete-note');
  return results.flatMap((r): NoteAction[] => {
    if (r.status === 'create') return [{ type: 'delete-note', path: r.path, expectedHash: r.afterRevision! }];
    if (r.status === 'update') {
      const before = p.beforeContents?.[r.path];
      if (before === undefined) throw new KgateError('conflict', `The content ${r.path} had before the execution was not kept; it cannot be undone.`);
      return [{ type: 'write-note', path: r.path, content: before, expectedHash: r.afterRevision! }];
    }
    if (r.status === 'delete') return [{ type: 'restore-note', path: r.path, trashId: r.trashId! }];
    return [];
  });
}

/**
 * A refusal of the note transaction an execution or an undo runs: thrown out of its database transaction (which
 * rolls back, so nothing is applied) to be recorded on the proposal in a transaction of its own.
 */
class ApplyRefused extends Error {
  constructor(readonly refusal: KgateError) {
    super(refusal.message);
  }
}

/** Runs the note transaction of an execution or an undo; its refusal becomes ApplyRefused. */
async function applying<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof KgateError) throw new ApplyRefused(error);
    throw error;
  }
}

function failureOf(error: KgateError): NonNullable<Proposal['failure']> {
  const problems = error.details?.problems;
  return { code: error.code, detail: error.message, ...(Array.isArray(problems) ? { problems } : {}) };
}

const REMOTE_PROPOSALS = 'Governed proposals are not available for remote mappings yet: preview the change, and apply it one note per request.';

/** Builds the proposals service. */
export function createProposalsService(deps: ProposalsDependencies): ProposalsService {
  const { db, clock, notes, vaults, scopes, workspaces } = deps;

  /** The receipt of a step, its provenance event, and the proposal's new state, in the caller's transaction. */
  /** Who took a step, as its receipt and event name them; the server's own steps (expiry) have no account. */
  type StepActor = { accountId: string | null; credentialKind: string; credentialId?: string | undefined; client?: string | undefined };

  /**
   * The receipt row of one step and its provenance event, in the caller's transaction, which holds the vault's lock:
   * events of a vault are appended under it, so that their order is their commit order (provenance store).
   */
  function writeStep(sql: Sql, p: store.StoredProposal, step: ProposalStep['step'], from: ProposalState | null, to: ProposalState, by: StepActor, receipt: Record<string, unknown>, at: Date) {
    return Promise.all([
      store.insertStep(sql, { proposalId: p.id, step, from, to, accountId: by.accountId, credentialKind: by.credentialKind, client: by.client ?? null, receipt, at }),
      appendEvents(sql, [
        {
          mappingId: p.mappingId,
          vaultId: p.vaultId,
          // The server's own steps (expiry) are recorded under the proposer's account, whose feed they belong to.
          accountId: by.accountId ?? p.proposedBy.accountId!,
          credentialKind: by.credentialKind,
          credentialId: by.credentialId,
          client: by.client,
          kind: EVENT_OF[step],
          details: { proposalId: p.id, title: p.title, fromState: from, toState: to, ...receipt },
        },
      ]),
    ]);
  }

  /** Moves a locked proposal by `step` (states.ts decides where to), with its fields, its receipt and its event. */
  async function record(
    sql: Sql,
    p: store.StoredProposal,
    step: ProposalStep['step'],
    by: StepActor,
    change: Omit<store.ProposalChange, 'state' | 'at'>,
    receipt: Record<string, unknown>,
  ): Promise<void> {
    const to = nextState(p.state, step);
    const at = clock.now();
    await sql.query('SELECT id FROM vaults WHERE id = $1 FOR UPDATE', [p.vaultId]);
    await Promise.all([store.updateProposal(sql, p.id, { ...change, state: to, at }), writeStep(sql, p, step, p.state, to, by, receipt, at)]);
  }

  /**
   * Proposals execute in one database transaction with their record, which a provider write cannot join; until their
   * execution is staged like a remote apply (notes/remote-writes.ts), a remote mapping takes no proposals.
   */
  async function refuseRemote(actor: Actor, mappingId: string): Promise<void> {
    const mapping = await vaults.resolveMapping(actor.accountId, mappingId, 'write');
    if (mapping.provider !== 'hosted') throw new KgateError('unavailable', REMOTE_PROPOSALS, { provider: mapping.provider });
  }

  /** The mapping, for a person acting on its proposals: a web session, and a role that may write the vault. */
  async function personOn(actor: Actor, mappingId: string, step: PersonStep): Promise<HostedMapping> {
    if (actor.credentialKind !== 'session') throw new KgateError('forbidden', PERSON_ONLY[step]);
    return vaults.resolveHostedMapping(actor.accountId, mappingId, 'write');
  }

  /**
   * Runs `work` on the proposal `find` locks, in one transaction. A proposal past its expiry is expired first (that
   * commits) and the step is refused as a conflict saying `expiredMessage`.
   */
  async function lockedStep(
    find: (sql: Sql, lock: boolean) => Promise<store.StoredProposal | undefined>,
    work: (tx: Sql, p: store.StoredProposal) => Promise<void>,
    expiredMessage: string,
  ): Promise<Proposal> {
    const expired = await db.transaction(async (tx) => {
      const p = await find(tx, true);
      if (!p) throw unknownProposal();
      if (hasExpired(p.state, p.expiresAtDate, clock.now())) {
        await record(tx, p, 'expire', { accountId: null, credentialKind: 'system' }, {}, { expiredAt: p.expiresAt });
        return true;
      }
      await work(tx, p);
      return false;
    });
    if (expired) throw new KgateError('conflict', expiredMessage, { state: 'expired' });
    return present((await find(db, false))!);
  }

  /**
   * Runs a person's step on a locked proposal. A proposal past its expiry is expired first (that commits) and the
   * step is refused as a conflict.
   */
  async function personStep(
    actor: Actor,
    mappingId: string,
    proposalId: string,
    step: PersonStep,
    work: (tx: Sql, p: store.StoredProposal) => Promise<void>,
  ): Promise<Proposal> {
    const mapping = await personOn(actor, mappingId, step);
    if (!isUuid(proposalId)) throw unknownProposal();
    return lockedStep((sql, lock) => store.findProposal(sql, mapping.id, proposalId, lock), work, 'This proposal expired before it was acted on; ask for a new one.');
  }

  /** Refuses a path outside the scope's slice (by the tags of the note there now, or of its new content). */
  async function assertInScope(slice: ScopeSlice, writes: ProposeInput['writes'], deletions: ProposeInput['deletions']): Promise<void> {
    const paths = [...writes.map((w) => ({ path: normalizeNotePath(w.path), content: w.content })), ...deletions.map((d) => ({ path: normalizeNotePath(d.path), content: undefined }))];
    const tags = slice.tags.length > 0 ? await store.tagKeysOf(db, slice.vaultId, paths.map((p) => notePathKey(p.path))) : new Map<string, string[]>();
    for (const { path, content } of paths) {
      const existing = tags.get(notePathKey(path)) ?? [];
      const written = content === undefined || slice.tags.length === 0 ? [] : noteTags(parseMarkdown(content)).map((t) => t.key);
      if (!inSlice(slice, path, existing) && !(content !== undefined && inSlice(slice, path, written))) {
        throw new KgateError('forbidden', `${path} is outside the context scope; a proposal in this scope may only touch its notes.`, { path });
      }
    }
  }

  /**
   * Executes an approved proposal as `actor` through `step` (which locks the row and checks who may act): exactly the
   * stored actions against the revisions previewed, under `proposal:<id>`. An executed proposal answers as it is; an
   * apply the notes refuse fails the proposal with the reason and applies nothing.
   */
  async function executeAs(actor: Actor, proposalId: string, step: (work: (tx: Sql, p: store.StoredProposal) => Promise<void>) => Promise<Proposal>): Promise<Proposal> {
    const key = `proposal:${proposalId}`;
    let failed: KgateError | undefined;
    try {
      return await step(async (tx, p) => {
        if (p.state === 'executed') return; // a replay: the execution stands as it was
        nextState(p.state, 'execute');
        // What the changed notes hold now (the revisions previewed, or the apply refuses): what an undo writes back.
        const kept = await store.currentContents(tx, p.vaultId, p.actions.filter((a) => a.type === 'write-note' && a.expectedHash).map((a) => notePathKey(a.path)));
        const applied: TransactionResult = await applying(() =>
          notes.runTransaction({ actor, mappingId: p.mappingId, dryRun: false, actions: toNoteActions(p.actions), capability: 'person', commit: { sql: tx, key } }),
        );
        const beforeContents = Object.fromEntries(kept.map((n) => [n.path, n.content]));
        await record(tx, p, 'execute', actor, { executedBy: actor.accountId, result: applied.actions, beforeContents }, {
          idempotencyKey: key,
          notesHash: p.notesHash,
          againstHash: p.againstHash,
          applied: applied.actions.map((a) => ({ path: a.path, status: a.status, before: a.beforeRevision, after: a.afterRevision })),
        });
      });
    } catch (error) {
      if (!(error instanceof ApplyRefused)) throw error;
      failed = error.refusal;
    }
    // The apply refused (nothing was applied): the proposal fails, and says why.
    const refusal = failed;
    return step(async (tx, p) => {
      if (p.state !== 'approved') return;
      await record(tx, p, 'fail', actor, { failure: failureOf(refusal) }, { idempotencyKey: key, failure: failureOf(refusal) });
    });
  }

  /**
   * The bounded executor's step on an approved automation proposal: the row locked, expiry applied, and the approving
   * person's write access checked again (lost: the proposal fails with `forbidden`, nothing applied).
   */
  function executorStep(proposalId: string) {
    return (work: (tx: Sql, p: store.StoredProposal) => Promise<void>): Promise<Proposal> =>
      lockedStep((sql, lock) => store.findProposalById(sql, proposalId, lock), work, 'This proposal expired before it was executed.');
  }

  return {
    async propose(input) {
      const title = checkText(input.title, MAX_PROPOSAL_TITLE, 'A title');
      if (title === '') throw new KgateError('invalid_request', 'A proposal needs a title that says what it does.');
      const rationale = checkText(input.rationale ?? '', MAX_PROPOSAL_TEXT, 'A rationale');
      const count = input.writes.length + input.deletions.length;
      if (count === 0) throw new KgateError('invalid_request', 'A proposal changes at least one note: give notes or deletions.');
      if (count > MAX_TRANSACTION_ACTIONS) {
        throw new KgateError('invalid_request', `A proposal holds at most ${MAX_TRANSACTION_ACTIONS} notes and deletions together.`, { limit: MAX_TRANSACTION_ACTIONS });
      }
      if (input.kind === 'knowledge-change' && input.contextScopeId === undefined) {
        throw new KgateError('invalid_request', 'A knowledge change is proposed within a context scope (contextScopeId).');
      }
      let scopeId: string | null = null;
      if (input.contextScopeId !== undefined) {
        const authorized = await scopes.authorize(input.actor, input.mappingId, input.contextScopeId);
        if (authorized.mapping.deviceEncrypted) throw new KgateError('device_encrypted', 'Note bodies of this mapping are encrypted on the device; the server cannot preview changes to them.');
        await assertInScope(authorized.slice, input.writes, input.deletions);
        scopeId = authorized.scope.id;
      }
      await refuseRemote(input.actor, input.mappingId);
      const actions: NoteAction[] = [
        ...input.writes.map((w) => ({
          type: 'write-note' as const,
          path: w.path,
          content: w.content,
          ...(w.expectedHash ? { expectedHash: w.expectedHash } : {}),
          ...(w.target ? { target: w.target } : {}),
        })),
        ...input.deletions.map((d) => ({ type: 'delete-note' as const, path: d.path, ...(d.expectedHash ? { expectedHash: d.expectedHash } : {}) })),
      ];
      // The same guarded preview as preview_note_writes: the caller's authority, the mapping's rules, the plan.
      const preview = await notes.runTransaction({ actor: input.actor, mappingId: input.mappingId, dryRun: true, actions, capability: input.capability });
      const problems = preview.actions.flatMap((a) => (a.problem ? [{ index: a.index, path: a.path, ...a.problem }] : []));
      if (problems.length > 0) {
        const first = problems[0]!;
        throw new KgateError(first.code as KgateError['code'], `Action ${first.index} (${first.path}) could not apply now: ${first.detail}`, { problems });
      }
      const receipt = preview.receipt!;
      const mapping = await vaults.resolveHostedMapping(input.actor.accountId, input.mappingId, 'write');
      const stored: ProposedAction[] = actions.map((a, index) => {
        const path = preview.actions[index]!.path;
        const before = preview.actions[index]!.beforeRevision;
        // A targeted write is stored as the whole note its preview made: a person approves, and executes, exactly that.
        if (a.type === 'write-note') {
          const content = a.target ? preview.actions[index]!.resultContent : a.content;
          if (content === undefined) throw new KgateError('invalid_request', `Action ${index}: a targeted write needs a note the server can read.`);
          return { type: 'write-note', path, content, ...(before ? { expectedHash: before } : {}) };
        }
        return { type: 'delete-note', path, expectedHash: before! };
      });
      return db.transaction(async (tx) => {
        // The vault's lock orders its events, and makes the pending count and the duplicate check hold.
        await tx.query('SELECT id FROM vaults WHERE id = $1 FOR UPDATE', [mapping.vaultId]);
        const waiting = await tx.query<{ id: string }>(
          `SELECT id FROM action_proposals WHERE mapping_id = $1 AND state = 'proposed' AND proposed_by = $2 AND proposed_credential_kind = $3
              AND proposed_credential_id IS NOT DISTINCT FROM $4::uuid AND notes_hash = $5 AND against_hash = $6 AND kind = $7 AND origin = $8 LIMIT 1`,
          [mapping.id, input.actor.accountId, input.actor.credentialKind, input.actor.credentialId ?? null, receipt.notesHash, receipt.againstHash, input.kind, input.origin ?? 'agent'],
        );
        if (waiting[0]) return { proposal: present((await store.findProposal(tx, mapping.id, waiting[0].id))!), created: false };
        if ((await store.countPending(tx, mapping.id)) >= MAX_PENDING_PROPOSALS) {
          throw new KgateError('conflict', `${MAX_PENDING_PROPOSALS} proposals of this mapping already wait for a person; more are refused until some are decided.`, {
            limit: MAX_PENDING_PROPOSALS,
          });
        }
        const at = clock.now();
        const created = await store.insertProposal(tx, {
          id: newId(),
          mappingId: mapping.id,
          vaultId: mapping.vaultId,
          scopeId,
          kind: input.kind,
          title,
          rationale,
          actions: stored,
          preview: preview.actions,
          notesHash: receipt.notesHash,
          againstHash: receipt.againstHash,
          proposedBy: { accountId: input.actor.accountId, credentialKind: input.actor.credentialKind, credentialId: input.actor.credentialId ?? null, client: input.actor.client ?? null },
          at,
          expiresAt: new Date(at.getTime() + PROPOSAL_TTL_MS),
          origin: input.origin ?? 'agent',
          automationSource: input.origin === 'automation' ? (input.automationSource ?? null) : null,
        });
        // The first step's receipt: what was previewed, against what, and the preview's own receipt.
        await writeStep(
          tx,
          created,
          'propose',
          null,
          'proposed',
          input.actor,
          { notesHash: receipt.notesHash, againstHash: receipt.againstHash, previewReceipt: receipt.id, kind: input.kind },
          at,
        );
        return { proposal: present(created), created: true };
      });
    },

    approve(actor, mappingId, proposalId, comment) {
      const text = checkText(comment ?? '', MAX_PROPOSAL_TEXT, 'A comment');
      return personStep(actor, mappingId, proposalId, 'approve', (tx, p) =>
        record(tx, p, 'approve', actor, { decidedBy: actor.accountId, decisionComment: text }, { comment: text, notesHash: p.notesHash, againstHash: p.againstHash }),
      );
    },

    reject(actor, mappingId, proposalId, comment) {
      const text = checkText(comment ?? '', MAX_PROPOSAL_TEXT, 'A comment');
      return personStep(actor, mappingId, proposalId, 'reject', (tx, p) =>
        record(tx, p, 'reject', actor, { decidedBy: actor.accountId, decisionComment: text }, { comment: text }),
      );
    },

    execute(actor, mappingId, proposalId) {
      return executeAs(actor, proposalId, (work) => personStep(actor, mappingId, proposalId, 'execute', work));
    },

    async undo(actor, mappingId, proposalId) {
      const key = `proposal:${proposalId}:undo`;
      let failed: KgateError | undefined;
      try {
        return await personStep(actor, mappingId, proposalId, 'undo', async (tx, p) => {
          nextState(p.state, 'undo');
          const reverted = await applying(async () => {
            const inverse = inverseOf(p);
            if (inverse.length === 0) return [];
            return (await notes.runTransaction({ actor, mappingId: p.mappingId, dryRun: false, actions: inverse, capability: 'person', commit: { sql: tx, key } })).actions;
          });
          await record(tx, p, 'undo', actor, { undoneBy: actor.accountId }, {
            idempotencyKey: key,
            reverted: reverted.map((a) => ({ path: a.path, status: a.status, before: a.beforeRevision, after: a.afterRevision })),
          });
        });
      } catch (error) {
        if (!(error instanceof ApplyRefused)) throw error;
        failed = error.refusal;
      }
      const refusal = failed;
      return personStep(actor, mappingId, proposalId, 'undo', async (tx, p) => {
        if (p.state !== 'executed') return;
        await record(tx, p, 'undo-failed', actor, { failure: failureOf(refusal) }, { idempotencyKey: key, failure: failureOf(refusal) });
      });
    },

    async get(actor, mappingId, proposalId) {
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      const p = isUuid(proposalId) ? await store.findProposal(db, mapping.id, proposalId) : undefined;
      if (!p) throw unknownProposal();
      const [steps, reversible] = await Promise.all([store.listSteps(db, p.id), p.state === 'executed' ? isReversible(p) : Promise.resolve(false)]);
      return { proposal: present(p, reversible), steps };
    },

    async list(actor, mappingId, query = {}) {
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      const limit = Math.min(Math.max(query.limit ?? DEFAULT_PROPOSAL_PAGE, 1), MAX_PROPOSAL_PAGE);
      const beforeSeq = query.cursor === undefined ? undefined : decodeCursor(query.cursor, isSeqCursor).before;
      const rows = await store.listProposals(db, mapping.id, { ...(query.states ? { states: query.states } : {}), ...(beforeSeq === undefined ? {} : { beforeSeq }), limit });
      const page = rows.slice(0, limit);
      const truncated = rows.length > limit;
      return { proposals: page.map((p) => present(p)), truncated, nextCursor: truncated ? encodeCursor({ before: page.at(-1)!.seq }) : null };
    },

    async availability(actor, mappingId, capability) {
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'write').catch((error: unknown) => {
        if (error instanceof KgateError && error.code === 'forbidden') return undefined;
        throw error;
      });
      if (!mapping) return { available: false, reason: 'Your role in this workspace does not allow changing notes, so you cannot propose changes either.' };
      const refusal = noteChangeRefusal(mapping, capability);
      if (refusal) return { available: false, reason: refusal.message };
      if (mapping.deviceEncrypted) return { available: false, reason: 'Note bodies of this mapping are encrypted on the device; the server cannot preview changes to them.' };
      if (mapping.provider !== 'hosted') return { available: false, reason: REMOTE_PROPOSALS };
      return { available: true, reason: null };
    },

    async listWorkspace(actor, workspaceId, query = {}) {
      if (!isUuid(workspaceId)) throw new KgateError('not_found', 'The workspace does not exist.');
      const readable = (await vaults.listAccessibleMappings(actor.accountId)).filter((m) => m.mapping.workspaceId === workspaceId);
      if (readable.length === 0) {
        // A member of a workspace without vaults has no proposals; anyone else gets not_found, as for any workspace.
        await workspaces.authorize(actor.accountId, workspaceId, 'vault.read');
        return { proposals: [], truncated: false, nextCursor: null };
      }
      const limit = Math.min(Math.max(query.limit ?? DEFAULT_PROPOSAL_PAGE, 1), MAX_PROPOSAL_PAGE);
      const beforeSeq = query.cursor === undefined ? undefined : decodeCursor(query.cursor, isSeqCursor).before;
      const rows = await store.listProposalsOf(db, readable.map((m) => m.mapping.id), {
        ...(query.states ? { states: query.states } : {}),
        ...(query.origin ? { origin: query.origin } : {}),
        ...(beforeSeq === undefined ? {} : { beforeSeq }),
        limit,
      });
      const page = rows.slice(0, limit);
      const truncated = rows.length > limit;
      return { proposals: page.map((p) => present(p)), truncated, nextCursor: truncated ? encodeCursor({ before: page.at(-1)!.seq }) : null };
    },

    async executeApproved(proposalId) {
      if (!isUuid(proposalId)) return undefined;
      const found = await store.findProposalById(db, proposalId);
      if (!found || found.origin !== 'automation') return undefined;
      if (found.state === 'executed') return present(found);
      if (found.state !== 'approved' || found.decidedBy === null) return undefined;
      // The executor acts for the person who approved: their authority, checked again now, is the execution's.
      const executor: Actor = { accountId: found.decidedBy, credentialKind: 'automation', client: 'kgate-automation' };
      const step = executorStep(proposalId);
      const allowed = await vaults.resolveHostedMapping(found.decidedBy, found.mappingId, 'write').then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof KgateError && (error.code === 'forbidden' || error.code === 'not_found')) return error;
          throw error;
        },
      );
      if (allowed !== undefined) {
        const lost = new KgateError('forbidden', 'The person who approved this proposal may no longer change notes of this vault; it was not executed.');
        return step(async (tx, p) => {
          if (p.state !== 'approved') return;
          await record(tx, p, 'fail', executor, { failure: failureOf(lost) }, { idempotencyKey: `proposal:${p.id}`, failure: failureOf(lost) });
        });
      }
      return executeAs(executor, proposalId, step);
    },

    async approvedForExecution(scope, limit) {
      const now = clock.now();
      if (scope === 'all') return store.listApprovedAutomation(db, now, undefined, limit);
      const managed = new Set(
        (await vaults.listAccessibleMappings(scope.accountId)).filter((m) => roleAllows(m.role, 'automation.manage')).map((m) => m.mapping.workspaceId),
      );
      return store.listApprovedAutomation(db, now, [...managed], limit);
    },

    async expireDue() {
      const due = await store.expireDue(db, clock.now(), 500);
      let count = 0;
      for (const { id, mappingId } of due) {
        count += await db.transaction(async (tx) => {
          const p = await store.findProposal(tx, mappingId, id, true);
          if (!p || !hasExpired(p.state, p.expiresAtDate, clock.now())) return 0;
          await record(tx, p, 'expire', { accountId: null, credentialKind: 'system' }, {}, { expiredAt: p.expiresAt });
          return 1;
        });
      }
      return count;
    },
  };

  /** True when every note an execution changed is still as it left it (so an undo would apply). */
  async function isReversible(p: store.StoredProposal): Promise<boolean> {
    const results = (p.result ?? []).filter((r: ActionResult) => r.status === 'create' || r.status === 'update' || r.status === 'delete');
    const now = new Map((await store.currentContents(db, p.vaultId, results.map((r) => notePathKey(r.path)))).map((n) => [notePathKey(n.path), n.contentHash]));
    return results.every((r) => (r.status === 'delete' ? !now.has(notePathKey(r.path)) : now.get(notePathKey(r.path)) === r.afterRevision));
  }
}

function isSeqCursor(value: unknown): value is { before: number } {
  return typeof value === 'object' && value !== null && Number.isSafeInteger((value as { before?: unknown }).before);
}
