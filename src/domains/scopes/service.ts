import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { HostedMapping, VaultsService } from '../vaults/index.ts';
import type { WorkspaceRole, WorkspacesService } from '../workspaces/index.ts';
import { MAX_SCOPES_PER_MAPPING, type ContextScope, type ScopeDefinition, type ScopeSlice } from './contract.ts';
import { inAudience, normalizeDefinition } from './policy.ts';
import * as store from './store.ts';

/** A scope the caller may read through now, with the mapping and the slice of its vault it admits. */
export interface AuthorizedScope {
  scope: ContextScope;
  mapping: HostedMapping;
  slice: ScopeSlice;
  /** The caller's role in the mapping's workspace. */
  role: WorkspaceRole;
}

/**
 * How a change of a scope is made: previewed (every check that applying makes, nothing written), or applied, in the
 * caller's open transaction when it gives one (the idempotent commit of a request, so that the change and its stored
 * answer commit together; transactions do not nest), else in one of the service's own.
 */
export interface ScopeChangeOptions {
  /** Check and answer what applying now would, and write nothing. */
  dryRun?: boolean;
  /** Apply in this open transaction instead of opening one. */
  sql?: Sql;
}

/** Context scopes: named slices of a mapping with an audience (docs/knowledge.md, "Context scopes"). */
export interface ScopesService {
  /** Every scope of a mapping, for its managers (owner or admin of its workspace). */
  listManaged(actor: Actor, mappingId: string): Promise<ContextScope[]>;
  /** The scopes of a mapping this caller may read through now (role and credential in each audience). */
  listUsable(actor: Actor, mappingId: string): Promise<ContextScope[]>;
  /**
   * Creates a scope (managers only); names are unique per mapping, case-insensitively. A preview answers the scope as
   * it would be stored, under an id that applying does not reuse.
   */
  create(actor: Actor, mappingId: string, definition: ScopeDefinition, options?: ScopeChangeOptions): Promise<ContextScope>;
  /** Replaces a scope's definition (managers only); answers the scope as changed (or, previewed, as it would be). */
  update(actor: Actor, mappingId: string, scopeId: string, definition: ScopeDefinition, options?: ScopeChangeOptions): Promise<ContextScope>;
  /** Removes a scope (managers only); answers the scope removed (or, previewed, that would be). */
  remove(actor: Actor, mappingId: string, scopeId: string, options?: ScopeChangeOptions): Promise<ContextScope>;
  /**
   * The scope, when this caller may read through it now: the mapping is hosted and readable by them, the scope is
   * the mapping's, and their role and credential are in its audience. Anything else is `not_found`, the same
   * answer for a guessed id, another mapping's scope and a scope outside the caller's audience. `sql`: read in this
   * open transaction (a change that commits with its idempotent answer), else on the database.
   */
  authorize(actor: Actor, mappingId: string, scopeId: string, sql?: Sql): Promise<AuthorizedScope>;
}

/** A scope of `definition`, as storing it at `at` would leave it (previews answer these). */
function draftOf(input: { id: string; mappingId: string; definition: ScopeDefinition; at: Date }): ContextScope {
  const { definition: d } = input;
  return { id: input.id, mappingId: input.mappingId, name: d.name, pathPrefixes: [...d.pathPrefixes], tags: [...d.tags], audience: { ...d.audience }, createdAt: input.at, updatedAt: input.at };
}

const unknownScope = () => new KgateError('not_found', 'No such context scope for this mapping, or it is not available to you.');

