import { z } from 'zod';

/** Where a mapping's notes live. */
export const ProviderKindSchema = z.enum(['hosted', 'drive', 'dropbox', 'github']);
/** See ProviderKindSchema. */
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

/** A synchronized workspace mapping: the thing a caller names with `mappingId`. */
export const MappingSchema = z.object({
  id: z.uuid(),
  workspaceId: z.uuid(),
  ownerAccountId: z.uuid(),
  provider: ProviderKindSchema,
  /** The hosted vault behind a hosted mapping; null for remote kinds. */
  vaultId: z.uuid().nullable(),
  name: z.string(),
  readOnly: z.boolean(),
  pullOnly: z.boolean(),
  /** The owner's "Allow hosted MCP note changes" switch for this exact mapping. */
  allowMcpNoteChanges: z.boolean(),
  /** Device-held encryption: the server never sees note bodies. */
  deviceEncrypted: z.boolean(),
  remoteRoot: z.string().nullable(),
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
}

/** A mapping whose notes are hosted by kgate. */
export type HostedMapping = Mapping & { provider: 'hosted'; vaultId: string };

/** What the caller wants to do through a mapping. */
export type MappingAccess = 'read' | 'write';

/** Longest vault or mapping name. */
export const MAX_VAULT_NAME_LENGTH = 200;
