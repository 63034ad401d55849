/**
 * The GitHub adapter: a mapping is a folder of one branch of one repository. The change cursor is the branch head
 * commit, a file's revision its blob sha and its fileId its path below the repository top; writes and deletes are
 * commits on the branch made through the contents API, conditional on the blob sha. docs/providers/github.md has the
 * API subset and how to register the application.
 */
import { ProviderError, type ProviderAdapter } from '../port.ts';
import { changesSince } from './changes.ts';
import { readFile, statFile, trashFile, writeFile } from './files.ts';
import { fetchGithub } from './http.ts';
import { githubOAuth } from './oauth.ts';
import { checkBranch, githubRoot, normalizeFolder, repoApiPath } from './paths.ts';
import { rateLimitDelay } from './rate-limit.ts';
import { RepositoryAnswer, UserAnswer } from './schemas.ts';
import { branchHead, folderTree, listPage } from './tree.ts';

/** The GitHub REST adapter (api.github.com and github.com/login/oauth, or what the settings point at). */
export const githubAdapter: ProviderAdapter = {
  kind: 'github',
  ...githubOAuth,

  async identity(call) {
    const user = await fetchGithub(call, { method: 'GET', path: '/user' }, UserAnswer, 'The user');
    return { id: String(user.id), name: user.login };
  },

  async resolveRoot(call, root) {
    const given = githubRoot(root);
    const folder = normalizeFolder(given.folder);
    const repository = await fetchGithub(call, { method: 'GET', path: repoApiPath(given) }, RepositoryAnswer, `Repository ${given.owner}/${given.repo}`);
    // GitHub's spelling of the names, and its default branch when none was chosen.
    const branch = given.branch.trim() === '' ? repository.default_branch : given.branch.trim();
    checkBranch(branch);
    const resolved = { kind: 'github' as const, owner: repository.owner.login, repo: repository.name, branch, folder };
    const head = await branchHead(call, resolved);
    if ((await folderTree(call, resolved, head.tree)) === null) {
      throw new ProviderError('not_found', `Folder ${folder} was not found on branch ${branch}.`);
    }
    return resolved;
  },

  async changeCursor(call, root) {
    return (await branchHead(call, githubRoot(root))).commit;
  },

  list: (call, root, page, limits) => listPage(call, githubRoot(root), page, limits),
  changes: (call, root, cursor, limits) => changesSince(call, githubRoot(root), cursor, limits),
  stat: (call, root, path) => statFile(call, githubRoot(root), path),
  read: (call, root, path, maxBytes) => readFile(call, githubRoot(root), path, maxBytes),
  write: (call, root, input) => writeFile(call, githubRoot(root), input),
  trash: (call, root, input) => trashFile(call, githubRoot(root), input),
  transientDelay: (response) => rateLimitDelay(response),
};
