import { z } from 'zod';
import { WorkspaceRoleSchema } from '../workspaces/index.ts';

/** Most path prefixes, and most tags, one scope names. */
export const MAX_SCOPE_FILTERS = 20;
/** Most scopes one mapping holds. */
export const MAX_SCOPES_PER_MAPPING = 100;
/** Longest scope name. */
export const MAX_SCOPE_NAME_LENGTH = 100;

/**
 * Who may read through a scope: members whose role in the mapping's workspace is at least `minimumRole`, and, when
 * `agents` is true, also through their tokens and connected clients; when false, only a signed-in person (a web
 * session) may.
 */
export const AudienceSchema = z.object({
  minimumRole: WorkspaceRoleSchema,
  agents: z.boolean(),
});
/** See AudienceSchema. */
export type Audience = z.infer<typeof AudienceSchema>;

/** A context scope: a named slice of one mapping (path prefixes and/or tags) with its audience (docs/knowledge.md). */
export const ContextScopeSchema = z.object({
  id: z.uuid(),
  mappingId: z.uuid(),
  name: z.string(),
  /** Folder prefixes (`Projects/Tidewater/`); none: every path. */
  pathPrefixes: z.array(z.string()),
  /** Tag keys (lowercase, without `#`; a tag also matches its nested tags); none: every note. */
  tags: z.array(z.string()),
  audience: AudienceSchema,
  createdAt: z.date(),
  updatedAt: z.date(),
});
/** See ContextScopeSchema. */
export type ContextScope = z.infer<typeof ContextScopeSchema>;

/** What a manager sets when creating or changing a scope. */
export interface ScopeDefinition {
  name: string;
  pathPrefixes: readonly string[];
  tags: readonly string[];
  audience: Audience;
}

/**
 * The slice of a hosted vault a scope admits, as knowledge reads filter by it: a note is in the slice when its path
 * is under one of the prefixes (or there are none) and it carries one of the tags (or there are none).
 */
export interface ScopeSlice {
  vaultId: string;
  pathPrefixes: readonly string[];
  tags: readonly string[];
}
