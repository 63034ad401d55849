import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { AuthorizedScope, ScopesService } from '../scopes/index.ts';
import type { RuntimePrincipal, VaultGrantAccess } from './contract.ts';
import { acceptedMemory, insertCandidate, type MemoryCandidateInput, type MemoryEntry } from './memory.ts';
import { reserveOperation, type RuntimeReservation } from './metering.ts';
import type { PresentationSources } from './presentation/index.ts';
import { presentationSourcesOf } from './presentation-sources.ts';
import {
  listAllGrantedVaults,
  listAssignedWorkspaces,
  listGrantedVaults,
  markBound,
  requireAssignedWorkspace,
  resolveGrantedVault,
  vaultOfScope,
  type GrantedVault,
} from './vault-chain.ts';

/** Resolves a Product Runtime bearer token to a principal with links 1 to 8 of the chain checked (credentials). */
export interface PrincipalAuthenticator {
  authenticate(bearer: string): Promise<RuntimePrincipal>;
}

/** A context scope reached through the chain (link 12): the scope, its slice, and the granted vault behind it. */
export interface ReachedScope {
  scope: AuthorizedScope;
  vault: GrantedVault;
}

/** The Product Runtime's use cases on behalf of an authenticated service principal (docs/runtime.md). */
export interface RuntimeService {
  /** Links 1 to 8 of the chain. */
  authenticate(bearer: string): Promise<RuntimePrincipal>;
  /** Link 13: one operation of the organization's month, reserved before execution. */
  reserve(principal: RuntimePrincipal): Promise<RuntimeReservation>;
  /** Link 10 for a route that names a workspace but no vault, checked before the reservation. */
  requireWorkspace(principal: RuntimePrincipal, workspaceId: string): Promise<void>;
  /** Links 10 and 11 for a vault route; `publish` also needs a publish grant. */
  resolveVault(principal: RuntimePrincipal, workspaceId: string, vaultId: string, access: VaultGrantAccess): Promise<GrantedVault>;
  /**
   * Link 12, with 10 and 11 for the scope's vault: the scope exists, its vault is granted to the installation, and
   * the scope admits non-person callers whose customer's role meets its audience. Every failure is `scope_not_found`.
   */
  resolveScope(principal: RuntimePrincipal, scopeId: string, access?: VaultGrantAccess): Promise<ReachedScope>;
  /** An assigned workspace and the vaults granted in it (getWorkspace). */
  workspace(principal: RuntimePrincipal, workspaceId: string): ReturnType<typeof listGrantedVaults>;
  /** The workspaces assigned to the installation (the runtime context lists them, so a product can find its ids). */
  assignedWorkspaces(principal: RuntimePrincipal): Promise<Array<{ id: string; name: string }>>;
  /** Every granted vault (listAvailableScopes walks their scopes). */
  grantedVaults(principal: RuntimePrincipal): Promise<GrantedVault[]>;
  /** Records that the product bound a granted vault; grants nothing (bindHostedVault). */
  bindVault(principal: RuntimePrincipal, vault: GrantedVault, sql?: Sql): Promise<Date>;
  /** Stores a shared memory candidate of a scope, in the call's idempotent commit when it has one. */
  proposeMemory(principal: RuntimePrincipal, scope: ReachedScope, input: MemoryCandidateInput, sql?: Sql): Promise<MemoryEntry>;
  /** The product's presentation records (experience pack, brand), for presentation only, after authorization. */
  presentationSources(principal: RuntimePrincipal): Promise<PresentationSources>;
  /** A scope's accepted memory (candidates never appear here). */
  acceptedMemory(scope: ReachedScope, offset: number, limit: number): ReturnType<typeof acceptedMemory>;
}

/**
 * The actor of what a product does: the installation's customer account, acting through the product's service
 * principal. Provenance names the product; the vaults domain re-checks the customer's role on every call.
 */
export function runtimeActor(principal: RuntimePrincipal): Actor {
  return {
    accountId: principal.customerAccountId,
    credentialKind: 'service_principal',
    credentialId: principal.principalId,
    client: principal.product.name,
  };
}

const scopeNotFound = () =>
  new KgateError('scope_not_found', 'No such context scope, or it is not reachable through the vaults granted to your product.');

/** Builds the runtime service over the database, the credentials that authenticate, and the scopes service. */
export function createRuntimeService(db: Database, deps: { credentials: PrincipalAuthenticator; scopes: Pick<ScopesService, 'authorize'> }): RuntimeService {
  const resolveVault: RuntimeService['resolveVault'] = (principal, workspaceId, vaultId, access) =>
    resolveGrantedVault(db, principal, workspaceId, vaultId, access);
  return {
    authenticate: (bearer) => deps.credentials.authenticate(bearer),
    reserve: (principal) => reserveOperation(db, principal.organization.id, principal.organization.settings.apiOperationsPerMonth),
    requireWorkspace: (principal, workspaceId) => requireAssignedWorkspace(db, principal, workspaceId),
    resolveVault,
    async resolveScope(principal, scopeId, access = 'read') {
      const at = await vaultOfScope(db, scopeId);
      if (!at) throw scopeNotFound();
      let vault: GrantedVault;
      try {
        vault = await resolveVault(principal, at.workspaceId, at.vaultId, access);
      } catch (error) {
        // A scope of a vault the product may not reach is no more visible than one that does not exist.
        if (error instanceof KgateError && (error.code === 'workspace_not_assigned' || error.code === 'vault_not_granted')) throw scopeNotFound();
        throw error;
      }
      try {
        return { vault, scope: await deps.scopes.authorize(runtimeActor(principal), vault.mappingId, scopeId) };
      } catch (error) {
        if (error instanceof KgateError && error.code === 'not_found') throw scopeNotFound();
        throw error;
      }
    },
    workspace: (principal, workspaceId) => listGrantedVaults(db, principal, workspaceId),
    grantedVaults: (principal) => listAllGrantedVaults(db, principal),
    assignedWorkspaces: (principal) => listAssignedWorkspaces(db, principal),
    bindVault: (principal, vault, sql = db) => markBound(sql, principal.installationId, vault.vaultId),
    proposeMemory: (principal, scope, input, sql = db) =>
      insertCandidate(sql, { installationId: principal.installationId, principalId: principal.principalId, scopeId: scope.scope.scope.id, vaultId: scope.vault.vaultId }, input),
    presentationSources: (principal) => presentationSourcesOf(db, principal),
    acceptedMemory: (scope, offset, limit) => acceptedMemory(db, scope.scope.scope.id, offset, limit),
  };
}
