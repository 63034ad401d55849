import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import type { Plan } from '../../kernel/principal.ts';
import { entitlementsOf } from '../accounts/index.ts';
import type { WorkspaceRole, WorkspacesService } from '../workspaces/index.ts';
import { ApprovalPolicySchema, MAX_VAULT_NAME_LENGTH, type ApprovalPolicy, type HostedMapping, type Mapping, type MappingAccess, type MappingFlags, type ProviderKind } from './contract.ts';
import type { AuthorityCache } from './authority-cache.ts';
import { connectionMayRead, disconnected, mayAccessMapping, permissionFor } from './policy.ts';
import * as store from './store.ts';

// Enough for every mapping a busy process serves; a forgotten one only runs its next apply alone.
const MAX_REMEMBERED_KINDS = 100_000;

/** Input of `createHostedVault`. */
export interface CreateHostedVaultInput {
  accountId: string;
  /** The account's current plan, resolved by the caller from server records. */
  plan: Plan;
  workspaceId: string;
  name: string;
  /** The owner's "Allow hosted MCP note changes" switch; off unless asked for. */
  allowMcpNoteChanges?: boolean;
}

/** Input of `createRemoteMapping`: the root is already resolved by the provider's adapter. */
export interface CreateRemoteMappingInput {
  accountId: string;
  workspaceId: string;
  name: string;
  provider: Exclude<ProviderKind, 'hosted'>;
  /** The account's own active provider connection (the providers domain checked it). */
  connectionId: string;
  /** The root as the owner reads it, and as the adapter resolved it. */
  remoteRoot: string;
  remoteConfig: Record<string, unknown>;
  pullOnly: boolean;
  allowMcpNoteChanges: boolean;
  deviceEncrypted: boolean;
}

/** Vault and mapping use cases. */
export interface VaultsService {
  createHostedVault(input: CreateHostedVaultInput, sql?: Sql): Promise<HostedMapping>;
  /** Creates a remote mapping and the vault for its synchronized copy (workspace managers only). */
  createRemoteMapping(input: CreateRemoteMappingInput, sql?: Sql): Promise<Mapping>;
  /** Mappings owned by the account (what `list_vaults` discovers). */
  listOwnedMappings(accountId: string, sql?: Sql): Promise<Mapping[]>;
  /**
   * The mappings the account may see (what `list_vaults` discovers): those of every workspace it belongs to, with its
   * role there, owned ones and shared ones alike.
   */
  listAccessibleMappings(accountId: string, sql?: Sql): Promise<Array<{ mapping: Mapping; role: WorkspaceRole }>>;
  /**
   * Resolves a mapping and the account's authority over it from server records. Malformed, unknown and
   * forbidden ids all answer the same `not_found`: a mapping id alone is never a credential.
   */
  resolveMapping(accountId: string, mappingId: string, access: MappingAccess, sql?: Sql): Promise<Mapping>;
  /**
   * Finds a mapping without any authority check. Only for the operator at the server's own command line
   * (`kgate import`, `kgate export`), who acts as the mapping's owner; never reachable from a network surface.
   */
  findMappingAsOperator(mappingId: string): Promise<Mapping>;
  /** Changes a mapping's flags (operator only: `kgate admin mapping`; the owner's settings page later). */
  updateMappingFlags(mappingId: string, flags: MappingFlags): Promise<Mapping>;
  /**
   * The owner's "Allow hosted MCP note changes" switch of one mapping (spec 3.1). Only the mapping's owner may
   * change it; for anyone else, and for unknown or malformed ids, the same `not_found`.
   */
  setMcpNoteChanges(accountId: string, mappingId: string, on: boolean): Promise<Mapping>;
  /** Sets the approval policy of a mapping the account owns (the owner's decision, like the switch above). */
  setApprovalPolicy(accountId: string, mappingId: string, policy: ApprovalPolicy): Promise<Mapping>;
  /**
   * The owner's pull-only and device-held encryption switches of one mapping (only what is given changes). Like the
   * switch above, the owner's own decision: for anyone else, and for unknown or malformed ids, the same `not_found`.
   */
  setOwnerSwitches(accountId: string, mappingId: string, switches: Pick<MappingFlags, 'pullOnly' | 'deviceEncrypted'>): Promise<Mapping>;
  /**
   * The provider kind of a mapping this process has resolved before, without a query; undefined when not seen yet.
   * A mapping's kind never changes, so the answer never goes stale; it grants nothing (it is not authority).
   */
  providerOf(mappingId: string): ProviderKind | undefined;
  /** Like `resolveMapping`, for operations that only hosted vaults support. */
  resolveHostedMapping(accountId: string, mappingId: string, access: MappingAccess, sql?: Sql): Promise<HostedMapping>;
  /**
   * Like resolveHostedMapping, in the same single query, plus the vault's content version at that moment (for
   * in-memory indexes that must know whether they are current).
   */
  resolveHostedVault(
    accountId: string,
    mappingId: string,
    access: MappingAccess,
    sql?: Sql,
  ): Promise<{ mapping: HostedMapping; contentVersion: number }>;
}

