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

/** Context scopes: named slices of a mapping with an audience (docs/knowledge.md, "Context scopes"). */
export interface ScopesService {
  /** Every scope of a mapping, for its managers (owner or admin of its workspace). */
  listManaged(actor: Actor, mappingId: string): Promise<ContextScope[]>;
  /** The scopes of a mapping this caller may read through now (role and credential in each audience). */
  listUsable(actor: Actor, mappingId: string): Promise<ContextScope[]>;
  /** Creates a scope (managers only); names are unique per mapping, case-insensitively. */
  create(actor: Actor, mappingId: string, definition: ScopeDefinition): Promise<ContextScope>;
  /** Replaces a scope's definition (managers only). */
  update(actor: Actor, mappingId: string, scopeId: string, definition: ScopeDefinition): Promise<ContextScope>;
  /** Removes a scope (managers only). */
  remove(actor: Actor, mappingId: string, scopeId: string): Promise<void>;
  /**
   * The scope, when this caller may read through it now: the mapping is hosted and readable by them, the scope is
   * the mapping's, and their role and credential are in its audience. Anything else is `not_found`, the same
   * answer for a guessed id, another mapping's scope and a scope outside the caller's audience.
   */
  authorize(actor: Actor, mappingId: string, scopeId: string): Promise<AuthorizedScope>;
}

const unknownScope = () => new KgateError('not_found', 'No such context scope for this mapping, or it is not available to you.');

/** Builds the scopes service; authority over mappings and roles comes from the vaults and workspaces services. */
export function createScopesService(db: Database, clock: Clock, vaults: VaultsService, workspaces: WorkspacesService): ScopesService {
  /** The hosted mapping and the caller's role in its workspace; `manage` needs vault.manage. */
  async function access(actor: Actor, mappingId: string, manage: boolean): Promise<{ mapping: HostedMapping; role: WorkspaceRole }> {
    const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
    const role = await workspaces.authorize(actor.accountId, mapping.workspaceId, manage ? 'vault.manage' : 'vault.read');
    return { mapping, role };
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
    async create(actor, mappingId, definition) {
      const normalized = normalizeDefinition(definition);
      const { mapping } = await access(actor, mappingId, true);
      return db.transaction(async (tx) => {
        // The mapping row is the lock that keeps two creations from both passing the count and name checks.
        await tx.query('SELECT id FROM mappings WHERE id = $1 FOR UPDATE', [mapping.id]);
        if ((await store.countScopes(tx, mapping.id)) >= MAX_SCOPES_PER_MAPPING) {
          throw new KgateError('conflict', `A mapping has at most ${MAX_SCOPES_PER_MAPPING} scopes.`);
        }
        await checkName(tx, mapping.id, normalized.name);
        return store.insertScope(tx, { id: newId(), mappingId: mapping.id, definition: normalized, createdBy: actor.accountId, at: clock.now() });
      });
    },
    async update(actor, mappingId, scopeId, definition) {
      const normalized = normalizeDefinition(definition);
      const { mapping } = await access(actor, mappingId, true);
      if (!isUuid(scopeId)) throw unknownScope();
      return db.transaction(async (tx) => {
        await tx.query('SELECT id FROM mappings WHERE id = $1 FOR UPDATE', [mapping.id]);
        await checkName(tx, mapping.id, normalized.name, scopeId);
        const updated = await store.updateScope(tx, mapping.id, scopeId, normalized, clock.now());
        if (!updated) throw unknownScope();
        return updated;
      });
    },
    async remove(actor, mappingId, scopeId) {
      const { mapping } = await access(actor, mappingId, true);
      if (!isUuid(scopeId) || !(await store.deleteScope(db, mapping.id, scopeId))) throw unknownScope();
    },
    async authorize(actor, mappingId, scopeId) {
      const { mapping, role } = await access(actor, mappingId, false);
      const scope = isUuid(scopeId) ? await store.findScope(db, mapping.id, scopeId) : undefined;
      if (!scope || !inAudience(scope.audience, role, actor.credentialKind)) throw unknownScope();
      return { scope, mapping, role, slice: { vaultId: mapping.vaultId, pathPrefixes: scope.pathPrefixes, tags: scope.tags } };
    },
  };
}
