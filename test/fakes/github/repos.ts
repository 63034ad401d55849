/**
 * The GitHub fake's read routes of a repository: the repository, a branch, trees (recursive, truncated past a
 * limit), blobs and the comparison of two commits (files capped as GitHub caps them, exact renames detected).
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { mayPush, resolveRef, wrappedBase64 } from './access.ts';
import type { Commit } from './git.ts';
import { sendError, sendJson, type FakeState, type Grant, type Repository } from './state.ts';

/** One request below `/repos/{owner}/{repo}`. */
export interface RepoRequest {
  state: FakeState;
  grant: Grant;
  repository: Repository;
  method: string;
  /** Decoded path segments after `/repos/{owner}/{repo}`. */
  segments: string[];
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  res: ServerResponse;
  /** The fake's origin, for the `url` fields. */
  origin: string;
}

function repoUrl(request: RepoRequest): string {
  return `${request.origin}/repos/${request.repository.owner}/${request.repository.name}`;
}

function commitJson(request: RepoRequest, commit: Commit): Record<string, unknown> {
  return {
    sha: commit.sha,
    url: `${repoUrl(request)}/commits/${commit.sha}`,
    commit: {
      message: commit.message,
      tree: { sha: commit.tree, url: `${repoUrl(request)}/git/trees/${commit.tree}` },
      committer: { name: 'Fake Device', email: 'device@example.com', date: new Date(commit.time * 1000).toISOString() },
    },
    parents: commit.parents.map((sha) => ({ sha, url: `${repoUrl(request)}/commits/${sha}` })),
  };
}

/** `GET /repos/{owner}/{repo}`. */
export function getRepository(request: RepoRequest): void {
  const { repository } = request;
  sendJson(request.res, 200, {
    id: repository.id,
    name: repository.name,
    full_name: `${repository.owner}/${repository.name}`,
    owner: { login: repository.owner, type: 'User' },
    private: repository.private,
    default_branch: repository.defaultBranch,
    permissions: { admin: true, push: mayPush(request.state, request.grant, repository), pull: true },
    url: repoUrl(request),
  });
}

/** `GET /repos/{owner}/{repo}/branches/{branch}` (the branch name may hold slashes). */
export function getBranch(request: RepoRequest, branch: string): void {
  const head = request.repository.branches.get(branch);
  const commit = head === undefined ? undefined : request.state.store.commits.get(head);
  if (!commit) {
    sendError(request.res, 404, 'Branch not found');
    return;
  }
  sendJson(request.res, 200, { name: branch, commit: commitJson(request, commit), protected: false });
}

/** `GET /repos/{owner}/{repo}/git/trees/{tree_sha}` (a tree sha, or a commit sha or branch name resolved to its tree). */
export function getTree(request: RepoRequest, ref: string): void {
  const { store } = request.state;
  let treeSha: string | undefined = store.trees.has(ref) ? ref : undefined;
  if (treeSha === undefined) {
    const commit = resolveRef(request.state, request.repository, ref);
    treeSha = commit === null ? undefined : store.commits.get(commit)?.tree;
  }
  if (treeSha === undefined) {
    sendError(request.res, 404, 'Not Found');
    return;
  }
  // Any value of `recursive` turns recursion on, even "0" and "false" (GitHub's documentation says so).
  const recursive = request.query.has('recursive');
  const all = recursive ? store.walk(treeSha) : (store.trees.get(treeSha) ?? []).map((entry) => ({ ...entry, path: entry.name }));
  const truncated = recursive && all.length > request.state.treeEntryLimit;
  const entries = truncated ? all.slice(0, request.state.treeEntryLimit) : all;
  sendJson(request.res, 200, {
    sha: treeSha,
    url: `${repoUrl(request)}/git/trees/${treeSha}`,
    tree: entries.map((entry) => ({
      path: entry.path,
      mode: entry.mode,
      type: entry.type,
      sha: entry.sha,
      ...(entry.type === 'blob' ? { size: store.blobs.get(entry.sha)?.length ?? 0 } : {}),
      url: `${repoUrl(request)}/git/${entry.type === 'tree' ? 'trees' : 'blobs'}/${entry.sha}`,
    })),
    truncated,
  });
}

