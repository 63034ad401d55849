import { z } from 'zod';

/** Where a mapping's notes live. */
export const ProviderKindSchema = z.enum(['hosted', 'drive', 'dropbox', 'github']);
/** See ProviderKindSchema. */
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

/**
 * The owner's approval policy of a mapping (docs/proposals.md): `open` applies what a caller sends with the current
 * hashes (previews advised, as the spec describes for scripts); `preview-first` refuses an apply that matches no
 * preview receipt of the same credential within PREVIEW_WINDOW_MS; `people-approve` also refuses agents' applies:
 * agents propose (`propose_action`) and a person approves on the workspace page.
 */
export const ApprovalPolicySchema = z.enum(['open', 'preview-first', 'people-approve']);
/** See ApprovalPolicySchema. */
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** A synchronized workspace mapping: the thing a caller names with `mappingId`. */
export const MappingSchema = z.object({
  id: z.uuid(),
  workspaceId: z.uuid(),
  ownerAccountId: z.uuid(),
  provider: ProviderKindSchema,
  /**
   * The vault behind the mapping: a hosted mapping's notes, or the copy synchronized from a remote mapping's provider
   * (the provider stays the source of truth; docs/providers.md).
   */
  vaultId: z.uuid(),
  name: z.string(),
  readOnly: z.boolean(),
  pullOnly: z.boolean(),
  /** The owner's "Allow hosted MCP note changes" switch for this exact mapping. */
  allowMcpNoteChanges: z.boolean(),
  /** The owner's approval policy for note changes through this mapping. */
  approvalPolicy: ApprovalPolicySchema,
  /** Device-held encryption: the server never sees note bodies. */
  deviceEncrypted: z.boolean(),
  /** A remote mapping's root as the owner reads it (a folder path, or owner/repo@branch:folder); null when hosted. */
  remoteRoot: z.string().nullable(),
  /** A remote mapping's root as its provider adapter resolved it (providers' RemoteRoot); null when hosted. */
  remoteConfig: z.record(z.string(), z.unknown()).nullable(),
  /** A remote mapping's provider connection as the server holds it now; null when hosted. */
  connection: z
    .object({ id: z.uuid(), status: z.enum(['active', 'revoked']), canRead: z.boolean(), canWrite: z.boolean() })
    .nullable(),
  createdAt: z.date(),
});
/** See MappingSchema. */
export type Mapping = z.infer<typeof MappingSchema>;

/** The switches of a mapping an owner or operator can change. */
export interface MappingFlags {
  readOnly?: boolean;
  pullOnly?: boolean;
  allowMcpNoteChanges?: boolean;
  deviceEncrypted?: boolean;
  approvalPolicy?: ApprovalPolicy;
}

/**
 * A mapping whose notes kgate holds in a vault: every mapping, since a remote one holds its synchronized copy. The
 * name stays from when only hosted mappings had a vault; reads treat both alike, writes branch on `provider`.
 */
export type HostedMapping = Mapping;

/** What the caller wants to do through a mapping. */
export type MappingAccess = 'read' | 'write';

/** Longest vault or mapping name. */
export const MAX_VAULT_NAME_LENGTH = 200;
