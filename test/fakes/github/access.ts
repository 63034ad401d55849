/**
 * Who may do what in the GitHub fake, as GitHub decides it: an OAuth App token needs `repo` for a private repository
 * (without it the repository is hidden: 404) and `repo` or `public_repo` to write; a GitHub App's user token may
 * do what the app's contents permission allows (a write without it is 403 "Resource not accessible by integration").
 */
import type { ServerResponse } from 'node:http';
import { sendError, type FakeState, type Grant, type Repository } from './state.ts';

/** Whether the request may read (or write) the repository; answers the refusal itself and returns false otherwise. */
export function allowed(state: FakeState, grant: Grant, repository: Repository, write: boolean, res: ServerResponse): boolean {
  if (state.flavor === 'github-app') {
    if (write && state.appContents !== 'write') {
      sendError(res, 403, 'Resource not accessible by integration');
      return false;
    }
    return true;
  }
  const full = grant.scopes.includes('repo');
  const visible = full || !repository.private;
  const writable = full || (!repository.private && grant.scopes.includes('public_repo'));
  if (!visible || (write && !writable)) {
    sendError(res, 404, 'Not Found');
    return false;
  }
  return true;
}

/** Whether the grant may write (the `permissions.push` of a repository answer). */
export function mayPush(state: FakeState, grant: Grant, repository: Repository): boolean {
  if (state.flavor === 'github-app') return state.appContents === 'write';
  return grant.scopes.includes('repo') || (!repository.private && grant.scopes.includes('public_repo'));
}

/** A commit sha or branch name of the repository, as a commit sha; null when it names nothing. */
export function resolveRef(state: FakeState, repository: Repository, ref: string): string | null {
  const branch = repository.branches.get(ref);
  if (branch !== undefined) return branch;
  return /^[0-9a-f]{40}$/.test(ref) && state.store.commits.has(ref) ? ref : null;
}

/** Base64 as GitHub sends file contents: lines of 60 characters, each ended by a newline. */
export function wrappedBase64(content: Buffer): string {
  const text = content.toString('base64');
  let out = '';
  for (let i = 0; i < text.length; i += 60) out += `${text.slice(i, i + 60)}\n`;
  return out;
}
