/**
 * The addresses of the workspace's views (docs/workspace.md). A note's address mirrors its vault path, segment by
 * segment, so that a relative Markdown link in a note (`[x](../Other.md)`) leads to the right workspace page.
 */

/** A vault path as URL path segments, each percent-encoded. */
function pathSegments(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The workspace home: the person's vaults. */
export const WORKSPACE_HOME = '/workspace';

/** A vault's notes, at its root or in `folder` (a vault-relative folder without trailing slash). */
export function vaultUrl(mappingId: string, folder = ''): string {
  const base = `/workspace/vaults/${encodeURIComponent(mappingId)}`;
  return folder === '' ? base : `${base}?folder=${encodeURIComponent(folder)}`;
}

/** A search of a vault's notes. */
export function searchUrl(mappingId: string, query: string): string {
  return `/workspace/vaults/${encodeURIComponent(mappingId)}?q=${encodeURIComponent(query)}`;
}

/** One note. */
export function noteUrl(mappingId: string, path: string): string {
  return `/workspace/vaults/${encodeURIComponent(mappingId)}/notes/${pathSegments(path)}`;
}

/** A vault's provenance events, newest first. */
export function eventsUrl(mappingId: string): string {
  return `/workspace/vaults/${encodeURIComponent(mappingId)}/events`;
}

/** A vault's trash. */
export function trashUrl(mappingId: string): string {
  return `/workspace/vaults/${encodeURIComponent(mappingId)}/trash`;
}

/** The prefix of every note address of a vault, for reading the path back out of a request path. */
export function notePrefix(mappingId: string): string {
  return `/workspace/vaults/${encodeURIComponent(mappingId)}/notes/`;
}

/** A vault's proposals: what agents proposed, for people to approve or reject. */
export function proposalsUrl(mappingId: string): string {
  return `/workspace/vaults/${encodeURIComponent(mappingId)}/proposals`;
}

/** One proposal: the `reviewUrl` the propose tools answer (proposal-operations.ts builds the same path). */
export function proposalUrl(mappingId: string, proposalId: string): string {
  return `${proposalsUrl(mappingId)}/${encodeURIComponent(proposalId)}`;
}
