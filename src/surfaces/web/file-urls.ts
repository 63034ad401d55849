/**
 * The workspace addresses of a vault's canvases and attachments (docs/workspace.md). A file's address mirrors its
 * vault path segment by segment, as a note's does.
 */

function base(mappingId: string): string {
  return `/workspace/vaults/${encodeURIComponent(mappingId)}`;
}

function pathSegments(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The list of a vault's canvases and attachments, optionally of one kind and after a path (the next page). */
export function filesUrl(mappingId: string, options: { kind?: 'canvas' | 'attachment'; after?: string } = {}): string {
  const query = new URLSearchParams();
  if (options.kind) query.set('kind', options.kind);
  if (options.after) query.set('after', options.after);
  const search = query.toString();
  return `${base(mappingId)}/files${search === '' ? '' : `?${search}`}`;
}

/** The page of one file: what it is, a preview where one is safe, a canvas's outline. */
export function filePageUrl(mappingId: string, path: string): string {
  return `${base(mappingId)}/file/${pathSegments(path)}`;
}

/** The bytes of one file, served to the signed-in person (see file-serving.ts for what is shown inline). */
export function fileRawUrl(mappingId: string, path: string, options: { download?: boolean } = {}): string {
  return `${base(mappingId)}/raw/${pathSegments(path)}${options.download ? '?download=1' : ''}`;
}

/** The prefix of a vault's file pages (`file`) or raw bytes (`raw`), for reading the path back out of a request path. */
export function filePrefix(mappingId: string, route: 'file' | 'raw'): string {
  return `${base(mappingId)}/${route}/`;
}
