import { textArrayParam } from '../../db/port.ts';
import type { ScopeSlice } from '../scopes/index.ts';

/**
 * The SQL condition that admits a row of `alias` (with `vault_id` and `path` columns) to the slice, its parameters
 * appended to `params`: the path under one of the prefixes, and the note carrying one of the tags or a tag nested
 * under one. A note that is gone carries no tags, so a tag slice admits nothing of it.
 */
export function sliceCondition(alias: string, slice: ScopeSlice, params: unknown[]): string {
  const parts: string[] = [];
  if (slice.pathPrefixes.length > 0) {
    params.push(textArrayParam(slice.pathPrefixes));
    parts.push(`EXISTS (SELECT 1 FROM unnest($${params.length}::text[]) AS sp(prefix) WHERE starts_with(${alias}.path, sp.prefix))`);
  }
  if (slice.tags.length > 0) {
    params.push(textArrayParam(slice.tags));
    const n = params.length;
    parts.push(
      `EXISTS (SELECT 1 FROM notes sn, unnest(sn.tag_keys) AS st(key)
                WHERE sn.vault_id = ${alias}.vault_id AND sn.path COLLATE "C" = ${alias}.path
                  AND (st.key = ANY($${n}::text[]) OR EXISTS (SELECT 1 FROM unnest($${n}::text[]) AS sq(tag) WHERE starts_with(st.key, sq.tag || '/'))))`,
    );
  }
  return parts.length > 0 ? parts.join(' AND ') : 'true';
}

/** True when a note at `path` carrying `tagKeys` is in the slice (sliceCondition, in memory). */
export function inSlice(slice: ScopeSlice, path: string, tagKeys: readonly string[]): boolean {
  if (slice.pathPrefixes.length > 0 && !slice.pathPrefixes.some((p) => path.startsWith(p))) return false;
  if (slice.tags.length === 0) return true;
  return tagKeys.some((key) => slice.tags.some((tag) => key === tag || key.startsWith(`${tag}/`)));
}
