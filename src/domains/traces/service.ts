import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import { normalizeNotePath } from '../../kernel/vault-path.ts';
import { decodeCursor, encodeCursor, limitOf, type KnowledgePage, type PageRequest } from '../knowledge/index.ts';
import type { AuthorizedScope } from '../scopes/index.ts';
import { roleAllows } from '../workspaces/index.ts';
import {
  MAX_SESSION_BYTES,
  MAX_SESSION_REFERENCES,
  MAX_SESSIONS_PER_SCOPE,
  MAX_STEP_REFERENCES,
  MAX_TRACE_STEPS,
  type GapReason,
  type ReconstructedStep,
  type TraceSessionInput,
  type TraceSessionSummary,
  type TraceStepInput,
} from './contract.ts';
import { resolveReferences } from './resolve.ts';
import * as store from './store.ts';

/** A session as a read reconstructs it: a page of its steps, each reference resolved now. */
export interface ReconstructedSession {
  session: TraceSessionSummary;
  steps: ReconstructedStep[];
  /** Gaps among the references of the steps returned, by reason. */
  gaps: Record<GapReason, number>;
  /** References of the steps returned that this server cannot check (proposals). */
  unresolved: number;
  truncated: boolean;
  nextCursor: string | null;
}

/** How a session is published: previewed (nothing written), or in the caller's open transaction when it gives one. */
export interface PublishOptions {
  dryRun?: boolean;
  sql?: Sql;
}

/** Work sessions published by owners into a context scope, reconstructed under current authorization (docs/traces.md). */
export interface TracesService {
  /**
   * Publishes a session into the scope (members whose role writes the vault), in the caller's open transaction (the
   * idempotent commit of the request; else in one of its own). A session is published once: its session id taken in
   * the scope is `conflict`. With `dryRun`, makes every check publishing makes and answers the session as it would be
   * stored, writing nothing.
   */
  publish(actor: Actor, authorized: AuthorizedScope, input: TraceSessionInput, options?: PublishOptions): Promise<TraceSessionSummary>;
  /** The sessions of the scope, newest published first. */
  list(authorized: AuthorizedScope, page: PageRequest): Promise<KnowledgePage<TraceSessionSummary>>;
  /** One session of the scope, a page of its steps at a time; `not_found` for any session id the scope does not hold. */
  reconstruct(authorized: AuthorizedScope, sessionId: string, page: PageRequest): Promise<ReconstructedSession>;
}

const invalid = (message: string, details?: Record<string, unknown>) => new KgateError('invalid_request', message, details);

/** The steps with canonical note paths, checked against the bounds the schema cannot express; and their reference count. */
function checkedSteps(input: TraceSessionInput): { steps: TraceStepInput[]; references: number } {
  if (input.steps.length === 0 || input.steps.length > MAX_TRACE_STEPS) throw invalid(`A session has 1 to ${MAX_TRACE_STEPS} steps.`);
  let references = 0;
  const steps = input.steps.map((step, i) => {
    if (step.references.length > MAX_STEP_REFERENCES) throw invalid(`A step makes at most ${MAX_STEP_REFERENCES} references.`, { field: `steps[${i}].references` });
    references += step.references.length;
    return {
      ...step,
      references: step.references.map((r, j) => {
        if (r.kind !== 'note') return r;
        try {
          return { ...r, path: normalizeNotePath(r.path) };
        } catch (error) {
          if (isKgateError(error)) throw invalid(`steps[${i}].references[${j}].path: ${error.message}`, { field: `steps[${i}].references[${j}].path` });
          throw error;
        }
      }),
    };
  });
  if (references > MAX_SESSION_REFERENCES) throw invalid(`A session makes at most ${MAX_SESSION_REFERENCES} references in all.`);
  if (Buffer.byteLength(JSON.stringify(steps), 'utf8') > MAX_SESSION_BYTES) throw invalid(`A session's steps take at most ${MAX_SESSION_BYTES} bytes.`);
  return { steps, references };
}

const dateOf = (value: string | undefined): Date | null => (value === undefined ? null : new Date(value));

