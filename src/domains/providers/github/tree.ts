/**
 * Reading a branch as git trees: the branch head (our change cursor), the tree of the mapped folder, and the full
 * listing of files below it from one recursive tree, paged by offset. The folder's tree sha is fixed in the page
 * token, so every page of one listing reads the same snapshot, whatever is pushed meanwhile.
 */
import { ProviderError, type ListPage, type ProviderCall, type RemoteEntry, type TraversalLimits } from '../port.ts';
import { fetchGithub, githubFailure, readJson, sendGithub } from './http.ts';
import { depthOf, encodePath, normalizeFolder, repoApiPath, type GithubRoot } from './paths.ts';
import { BranchAnswer, TreeAnswer, type TreeEntryAnswer } from './schemas.ts';

/** A branch head: its commit (the change cursor) and that commit's root tree. */
export interface BranchHead {
  commit: string;
  tree: string;
}

/** Regular files only: symlinks (120000) and submodules (160000) are not notes. */
export function isRegularFile(entry: Pick<TreeEntryAnswer, 'type' | 'mode'>): boolean {
  return entry.type === 'blob' && (entry.mode === '100644' || entry.mode === '100755');
}

/** The head of the root's branch. */
export async function branchHead(call: ProviderCall, root: GithubRoot): Promise<BranchHead> {
  const answer = await fetchGithub(call, { method: 'GET', path: `${repoApiPath(root)}/branches/${encodePath(root.branch)}` }, BranchAnswer, `Branch ${root.branch}`);
  return { commit: answer.commit.sha, tree: answer.commit.commit.tree.sha };
}

/** The sha of the mapped folder's tree inside a root tree, one non-recursive tree per folder level; null when absent. */
export async function folderTree(call: ProviderCall, root: GithubRoot, rootTree: string): Promise<string | null> {
  let sha = rootTree;
  const folder = normalizeFolder(root.folder);
  for (const name of folder === '' ? [] : folder.split('/')) {
    const tree = await fetchGithub(call, { method: 'GET', path: `${repoApiPath(root)}/git/trees/${sha}` }, TreeAnswer, `Folder ${folder}`);
    const next = tree.tree.find((entry) => entry.path === name && entry.type === 'tree');
    if (!next) return null;
    sha = next.sha;
  }
  return sha;
}

/**
 * Every entry below a tree (one recursive tree request). GitHub truncates recursive trees past 100,000 entries or
 * 7 MB; kgate does not walk such a folder tree by tree but refuses it as over the entry bound.
 */
export async function recursiveTree(call: ProviderCall, root: GithubRoot, treeSha: string): Promise<TreeEntryAnswer[]> {
  const response = await sendGithub(call, { method: 'GET', path: `${repoApiPath(root)}/git/trees/${treeSha}`, query: { recursive: '1' } });
  if (response.status !== 200) throw githubFailure(response, 'The folder tree');
  const tree = readJson(TreeAnswer, response, 'the folder tree');
  if (tree.truncated) {
    throw new ProviderError('budget_exhausted', 'The mapped folder holds more entries than GitHub lists in one tree; map a smaller folder.', { bound: 'entries' });
  }
  return tree.tree;
}

/** Throws `budget_exhausted` (bound `depth`) for a file deeper than the limits allow. */
export function checkDepth(path: string, limits: TraversalLimits): void {
  if (depthOf(path) > limits.maxDepth) {
    throw new ProviderError('budget_exhausted', `The mapped folder nests deeper than ${limits.maxDepth} folder levels.`, { bound: 'depth' });
  }
}

/** A tree entry (path relative to the folder's tree) as a remote entry. */
export function entryOf(root: GithubRoot, path: string, entry: Pick<TreeEntryAnswer, 'sha' | 'size'>): RemoteEntry {
  const folder = normalizeFolder(root.folder);
  return { path, fileId: folder === '' ? path : `${folder}/${path}`, revision: entry.sha, size: entry.size ?? 0, modifiedAt: null };
}

// Page tokens: the folder tree's sha and the offset of the page's first entry.
const PAGE_TOKEN = /^((?:[0-9a-f]{40}|[0-9a-f]{64})):(\d{1,9})$/;

/** One page of the listing (see ProviderAdapter.list): at most `maxEntries` tree entries, files and folders alike. */
export async function listPage(call: ProviderCall, root: GithubRoot, page: string | null, limits: TraversalLimits): Promise<ListPage> {
  let treeSha: string;
  let offset = 0;
  if (page === null) {
    const head = await branchHead(call, root);
    const folder = await folderTree(call, root, head.tree);
    if (folder === null) throw new ProviderError('not_found', `Folder ${root.folder} was not found on branch ${root.branch}.`);
    treeSha = folder;
  } else {
    const match = PAGE_TOKEN.exec(page);
    if (!match) throw new ProviderError('invalid', 'The listing page token is not one this adapter made.');
    treeSha = match[1] as string;
    offset = Number(match[2]);
  }
  const all = await recursiveTree(call, root, treeSha);
  for (const entry of all) if (isRegularFile(entry)) checkDepth(entry.path, limits);
  const pageSize = Math.max(1, limits.maxEntries);
  const slice = all.slice(offset, offset + pageSize);
  const entries = slice.filter(isRegularFile).map((entry) => entryOf(root, entry.path, entry));
  return { entries, next: offset + pageSize < all.length ? `${treeSha}:${offset + pageSize}` : null };
}

/** The files below the folder at a branch head, by path below the root; null when the folder is gone. */
export async function filesAt(call: ProviderCall, root: GithubRoot, head: BranchHead): Promise<Map<string, TreeEntryAnswer> | null> {
  const folder = await folderTree(call, root, head.tree);
  if (folder === null) return null;
  const files = new Map<string, TreeEntryAnswer>();
  for (const entry of await recursiveTree(call, root, folder)) if (isRegularFile(entry)) files.set(entry.path, entry);
  return files;
}
