/**
 * Dropbox paths and kgate's paths below a mapping's root. Dropbox paths start with '/', the root the app sees is ''
 * (never '/'), and comparisons are case-insensitive (`path_lower`); kgate's paths are relative to the mapped folder,
 * in the case Dropbox displays (`path_display`).
 */
import { hasControlCharacters } from '../../../kernel/control-characters.ts';
import { ProviderError, type RemoteRoot } from '../port.ts';

/** A folder path as the owner typed it, in Dropbox's form: '' for the root, else '/A/B' without a trailing '/'. */
export function normalizeRootPath(typed: string): string {
  const trimmed = typed.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  const parts = path.split('/').slice(1);
  if (hasControlCharacters(path) || parts.some((part) => part === '' || part === '.' || part === '..')) {
    throw new ProviderError('invalid', 'A Dropbox folder path names folders separated by "/", without empty, "." or ".." parts.');
  }
  return path;
}

/** The Dropbox path of a mapping's root. */
export function rootPath(root: RemoteRoot): string {
  if (root.kind !== 'dropbox') throw new ProviderError('invalid', `A ${root.kind} root was handed to the Dropbox adapter.`);
  return normalizeRootPath(root.path);
}

/** The Dropbox path of a file below the root; the relative path must be plain ('a/b.md'). */
export function remotePath(root: RemoteRoot, relative: string): string {
  const parts = relative.split('/');
  if (relative === '' || hasControlCharacters(relative) || parts.some((part) => part === '' || part === '.' || part === '..')) {
    throw new ProviderError('invalid', 'A path below the mapped folder names files and folders separated by "/", without empty, "." or ".." parts.');
  }
  return `${rootPath(root)}/${relative}`;
}

/** Folder levels below the root: a file of the root itself is at depth 0, one in 'a/' at 1. */
export function depthOf(relative: string): number {
  return relative.split('/').length - 1;
}

/**
 * The path below the root of an entry Dropbox returned, in display case; null for the root folder itself (a
 * recursive list_folder includes the listed folder). Components are counted rather than characters compared, since
 * lower-casing may change a string's length.
 */
export function relativeTo(root: RemoteRoot, entry: { path_lower?: string | null | undefined; path_display?: string | null | undefined }): string | null {
  const base = rootPath(root);
  const lower = entry.path_lower ?? entry.path_display?.toLowerCase();
  if (!lower) throw new ProviderError('protocol', 'Dropbox returned an entry without a path.');
  const baseLower = base.toLowerCase();
  if (lower === baseLower) return null;
  if (baseLower !== '' && !lower.startsWith(`${baseLower}/`)) throw new ProviderError('protocol', 'Dropbox returned an entry outside the mapped folder.');
  const skip = base === '' ? 1 : base.split('/').length;
  const display = entry.path_display?.split('/');
  const parts = display && display.length === lower.split('/').length ? display : lower.split('/');
  return parts.slice(skip).join('/');
}
