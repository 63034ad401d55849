/**
 * A GitHub mapping's root and the paths below it: the folder inside the repository, paths below the folder (what
 * the port speaks) and paths below the repository top (what GitHub speaks, and our fileId).
 */
import { hasControlCharacters } from '../../../kernel/control-characters.ts';
import { ProviderError, type RemoteRoot } from '../port.ts';

/** The GitHub form of a remote root. */
export type GithubRoot = Extract<RemoteRoot, { kind: 'github' }>;

// GitHub's own rules: owners are letters, digits and single hyphens (at most 39); repositories letters, digits, '.', '-', '_'.
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPOSITORY = /^[A-Za-z0-9._-]{1,100}$/;

/** The root as a GitHub root; `invalid` for another kind. */
export function githubRoot(root: RemoteRoot): GithubRoot {
  if (root.kind !== 'github') throw new ProviderError('invalid', `A ${root.kind} root was handed to the GitHub adapter.`);
  return root;
}

/** Checks a '/'-separated relative path: no empty, '.', '..' or '.git' segment, no control character. */
function checkedSegments(path: string, what: string): string[] {
  if (path === '') return [];
  const segments = path.split('/');
  if (hasControlCharacters(path) || segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.toLowerCase() === '.git')) {
    throw new ProviderError('invalid', `The ${what} is not a plain relative path.`);
  }
  return segments;
}

/** The folder of a root without leading or trailing slashes; `invalid` when it is not a plain relative path. */
export function normalizeFolder(folder: string): string {
  return checkedSegments(folder.replace(/^\/+|\/+$/g, ''), 'folder').join('/');
}

/** Checks the owner and repository names (they become URL segments). */
export function checkRepository(root: GithubRoot): void {
  if (!OWNER.test(root.owner) || !REPOSITORY.test(root.repo) || root.repo === '.' || root.repo === '..') {
    throw new ProviderError('invalid', 'The repository owner or name is not one GitHub allows.');
  }
}

/** Checks a branch name as git does in the large (no '..', no control characters, no empty segment). */
export function checkBranch(branch: string): void {
  if (branch === '' || hasControlCharacters(branch) || branch.includes('..') || branch.split('/').some((part) => part === '') || /[~^:?*[\\\s]/.test(branch)) {
    throw new ProviderError('invalid', 'The branch name is not one git allows.');
  }
}

/** `/repos/{owner}/{repo}` for a root. */
export function repoApiPath(root: GithubRoot): string {
  checkRepository(root);
  return `/repos/${encodeURIComponent(root.owner)}/${encodeURIComponent(root.repo)}`;
}

/** A path for a URL: each segment encoded, the slashes kept. */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The path below the repository top of a path below the root. */
export function repoPath(root: GithubRoot, path: string): string {
  const segments = checkedSegments(path, 'path');
  if (segments.length === 0) throw new ProviderError('invalid', 'A file path is needed.');
  const folder = normalizeFolder(root.folder);
  return folder === '' ? segments.join('/') : `${folder}/${segments.join('/')}`;
}

/** The path below the root of a path below the repository top; null when it lies outside the folder. */
export function belowRoot(root: GithubRoot, path: string): string | null {
  const folder = normalizeFolder(root.folder);
  if (folder === '') return path;
  return path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : null;
}

/** Folder depth of a path below the root: 0 for the root's own files. */
export function depthOf(path: string): number {
  return path.split('/').length - 1;
}