/** Publishes (or, with `dryRun`, checks and answers without writing) a session, in `sql`. */
async function publishIn(sql: Sql, at: Date, actor: Actor, authorized: AuthorizedScope, input: TraceSessionInput, dryRun: boolean): Promise<TraceSessionSummary> {
  if (!roleAllows(authorized.role, 'vault.write')) {
    throw new KgateError('forbidden', 'Your role in this workspace does not allow publishing work sessions.', { permission: 'vault.write' });
  }
  const { steps, references } = checkedSteps(input);
  const startedAt = dateOf(input.startedAt);
  const endedAt = dateOf(input.endedAt);
  if (startedAt && endedAt && endedAt < startedAt) throw invalid('endedAt is before startedAt.', { field: 'endedAt' });
  const scopeId = authorized.scope.id;
  // Sessions of one scope take turns here, so that two cannot both pass the count (a preview only reads).
  if (!dryRun) await sql.query('SELECT id FROM context_scopes WHERE id = $1 FOR UPDATE', [scopeId]);
  if ((await store.countSessions(sql, scopeId)) >= MAX_SESSIONS_PER_SCOPE) throw new KgateError('conflict', `A scope holds at most ${MAX_SESSIONS_PER_SCOPE} sessions.`);
  const taken = () => new KgateError('conflict', 'This scope already holds a session with that session id; a session is published once.', { sessionId: input.sessionId });
  const session: store.NewSession = {
    id: newId(),
    scopeId,
    sessionId: input.sessionId,
    title: input.title.trim(),
    agent: input.agent?.trim() || null,
    startedAt,
    endedAt,
    steps,
    referenceCount: references,
    publishedBy: actor.accountId,
    publishedAt: at,
  };
  if (dryRun) {
    if (await store.findSession(sql, scopeId, input.sessionId)) throw taken();
    const { id, sessionId, title, agent, startedAt, endedAt, publishedBy, publishedAt } = session;
    return { id, sessionId, title, agent, startedAt, endedAt, stepCount: steps.length, referenceCount: references, publishedBy, publishedAt };
  }
  const stored = await store.insertSession(sql, session);
  if (!stored) throw taken();
  return stored;
}

/** Builds the traces service. */
export function createTracesService(db: Database, clock: Clock): TracesService {
  return {
    publish(actor, authorized, input, options = {}) {
      const at = clock.now();
      if (options.dryRun) return publishIn(db, at, actor, authorized, input, true);
      if (options.sql) return publishIn(options.sql, at, actor, authorized, input, false);
      return db.transaction((tx) => publishIn(tx, at, actor, authorized, input, false));
    },

    async list(authorized, page) {
      const limit = limitOf(page);
      const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, 2);
      const rows = await store.listSessions(db, authorized.scope.id, after ? { at: String(after[0]), id: String(after[1]) } : undefined, limit + 1);
      const truncated = rows.length > limit;
      const items = truncated ? rows.slice(0, limit) : rows;
      const last = items[items.length - 1];
      return { items, truncated, nextCursor: truncated && last ? encodeCursor([last.publishedAt.toISOString(), last.id]) : null };
    },

    async reconstruct(authorized, sessionId, page) {
      const limit = limitOf(page);
      const found = await store.findSession(db, authorized.scope.id, sessionId);
      if (!found) throw new KgateError('not_found', 'No such work session in this scope, or it is not available to you.');
      const from = page.cursor === undefined ? 0 : Number(decodeCursor(page.cursor, 1)[0]);
      if (!Number.isInteger(from) || from < 0 || from > found.steps.length) throw invalid('The cursor is not one this service returned.');
      const steps = found.steps.slice(from, from + limit);
      const resolved = await resolveReferences(db, authorized.slice, steps.flatMap((s) => s.references));
      const gaps: Record<GapReason, number> = { not_found: 0, outside_scope: 0, stale: 0, unpublished: 0 };
      let unresolved = 0;
      for (const r of resolved) {
        if (r.status === 'gap' && r.reason) gaps[r.reason] += 1;
        if (r.status === 'unresolved') unresolved += 1;
      }
      let offset = 0;
      const reconstructed = steps.map((step, i) => {
        const references = resolved.slice(offset, offset + step.references.length);
        offset += step.references.length;
        return { index: from + i, summary: step.summary, at: step.at === undefined ? null : new Date(step.at).toISOString(), references };
      });
      const truncated = from + steps.length < found.steps.length;
      return { session: found.summary, steps: reconstructed, gaps, unresolved, truncated, nextCursor: truncated ? encodeCursor([from + steps.length]) : null };
    },
  };
}
