import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { KnowledgePage } from '../knowledge/index.ts';
import { MAX_KNOWLEDGE_LIMIT } from '../knowledge/index.ts';
import type { AuthorizedScope } from '../scopes/index.ts';
import {
  FINDING_STATES,
  MAX_VERSIONS_PER_VIEW,
  MAX_VIEWS_PER_SCOPE,
  MAX_WATCHES_PER_SCOPE,
  type Finding,
  type FindingState,
  type SavedView,
  type ViewRecord,
  type ViewVersion,
  type Watch,
} from './contract.ts';
import { assertMayManage, assertMayReview, assertStillIn, normalizeDefinition, normalizeViewName, sameDefinition } from './policy.ts';
import { runView } from './query.ts';
import * as store from './store.ts';
import { evaluateWatches, runWatch } from './watches.ts';

/**
 * How a change of views or watches is made: previewed (every check applying makes, nothing written), or applied in
 * the caller's open transaction (the idempotent commit of a request) or one of the service's own.
 */
export interface ViewChangeOptions {
  dryRun?: boolean;
  sql?: Sql;
}

/** What a view is made or revised with: its name and its definition (checked and normalized here). */
export interface ViewInput {
  name: unknown;
  definition: unknown;
}

/** A view with the version a call made, used or would make. */
export interface ViewAt {
  view: SavedView;
  version: ViewVersion;
}

/** Which records of a view to answer: a version (default the latest), a page size (default the definition's), a cursor. */
export interface ViewQuery {
  viewId: string;
  version?: number;
  limit?: number;
  cursor?: string;
}

/** Which findings to answer. */
export interface FindingsRequest {
  watchId?: string;
  states?: readonly FindingState[];
  limit?: number;
  cursor?: string;
}

/**
 * Saved knowledge views, watches and findings (docs/views.md). Every call takes the context scope as the caller may
 * use it now (scopes.authorize): a view, watch or finding of another scope, a guessed id or a malformed one is
 * `not_found`, the same answer.
 */
export interface ViewsService {
  /** The views of the scope, by name. */
  list(scope: AuthorizedScope): Promise<SavedView[]>;
  /** A view with every version, newest first. */
  versions(scope: AuthorizedScope, viewId: string): Promise<{ view: SavedView; versions: ViewVersion[] }>;
  /** Makes a view (version 1); editors, admins and owners only. */
  create(actor: Actor, scope: AuthorizedScope, input: ViewInput, options?: ViewChangeOptions): Promise<ViewAt>;
  /** Makes the next version of a view (name and definition), which becomes its latest; the earlier ones stay. */
  revise(actor: Actor, scope: AuthorizedScope, viewId: string, input: ViewInput, options?: ViewChangeOptions): Promise<ViewAt>;
  /** Deletes a view with its versions, watches and their findings. */
  remove(actor: Actor, scope: AuthorizedScope, viewId: string, options?: ViewChangeOptions): Promise<SavedView>;
  /** Runs a view at a version (default the latest) over the scope's records as they are now. */
  query(scope: AuthorizedScope, request: ViewQuery): Promise<ViewAt & { page: KnowledgePage<ViewRecord> }>;
  /** The watches of the scope's views, with their findings counted by state. */
  watches(scope: AuthorizedScope): Promise<Watch[]>;
  /** Watches a view (a pinned version, or the latest when `version` is null); the first run sets its baseline. */
  createWatch(actor: Actor, scope: AuthorizedScope, input: { viewId: string; version: number | null }, options?: ViewChangeOptions): Promise<Watch>;
  /** Stops a watch and deletes its findings. */
  removeWatch(actor: Actor, scope: AuthorizedScope, watchId: string, options?: ViewChangeOptions): Promise<Watch>;
  /** Findings of the scope's watches, newest first; of notes in the scope now only. */
  findings(scope: AuthorizedScope, request: FindingsRequest): Promise<KnowledgePage<Finding>>;
  /** A person moves a finding's review state (a web session only); `seen` is the state they saw it in. */
  reviewFinding(actor: Actor, scope: AuthorizedScope, input: { findingId: string; state: unknown; seen: unknown }): Promise<Finding>;
  /**
   * Runs the watches of a vault that a change of `paths` may concern, in the change's transaction after its
   * knowledge was compiled (docs/views.md, "When a watch runs"). Returns how many ran.
   */
  evaluate(sql: Sql, vaultId: string, paths: readonly string[]): Promise<number>;
}

const unknownView = () => new KgateError('not_found', 'No such saved view in this scope, or it is not available to you.');
const unknownWatch = () => new KgateError('not_found', 'No such watch in this scope, or it is not available to you.');
const unknownFinding = () => new KgateError('not_found', 'No such finding in this scope, or it is not available to you.');