/**
 * Builds the vaults service; workspace roles decide authority. Outside a transaction, authority and content versions
 * come from `cache` when it holds them; inside one (a write checking again under the vault lock) always from the
 * database.
 */
export function createVaultsService(db: Database, workspaces: WorkspacesService, cache: AuthorityCache): VaultsService {
  const unknownMapping = () => new KgateError('not_found', 'The mapping does not exist.');

  async function findForCaller(sql: Sql, mappingId: string, accountId: string) {
    if (sql !== db) return store.findMappingForCaller(sql, mappingId, accountId);
    const cached = cache.get(accountId, mappingId);
    if (cached) return cached;
    const readAt = cache.generation();
    const found = await store.findMappingForCaller(db, mappingId, accountId);
    if (found?.role !== undefined) cache.set(accountId, mappingId, { mapping: found.mapping, role: found.role, contentVersion: found.contentVersion }, readAt);
    return found;
  }

  // Mapping id to provider kind, which never changes; bounded, oldest forgotten first.
  const kinds = new Map<string, ProviderKind>();
  const rememberKind = (mapping: Mapping) => {
    if (kinds.has(mapping.id)) return;
    if (kinds.size >= MAX_REMEMBERED_KINDS) kinds.delete(kinds.keys().next().value!);
    kinds.set(mapping.id, mapping.provider);
  };

  async function resolveMapping(accountId: string, mappingId: string, access: MappingAccess, sql: Sql = db) {
    if (!isUuid(mappingId)) throw unknownMapping();
    const found = await findForCaller(sql, mappingId, accountId);
    if (found) rememberKind(found.mapping);
    // A non-member learns nothing, not even that the mapping exists.
    if (!found || found.role === undefined) throw unknownMapping();
    if (!mayAccessMapping(found.role, access)) {
      const permission = permissionFor(access);
      throw new KgateError('forbidden', `Your role in this workspace does not allow ${permission}.`, { permission });
    }
    // A remote mapping is usable only with its owner's active provider connection (spec 2.1): the mapping's id is
    // not vault authority on its own, even for the copy kgate holds.
    if (!connectionMayRead(found.mapping)) throw disconnected();
    return found;
  }

  async function resolveHosted(accountId: string, mappingId: string, access: MappingAccess, sql: Sql = db) {
    const found = await resolveMapping(accountId, mappingId, access, sql);
    return { mapping: found.mapping, contentVersion: found.contentVersion };
  }

  return {
    providerOf: (mappingId) => kinds.get(mappingId),
    async createHostedVault(input, sql = db) {
      const name = input.name.trim();
      if (name.length === 0 || name.length > MAX_VAULT_NAME_LENGTH) {
        throw new KgateError('invalid_request', `A vault name has 1 to ${MAX_VAULT_NAME_LENGTH} characters.`, {
          field: 'name',
        });
      }
      await workspaces.authorize(input.accountId, input.workspaceId, 'vault.manage', sql);
      const limit = entitlementsOf(input.plan).maxHostedVaults;
      if ((await store.countHostedVaultsOwnedBy(sql, input.accountId)) >= limit) {
        throw new KgateError('plan_required', `Your plan includes at most ${limit} hosted vaults.`, { limit });
      }
      const mapping = await store.insertHostedVault(sql, {
        vaultId: newId(),
        mappingId: newId(),
        workspaceId: input.workspaceId,
        ownerId: input.accountId,
        name,
        allowMcpNoteChanges: input.allowMcpNoteChanges ?? false,
      });
      return mapping;
    },
    async createRemoteMapping(input, sql = db) {
      const name = input.name.trim();
      if (name.length === 0 || name.length > MAX_VAULT_NAME_LENGTH) {
        throw new KgateError('invalid_request', `A mapping name has 1 to ${MAX_VAULT_NAME_LENGTH} characters.`, { field: 'name' });
      }
      await workspaces.authorize(input.accountId, input.workspaceId, 'vault.manage', sql);
      return store.insertRemoteMapping(sql, {
        vaultId: newId(),
        mappingId: newId(),
        workspaceId: input.workspaceId,
        ownerId: input.accountId,
        name,
        provider: input.provider,
        connectionId: input.connectionId,
        remoteRoot: input.remoteRoot,
        remoteConfig: input.remoteConfig,
        flags: { pullOnly: input.pullOnly, allowMcpNoteChanges: input.allowMcpNoteChanges, deviceEncrypted: input.deviceEncrypted },
      });
    },
    listOwnedMappings: (accountId, sql = db) => store.listMappingsOwnedBy(sql, accountId),
    listAccessibleMappings: (accountId, sql = db) => store.listMappingsForMember(sql, accountId),
    resolveMapping: async (accountId, mappingId, access, sql = db) => (await resolveMapping(accountId, mappingId, access, sql)).mapping,
    async findMappingAsOperator(mappingId) {
      const mapping = isUuid(mappingId) ? await store.findMapping(db, mappingId) : undefined;
      if (!mapping) throw unknownMapping();
      return mapping;
    },
    async updateMappingFlags(mappingId, flags) {
      if (!isUuid(mappingId) || !(await store.updateMappingFlags(db, mappingId, flags))) throw unknownMapping();
      cache.forgetMapping(mappingId);
      return (await store.findMapping(db, mappingId))!;
    },
    async setMcpNoteChanges(accountId, mappingId, on) {
      const mapping = isUuid(mappingId) ? await store.findMapping(db, mappingId) : undefined;
      // Workspace admins manage vaults, but this switch is the owner's own decision (spec 3.1).
      if (!mapping || mapping.ownerAccountId !== accountId) throw unknownMapping();
      if (!(await store.updateMappingFlags(db, mappingId, { allowMcpNoteChanges: on }))) throw unknownMapping();
      cache.forgetMapping(mappingId);
      return (await store.findMapping(db, mappingId)) ?? Promise.reject(unknownMapping());
    },
    async setApprovalPolicy(accountId, mappingId, policy) {
      const mapping = isUuid(mappingId) ? await store.findMapping(db, mappingId) : undefined;
      if (!mapping || mapping.ownerAccountId !== accountId) throw unknownMapping();
      if (!ApprovalPolicySchema.safeParse(policy).success) throw new KgateError('invalid_request', 'The approval policy is open, preview-first or people-approve.');
      if (!(await store.updateMappingFlags(db, mappingId, { approvalPolicy: policy }))) throw unknownMapping();
      cache.forgetMapping(mappingId);
      return (await store.findMapping(db, mappingId)) ?? Promise.reject(unknownMapping());
    },
    async setOwnerSwitches(accountId, mappingId, switches) {
      const mapping = isUuid(mappingId) ? await store.findMapping(db, mappingId) : undefined;
      if (!mapping || mapping.ownerAccountId !== accountId) throw unknownMapping();
      // Only these two: the setter must not become a way to change read-only or the approval policy.
      const flags: MappingFlags = { pullOnly: switches.pullOnly, deviceEncrypted: switches.deviceEncrypted };
      if (!(await store.updateMappingFlags(db, mappingId, flags))) throw unknownMapping();
      cache.forgetMapping(mappingId);
      return (await store.findMapping(db, mappingId)) ?? Promise.reject(unknownMapping());
    },
    async resolveHostedMapping(accountId, mappingId, access, sql = db) {
      return (await resolveHosted(accountId, mappingId, access, sql)).mapping;
    },
    resolveHostedVault: (accountId, mappingId, access, sql = db) => resolveHosted(accountId, mappingId, access, sql),
  };
}