/** Builds the scopes service; authority over mappings and roles comes from the vaults and workspaces services. */
export function createScopesService(db: Database, clock: Clock, vaults: VaultsService, workspaces: WorkspacesService): ScopesService {
  /** The hosted mapping and the caller's role in its workspace; `manage` needs vault.manage. */
  async function access(actor: Actor, mappingId: string, manage: boolean, sql: Sql = db): Promise<{ mapping: HostedMapping; role: WorkspaceRole }> {
    const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read', sql);
    const role = await workspaces.authorize(actor.accountId, mapping.workspaceId, manage ? 'vault.manage' : 'vault.read', sql);
    return { mapping, role };
  }

  /**
   * Runs a change of a mapping's scopes: checked and answered without writing (a preview reads without locking), or
   * applied in the caller's transaction or a new one. Applying locks the mapping's row first: it keeps two changes
   * from both passing the count and name checks.
   */
  async function change<T>(actor: Actor, mappingId: string, options: ScopeChangeOptions, work: (sql: Sql, mapping: HostedMapping, write: boolean) => Promise<T>): Promise<T> {
    const run = async (sql: Sql, write: boolean) => {
      const { mapping } = await access(actor, mappingId, true, sql);
      if (write) await sql.query('SELECT id FROM mappings WHERE id = $1 FOR UPDATE', [mapping.id]);
      return work(sql, mapping, write);
    };
    if (options.dryRun) return run(db, false);
    if (options.sql) return run(options.sql, true);
    return db.transaction((tx) => run(tx, true));
  }

  async function existing(sql: Sql, mappingId: string, scopeId: string): Promise<ContextScope> {
    const scope = isUuid(scopeId) ? await store.findScope(sql, mappingId, scopeId) : undefined;
    if (!scope) throw unknownScope();
    return scope;
  }

  async function checkName(sql: Sql, mappingId: string, name: string, except?: string): Promise<void> {
    if (await store.nameTaken(sql, mappingId, name, except)) {
      throw new KgateError('conflict', 'Another scope of this mapping has that name.', { name });
    }
  }

  return {
    async listManaged(actor, mappingId) {
      const { mapping } = await access(actor, mappingId, true);
      return store.listScopes(db, mapping.id);
    },
    async listUsable(actor, mappingId) {
      const { mapping, role } = await access(actor, mappingId, false);
      return (await store.listScopes(db, mapping.id)).filter((s) => inAudience(s.audience, role, actor.credentialKind));
    },
    async create(actor, mappingId, definition, options = {}) {
      const normalized = normalizeDefinition(definition);
      return change(actor, mappingId, options, async (sql, mapping, write) => {
        if ((await store.countScopes(sql, mapping.id)) >= MAX_SCOPES_PER_MAPPING) {
          throw new KgateError('conflict', `A mapping has at most ${MAX_SCOPES_PER_MAPPING} scopes.`);
        }
        await checkName(sql, mapping.id, normalized.name);
        const input = { id: newId(), mappingId: mapping.id, definition: normalized, createdBy: actor.accountId, at: clock.now() };
        return write ? store.insertScope(sql, input) : draftOf(input);
      });
    },
    async update(actor, mappingId, scopeId, definition, options = {}) {
      const normalized = normalizeDefinition(definition);
      return change(actor, mappingId, options, async (sql, mapping, write) => {
        // The scope first: a guessed id is not_found whatever name it asks for.
        const scope = await existing(sql, mapping.id, scopeId);
        await checkName(sql, mapping.id, normalized.name, scope.id);
        const at = clock.now();
        if (!write) return { ...draftOf({ id: scope.id, mappingId: mapping.id, definition: normalized, at }), createdAt: scope.createdAt };
        return (await store.updateScope(sql, mapping.id, scope.id, normalized, at))!;
      });
    },
    async remove(actor, mappingId, scopeId, options = {}) {
      return change(actor, mappingId, options, async (sql, mapping, write) => {
        const scope = await existing(sql, mapping.id, scopeId);
        if (write) await store.deleteScope(sql, mapping.id, scope.id);
        return scope;
      });
    },
    async authorize(actor, mappingId, scopeId, sql = db) {
      const { mapping, role } = await access(actor, mappingId, false, sql);
      const scope = isUuid(scopeId) ? await store.findScope(sql, mapping.id, scopeId) : undefined;
      if (!scope || !inAudience(scope.audience, role, actor.credentialKind)) throw unknownScope();
      // Every scope-bound read works from note bodies; with a device-held key the server has none (spec 1.4), and
      // says so rather than answering an empty result as if the vault held nothing.
      if (mapping.deviceEncrypted) {
        throw new KgateError('device_encrypted', 'Notes of this mapping are encrypted with a device-held key; the server cannot derive knowledge from them.');
      }
      return { scope, mapping, role, slice: { vaultId: mapping.vaultId, pathPrefixes: scope.pathPrefixes, tags: scope.tags } };
    },
  };
}
