/**
 * Changes since a cursor (a commit sha of the mapped branch): GitHub's comparison `{cursor}...{head}` names the files
 * that changed, the folder's tree at head gives their blob shas and sizes. The adapter answers `relist` when the
 * comparison cannot be trusted to be complete: the cursor's commit is unknown (404), the branch was rewritten
 * (status behind or diverged: a three-dot comparison would start at the merge base), GitHub's 300-file cap may have
 * cut the list, or more entries changed than one page may hold.
 */
import type { ChangePage, ProviderCall, RemoteEntry, TraversalLimits } from '../port.ts';
import { githubFailure, readJson, sendGithub } from './http.ts';
import { belowRoot, repoApiPath, type GithubRoot } from './paths.ts';
import { CompareAnswer, GitSha } from './schemas.ts';
import { branchHead, checkDepth, entryOf, filesAt } from './tree.ts';

/** GitHub lists at most this many files in a comparison. */
export const COMPARE_FILE_CAP = 300;

/** One page of changes after `cursor` (see ProviderAdapter.changes). Always a single page: `more` is false. */
export async function changesSince(call: ProviderCall, root: GithubRoot, cursor: string, limits: TraversalLimits): Promise<ChangePage> {
  const head = await branchHead(call, root);
  if (!GitSha.safeParse(cursor).success) return { relist: true, cursor: head.commit };
  if (cursor === head.commit) return { relist: false, changed: [], removed: [], cursor, more: false };
  const response = await sendGithub(call, { method: 'GET', path: `${repoApiPath(root)}/compare/${cursor}...${head.commit}`, query: { per_page: '1' } });
  if (response.status === 404) return { relist: true, cursor: head.commit };
  if (response.status !== 200) throw githubFailure(response, 'The comparison of commits');
  const comparison = readJson(CompareAnswer, response, 'the comparison of commits');
  const files = comparison.files ?? [];
  if (comparison.status !== 'ahead' || files.length >= COMPARE_FILE_CAP) return { relist: true, cursor: head.commit };

  const touched = new Set<string>();
  const removed = new Set<string>();
  for (const file of files) {
    const path = belowRoot(root, file.filename);
    const previous = file.previous_filename === undefined ? null : belowRoot(root, file.previous_filename);
    if (file.status === 'removed') {
      if (path !== null) removed.add(path);
    } else if (file.status !== 'unchanged') {
      // added, modified, changed (mode), copied and renamed: the new path holds a file now, the old one no longer.
      if (path !== null) touched.add(path);
      if (file.status === 'renamed' && previous !== null) removed.add(previous);
    }
  }
  if (touched.size + removed.size > limits.maxEntries) return { relist: true, cursor: head.commit };

  const changed: RemoteEntry[] = [];
  if (touched.size > 0) {
    const present = await filesAt(call, root, head);
    if (present === null) return { relist: true, cursor: head.commit };
    for (const path of touched) {
      const entry = present.get(path);
      // A path that is now a symlink or submodule, or no longer there, is gone as a file.
      if (!entry) {
        removed.add(path);
        continue;
      }
      checkDepth(path, limits);
      changed.push(entryOf(root, path, entry));
      removed.delete(path);
    }
  }
  return { relist: false, changed, removed: [...removed], cursor: head.commit, more: false };
}