/** `GET /repos/{owner}/{repo}/git/blobs/{file_sha}`: base64 JSON, or the raw bytes with the raw media type. */
export function getBlob(request: RepoRequest, sha: string): void {
  const content = request.state.store.blobs.get(sha);
  if (!content) {
    sendError(request.res, 404, 'Not Found');
    return;
  }
  if ((request.headers.accept ?? '').includes('application/vnd.github.raw')) {
    request.res.writeHead(200, { 'content-type': 'application/vnd.github.raw', 'content-length': String(content.length) }).end(content);
    return;
  }
  sendJson(request.res, 200, { sha, size: content.length, url: `${repoUrl(request)}/git/blobs/${sha}`, content: wrappedBase64(content), encoding: 'base64' });
}

/** The files that differ between two trees, as the comparison lists them (exact renames detected, sorted by name). */
function diffFiles(request: RepoRequest, baseTree: string, headTree: string): Array<Record<string, unknown>> {
  const { store } = request.state;
  const before = store.flatten(baseTree);
  const after = store.flatten(headTree);
  const removed = [...before.values()].filter((file) => !after.has(file.path));
  const files: Array<Record<string, unknown>> = [];
  const renamedFrom = new Set<string>();
  for (const file of after.values()) {
    const old = before.get(file.path);
    if (old && old.sha === file.sha && old.mode === file.mode) continue;
    if (old) {
      files.push({ filename: file.path, sha: file.sha, status: 'modified' });
      continue;
    }
    const source = removed.find((candidate) => candidate.sha === file.sha && !renamedFrom.has(candidate.path));
    if (source) {
      renamedFrom.add(source.path);
      files.push({ filename: file.path, sha: file.sha, status: 'renamed', previous_filename: source.path });
    } else {
      files.push({ filename: file.path, sha: file.sha, status: 'added' });
    }
  }
  for (const file of removed) if (!renamedFrom.has(file.path)) files.push({ filename: file.path, sha: file.sha, status: 'removed' });
  files.sort((a, b) => String(a.filename).localeCompare(String(b.filename)));
  return files.map((file) => ({
    ...file,
    additions: 0,
    deletions: 0,
    changes: 0,
    contents_url: `${repoUrl(request)}/contents/${String(file.filename)}?ref=${String(file.sha)}`,
  }));
}

/** `GET /repos/{owner}/{repo}/compare/{base}...{head}` (three dots: from the merge base to head). */
export function compare(request: RepoRequest, basehead: string): void {
  const { state, repository, res } = request;
  const [baseRef, headRef, extra] = basehead.split('...');
  const base = baseRef === undefined ? null : resolveRef(state, repository, baseRef);
  const head = headRef === undefined ? null : resolveRef(state, repository, headRef);
  if (extra !== undefined || base === null || head === null) {
    sendError(res, 404, 'Not Found');
    return;
  }
  const mergeBase = state.store.mergeBase(base, head);
  if (mergeBase === null) {
    sendError(res, 404, `No common ancestor between ${baseRef ?? ''} and ${headRef ?? ''}.`);
    return;
  }
  const ahead = state.store.range(mergeBase, head);
  const behind = state.store.range(mergeBase, base);
  const status = base === head ? 'identical' : mergeBase === base ? 'ahead' : mergeBase === head ? 'behind' : 'diverged';
  const paged = request.query.has('per_page') || request.query.has('page');
  const perPage = Math.min(Number(request.query.get('per_page') ?? 250) || 250, 250);
  const page = Math.max(Number(request.query.get('page') ?? 1) || 1, 1);
  const commits = paged ? ahead.slice((page - 1) * perPage, page * perPage) : ahead.slice(-250);
  const baseTree = state.store.commits.get(mergeBase)?.tree ?? '';
  const headTree = state.store.commits.get(head)?.tree ?? '';
  const commitOf = (sha: string): Commit => state.store.commits.get(sha) as Commit;
  sendJson(res, 200, {
    url: `${repoUrl(request)}/compare/${basehead}`,
    base_commit: commitJson(request, commitOf(base)),
    merge_base_commit: commitJson(request, commitOf(mergeBase)),
    status,
    ahead_by: ahead.length,
    behind_by: behind.length,
    total_commits: ahead.length,
    commits: commits.map((commit) => commitJson(request, commit)),
    // With paging, only the first page carries the files; GitHub lists at most 300 of them.
    ...(page === 1 ? { files: diffFiles(request, baseTree, headTree).slice(0, state.compareFileLimit) } : {}),
  });
}
