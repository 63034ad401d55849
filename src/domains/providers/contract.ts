import type { MeteredProviderCall, ProviderBudget } from './call.ts';
import type { ProviderAdapter, RemoteKind, RemoteRoot } from './port.ts';

/** An account's connection to one provider, as shown to its owner (never with a token). */
export interface ProviderConnection {
  id: string;
  accountId: string;
  provider: RemoteKind;
  providerAccountId: string;
  providerAccountName: string;
  status: 'active' | 'revoked';
  scopes: string[];
  canRead: boolean;
  canWrite: boolean;
  accessExpiresAt: Date | null;
  lastError: string | null;
  createdAt: Date;
}

/** A remote mapping as the sync engine and the remote write path need it: server records, resolved. */
export interface RemoteMapping {
  id: string;
  workspaceId: string;
  ownerAccountId: string;
  /** The vault holding the synchronized copy of the mapping's notes. */
  vaultId: string;
  provider: RemoteKind;
  root: RemoteRoot;
  connectionId: string;
  deviceEncrypted: boolean;
}

/** Builds a provider call for one operation on a mapping, under its connection's tokens and the given budget. */
export type CallFactory = (mapping: Pick<RemoteMapping, 'connectionId' | 'provider'>, budget: ProviderBudget) => Promise<MeteredProviderCall>;

/** The adapters by kind (settings pick the URLs; see providerSettings). */
export type AdapterRegistry = Readonly<Record<RemoteKind, ProviderAdapter>>;

/** Budgets of the operations that reach a provider (spec 8, rule 1). Numbers are ours; docs/providers.md explains them. */
export const PROVIDER_BUDGETS = {
  /** One live note read (get_note_content) or stat. */
  read: { maxRequests: 20, maxBytes: 4 * 1024 * 1024, wallMs: 15_000 },
  /** One applied remote write or delete: stat, write, possibly folder creation, retries. */
  write: { maxRequests: 40, maxBytes: 4 * 1024 * 1024, wallMs: 20_000 },
  /** get_vault_schema on a remote mapping: at most 20 live note reads (spec 8). */
  schema: { maxRequests: 120, maxBytes: 16 * 1024 * 1024, wallMs: 30_000 },
  /** One sync step of a mapping (a page of listing or changes and its downloads). */
  syncStep: { maxRequests: 400, maxBytes: 64 * 1024 * 1024, wallMs: 60_000 },
  /** Checking a root the owner typed when creating a mapping. */
  resolveRoot: { maxRequests: 20, maxBytes: 256 * 1024, wallMs: 15_000 },
} as const satisfies Record<string, ProviderBudget>;

/** Traversal bounds of listings and change pages (spec 8, rule 1: folder traversal). */
export const TRAVERSAL_LIMITS = { maxDepth: 12, maxEntries: 1_000 } as const;

/** Most files one remote mapping may hold under its root; a sync beyond it stops with `provider_limit_reached`. */
export const MAX_REMOTE_FILES = 50_000;

/** Largest remote note kgate copies; larger files are listed as too large, not read. */
export const MAX_REMOTE_NOTE_BYTES = 1024 * 1024;

/** Most live note reads of get_vault_schema on a remote mapping (spec 8). */
export const MAX_REMOTE_SCHEMA_READS = 20;