function limitOf(limit: number | undefined, fallback: number): number {
  const value = limit ?? fallback;
  if (!Number.isInteger(value) || value < 1 || value > MAX_KNOWLEDGE_LIMIT) throw new KgateError('invalid_request', `limit is an integer from 1 to ${MAX_KNOWLEDGE_LIMIT}.`);
  return value;
}

/** Builds the views service over `db`; `clock` dates versions, watch runs and reviews. */
export function createViewsService(db: Database, clock: Clock): ViewsService {
  /**
   * Runs a change of a scope's views or watches: checked and answered without writing, or applied in the caller's
   * transaction or a new one. Applying locks the scope's row: changes of one scope take turns (name and count
   * checks hold), and a scope deleted since it was authorized is not_found.
   */
  async function change<T>(actor: Actor, scope: AuthorizedScope, options: ViewChangeOptions, work: (sql: Sql, write: boolean) => Promise<T>): Promise<T> {
    assertMayManage(scope.role);
    const run = async (sql: Sql, write: boolean) => {
      if (write) {
        const locked = await sql.query('SELECT id FROM context_scopes WHERE id = $1 FOR UPDATE', [scope.scope.id]);
        if (locked.length === 0) throw unknownView();
      }
      return work(sql, write);
    };
    if (options.dryRun) return run(db, false);
    if (options.sql) return run(options.sql, true);
    return db.transaction((tx) => run(tx, true));
  }

  async function existingView(sql: Sql, scope: AuthorizedScope, viewId: string, lock = false): Promise<SavedView> {
    const view = isUuid(viewId) ? await store.findView(sql, scope.scope.id, viewId, lock) : undefined;
    if (!view) throw unknownView();
    return view;
  }

  async function versionOf(sql: Sql, view: SavedView, version: number | undefined): Promise<ViewVersion> {
    const wanted = version ?? view.latestVersion;
    const found = Number.isInteger(wanted) && wanted >= 1 ? await store.findVersion(sql, view.id, wanted) : undefined;
    if (!found) throw new KgateError('not_found', `The view has no version ${String(wanted)}.`, { latestVersion: view.latestVersion });
    return found;
  }

  async function checkName(sql: Sql, scope: AuthorizedScope, name: string, except?: string): Promise<void> {
    if (await store.viewNameTaken(sql, scope.scope.id, name, except)) throw new KgateError('conflict', 'Another view of this scope has that name.', { name });
  }

  async function existingWatch(sql: Sql, scope: AuthorizedScope, watchId: string): Promise<Watch> {
    const watch = isUuid(watchId) ? await store.findWatch(sql, scope.scope.id, watchId) : undefined;
    if (!watch) throw unknownWatch();
    return watch;
  }

  return {
    list: (scope) => store.listViews(db, scope.scope.id),

    async versions(scope, viewId) {
      const view = await existingView(db, scope, viewId);
      return { view, versions: await store.listVersions(db, view.id) };
    },

    async create(actor, scope, input, options = {}) {
      const name = normalizeViewName(input.name);
      const definition = normalizeDefinition(input.definition);
      return change(actor, scope, options, async (sql, write) => {
        if ((await store.countViews(sql, scope.scope.id)) >= MAX_VIEWS_PER_SCOPE) throw new KgateError('conflict', `A scope has at most ${MAX_VIEWS_PER_SCOPE} saved views.`);
        await checkName(sql, scope, name);
        const at = clock.now();
        const id = newId(at.getTime());
        if (write) await store.insertView(sql, { id, mappingId: scope.mapping.id, scopeId: scope.scope.id, name, definition, createdBy: actor.accountId, at });
        return {
          view: { id, mappingId: scope.mapping.id, scopeId: scope.scope.id, name, latestVersion: 1, createdAt: at, updatedAt: at },
          version: { viewId: id, version: 1, name, definition, createdBy: actor.accountId, createdAt: at },
        };
      });
    },

    async revise(actor, scope, viewId, input, options = {}) {
      const name = normalizeViewName(input.name);
      const definition = normalizeDefinition(input.definition);
      return change(actor, scope, options, async (sql, write) => {
        // The view first: a guessed id is not_found whatever it asks for.
        const view = await existingView(sql, scope, viewId, write);
        const latest = await versionOf(sql, view, undefined);
        if (latest.name === name && sameDefinition(latest.definition, definition)) {
          throw new KgateError('conflict', `Version ${latest.version} of this view already has this name and definition.`, { latestVersion: latest.version });
        }
        if (view.latestVersion >= MAX_VERSIONS_PER_VIEW) throw new KgateError('conflict', `A view has at most ${MAX_VERSIONS_PER_VIEW} versions; make a new view.`);
        await checkName(sql, scope, name, view.id);
        const at = clock.now();
        const version: ViewVersion = { viewId: view.id, version: view.latestVersion + 1, name, definition, createdBy: actor.accountId, createdAt: at };
        if (write) {
          await store.insertVersion(sql, { ...version, createdBy: actor.accountId, at });
          // Watches that follow the latest version compare from now on with what the new version matches: the
          // difference between two definitions is no finding about the notes.
          const following = (await store.watchesOfVault(sql, scope.slice.vaultId)).filter((w) => w.viewId === view.id && !w.pinned);
          for (const watch of following) await runWatch(sql, watch, at, false);
        }
        return { view: { ...view, name, latestVersion: version.version, updatedAt: at }, version };
      });
    },

    async remove(actor, scope, viewId, options = {}) {
      return change(actor, scope, options, async (sql, write) => {
        const view = await existingView(sql, scope, viewId, write);
        if (write) await store.deleteView(sql, view.id);
        return view;
      });
    },

    async query(scope, request) {
      const view = await existingView(db, scope, request.viewId);
      const version = await versionOf(db, view, request.version);
      const limit = limitOf(request.limit, version.definition.limit);
      const page = await runView(db, scope.slice, version.definition, { limit, ...(request.cursor !== undefined ? { cursor: request.cursor } : {}) });
      return { view, version, page: { items: page.items.map((i) => i.record), truncated: page.truncated, nextCursor: page.nextCursor } };
    },

    watches: (scope) => store.listWatches(db, scope.scope.id),

    async createWatch(actor, scope, input, options = {}) {
      return change(actor, scope, options, async (sql, write) => {
        const view = await existingView(sql, scope, input.viewId);
        if (input.version !== null) await versionOf(sql, view, input.version);
        if ((await store.countWatches(sql, scope.scope.id)) >= MAX_WATCHES_PER_SCOPE) throw new KgateError('conflict', `A scope has at most ${MAX_WATCHES_PER_SCOPE} watches.`);
        const at = clock.now();
        const id = newId(at.getTime());
        if (write) {
          await store.insertWatch(sql, { id, viewId: view.id, vaultId: scope.slice.vaultId, pinnedVersion: input.version, createdBy: actor.accountId, at });
          const made = (await store.watchesOfVault(sql, scope.slice.vaultId)).find((w) => w.id === id)!;
          await runWatch(sql, made, at, false);
          return (await store.findWatch(sql, scope.scope.id, id))!;
        }
        const counts = Object.fromEntries(FINDING_STATES.map((s) => [s, 0])) as Record<FindingState, number>;
        return { id, viewId: view.id, viewName: view.name, pinnedVersion: input.version, createdAt: at, evaluatedAt: at, overLimit: false, droppedFindings: 0, counts };
      });
    },

    async removeWatch(actor, scope, watchId, options = {}) {
      return change(actor, scope, options, async (sql, write) => {
        const watch = await existingWatch(sql, scope, watchId);
        if (write) await store.deleteWatch(sql, watch.id);
        return watch;
      });
    },

    async findings(scope, request) {
      if (request.watchId !== undefined) await existingWatch(db, scope, request.watchId);
      const states = request.states ?? FINDING_STATES;
      return store.readFindings(db, scope.scope.id, scope.slice, {
        states,
        limit: limitOf(request.limit, 50),
        ...(request.watchId !== undefined ? { watchId: request.watchId } : {}),
        ...(request.cursor !== undefined ? { cursor: request.cursor } : {}),
      });
    },

    async reviewFinding(actor, scope, input) {
      const target = assertMayReview(actor, scope.role, input.state);
      const finding = isUuid(input.findingId)
        ? (await store.readFindings(db, scope.scope.id, scope.slice, { findingId: input.findingId, states: FINDING_STATES, limit: 1 })).items[0]
        : undefined;
      if (!finding) throw unknownFinding();
      assertStillIn(finding.state, input.seen, target);
      const at = clock.now();
      if (!(await store.setFindingState(db, finding.id, finding.state, target, actor.accountId, at))) {
        throw new KgateError('conflict', 'Someone reviewed this finding meanwhile; nothing was changed.');
      }
      return { ...finding, state: target, stateChangedAt: at.toISOString() };
    },

    evaluate: (sql, vaultId, paths) => evaluateWatches(sql, vaultId, paths, clock.now()),
  };
}
