/**
 * The GitHub fake's contents API: `GET` a file or folder at a ref, `PUT` to create or replace a file in a commit
 * (replacing needs the blob `sha` it replaces: a missing one is 422, a wrong one 409) and `DELETE` a file in a commit
 * (with its `sha`), as GitHub answers them.
 */
import { allowed, resolveRef, wrappedBase64 } from './access.ts';
import { MODE, type Commit, type TreeEntry } from './git.ts';
import type { RepoRequest } from './repos.ts';
import { sendError, sendJson } from './state.ts';

function fileJson(request: RepoRequest, path: string, entry: TreeEntry, withContent: boolean): Record<string, unknown> {
  const content = request.state.store.blobs.get(entry.sha) ?? Buffer.alloc(0);
  const base = `${request.origin}/repos/${request.repository.owner}/${request.repository.name}`;
  const type = entry.type === 'tree' ? 'dir' : entry.type === 'commit' ? 'submodule' : entry.mode === MODE.symlink ? 'symlink' : 'file';
  const inline = withContent && type === 'file';
  const small = content.length <= request.state.contentsInlineLimit;
  return {
    type,
    name: path.split('/').pop() ?? path,
    path,
    sha: entry.sha,
    size: entry.type === 'blob' ? content.length : 0,
    url: `${base}/contents/${path}`,
    git_url: `${base}/git/${entry.type === 'tree' ? 'trees' : 'blobs'}/${entry.sha}`,
    ...(type === 'symlink' ? { target: content.toString('utf8') } : {}),
    // Files over the inline limit (1 MB on GitHub) come without their content: encoding "none".
    ...(inline ? { encoding: small ? 'base64' : 'none', content: small ? wrappedBase64(content) : '' } : {}),
  };
}

function commitJson(commit: Commit): Record<string, unknown> {
  return { sha: commit.sha, message: commit.message, tree: { sha: commit.tree }, parents: commit.parents.map((sha) => ({ sha })) };
}

/** `GET /repos/{owner}/{repo}/contents/{path}?ref=`. */
export function getContents(request: RepoRequest, path: string): void {
  const { state, repository, res } = request;
  const ref = request.query.get('ref') ?? repository.defaultBranch;
  const commit = resolveRef(state, repository, ref);
  if (commit === null) {
    sendError(res, 404, `No commit found for the ref ${ref}`);
    return;
  }
  const tree = state.store.commits.get(commit)?.tree ?? '';
  const entry = state.store.lookup(tree, path);
  if (!entry) {
    sendError(res, 404, 'Not Found');
    return;
  }
  if (entry.type === 'tree') {
    const children = state.store.trees.get(entry.sha) ?? [];
    sendJson(res, 200, children.map((child) => fileJson(request, path === '' ? child.name : `${path}/${child.name}`, child, false)));
    return;
  }
  sendJson(res, 200, fileJson(request, path, entry, true));
}

interface WriteBody {
  message?: unknown;
  content?: unknown;
  sha?: unknown;
  branch?: unknown;
}

function parseBody(request: RepoRequest): WriteBody | null {
  try {
    const parsed: unknown = JSON.parse(request.body.toString('utf8') || '{}');
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // answered below
  }
  sendError(request.res, 400, 'Problems parsing JSON');
  return null;
}

/** `PUT` (create or replace) and `DELETE` of `/repos/{owner}/{repo}/contents/{path}`, each one commit on the branch. */
export function writeContents(request: RepoRequest, path: string): void {
  const { state, repository, res } = request;
  if (!allowed(state, request.grant, repository, true, res)) return;
  const body = parseBody(request);
  if (!body) return;
  const deleting = request.method === 'DELETE';
  if (typeof body.message !== 'string' || body.message === '') {
    sendError(res, 422, 'Invalid request.\n\n"message" wasn\'t supplied.');
    return;
  }
  if (!deleting && (typeof body.content !== 'string' || !/^[A-Za-z0-9+/=\s]*$/.test(body.content))) {
    sendError(res, 422, 'content is not valid Base64');
    return;
  }
  if (path === '' || path.split('/').some((name) => name === '' || name === '.' || name === '..' || name === '.git')) {
    sendError(res, 422, 'path contains a malformed path component');
    return;
  }
  const branch = typeof body.branch === 'string' ? body.branch : repository.defaultBranch;
  const head = repository.branches.get(branch);
  if (head === undefined) {
    sendError(res, 404, `Branch ${branch} not found`);
    return;
  }
  if (state.faults.branchRaces > 0) {
    state.faults.branchRaces -= 1;
    const moved = state.commit(repository, branch, new Map([['.device/last-sync', Buffer.from(String(Date.now()))]]), 'Another device syncs');
    sendError(res, 409, `is at ${moved.sha} but expected ${head}`);
    return;
  }
  const tree = state.store.commits.get(head)?.tree ?? '';
  const names = path.split('/');
  for (let i = 1; i < names.length; i += 1) {
    if (state.store.lookup(tree, names.slice(0, i).join('/'))?.type === 'blob') {
      sendError(res, 422, 'Invalid request.\n\nA file exists where a folder is needed.');
      return;
    }
  }
  const existing = state.store.lookup(tree, path);
  if (existing?.type === 'tree') {
    sendError(res, 422, `Invalid request.\n\n${path} is a directory.`);
    return;
  }
  const sha = typeof body.sha === 'string' ? body.sha : null;
  if (deleting && !existing) {
    sendError(res, 404, 'Not Found');
    return;
  }
  if (existing && sha === null) {
    sendError(res, 422, 'Invalid request.\n\n"sha" wasn\'t supplied.');
    return;
  }
  if (sha !== null && sha !== existing?.sha) {
    sendError(res, 409, `${path} does not match ${sha}`);
    return;
  }
  const content = deleting ? null : Buffer.from(String(body.content), 'base64');
  const commit = state.commit(repository, branch, new Map([[path, content]]), body.message);
  if (state.faults.lostAnswers > 0) {
    state.faults.lostAnswers -= 1;
    res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Server Error</h1>');
    return;
  }
  if (content === null) {
    sendJson(res, 200, { content: null, commit: commitJson(commit) });
    return;
  }
  const written = state.store.lookup(commit.tree, path) as TreeEntry;
  sendJson(res, existing ? 200 : 201, { content: fileJson(request, path, written, false), commit: commitJson(commit) });
}
