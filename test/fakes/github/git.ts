/**
 * A small, real git object model for the GitHub fake: blobs, trees and commits stored under their git SHA-1 (the
 * object header `<type> <length>\0` and the body as git writes it), so that a blob's sha changes exactly when its
 * content does and a tree's sha exactly when anything below it does, as on GitHub.
 */
import { createHash } from 'node:crypto';

/** Git file modes as the GitHub API spells them. */
export const MODE = { file: '100644', executable: '100755', symlink: '120000', tree: '040000', submodule: '160000' } as const;

/** One entry of a tree object. */
export interface TreeEntry {
  name: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
}

/** A commit object. */
export interface Commit {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
  /** Seconds since the epoch. */
  time: number;
}

/** A file of a flattened tree. */
export interface FlatFile {
  path: string;
  mode: string;
  sha: string;
  size: number;
}

function objectSha(type: string, body: Buffer): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

/** The blob sha git computes for these bytes. */
export function blobSha(content: Buffer): string {
  return objectSha('blob', content);
}

// Git orders tree entries by name bytes, a tree's name compared as if it ended in '/'.
function entryKey(entry: TreeEntry): Buffer {
  return Buffer.from(entry.type === 'tree' ? `${entry.name}/` : entry.name, 'utf8');
}

/** Every object of every repository of the fake (git objects are content-addressed, so sharing them is harmless). */
export class ObjectStore {
  readonly blobs = new Map<string, Buffer>();
  readonly trees = new Map<string, TreeEntry[]>();
  readonly commits = new Map<string, Commit>();

  putBlob(content: Buffer): string {
    const sha = blobSha(content);
    this.blobs.set(sha, Buffer.from(content));
    return sha;
  }

  putTree(entries: TreeEntry[]): string {
    const sorted = [...entries].sort((a, b) => Buffer.compare(entryKey(a), entryKey(b)));
    const body = Buffer.concat(
      sorted.flatMap((entry) => [Buffer.from(`${entry.mode.replace(/^0/, '')} ${entry.name}\0`, 'utf8'), Buffer.from(entry.sha, 'hex')]),
    );
    const sha = objectSha('tree', body);
    this.trees.set(sha, sorted);
    return sha;
  }

  putCommit(input: { tree: string; parents: string[]; message: string; time: number }): Commit {
    const who = `Fake Device <device@example.com> ${input.time} +0000`;
    const text = [`tree ${input.tree}`, ...input.parents.map((parent) => `parent ${parent}`), `author ${who}`, `committer ${who}`, '', input.message, ''].join('\n');
    const sha = objectSha('commit', Buffer.from(text, 'utf8'));
    const commit: Commit = { sha, ...input };
    this.commits.set(sha, commit);
    return commit;
  }

  /** Every entry below a tree, depth first in git's order, with paths relative to it (git ls-tree -r -t). */
  walk(treeSha: string, prefix = ''): Array<TreeEntry & { path: string }> {
    const out: Array<TreeEntry & { path: string }> = [];
    for (const entry of this.trees.get(treeSha) ?? []) {
      const path = `${prefix}${entry.name}`;
      out.push({ ...entry, path });
      if (entry.type === 'tree') out.push(...this.walk(entry.sha, `${path}/`));
    }
    return out;
  }

  /** The files (blobs of any mode) below a tree, by path. */
  flatten(treeSha: string): Map<string, FlatFile> {
    const files = new Map<string, FlatFile>();
    for (const entry of this.walk(treeSha)) {
      if (entry.type === 'blob') files.set(entry.path, { path: entry.path, mode: entry.mode, sha: entry.sha, size: this.blobs.get(entry.sha)?.length ?? 0 });
    }
    return files;
  }

  /** The entry at a '/'-separated path below a tree; the tree itself for ''. */
  lookup(treeSha: string, path: string): TreeEntry | null {
    if (path === '') return { name: '', mode: MODE.tree, type: 'tree', sha: treeSha };
    let current: TreeEntry = { name: '', mode: MODE.tree, type: 'tree', sha: treeSha };
    for (const name of path.split('/')) {
      if (current.type !== 'tree') return null;
      const next = (this.trees.get(current.sha) ?? []).find((entry) => entry.name === name);
      if (!next) return null;
      current = next;
    }
    return current;
  }

  /**
   * A new tree: `base` with each path set to a blob (content) or removed (null). Folders on the way are created, and
   * folders left empty disappear, as in git.
   */
  edit(base: string | null, changes: Map<string, { content: Buffer; mode?: string } | null>): string {
    const entries = new Map((base === null ? [] : (this.trees.get(base) ?? [])).map((entry) => [entry.name, entry]));
    const below = new Map<string, Map<string, { content: Buffer; mode?: string } | null>>();
    for (const [path, change] of changes) {
      const slash = path.indexOf('/');
      if (slash === -1) {
        if (change === null) entries.delete(path);
        else entries.set(path, { name: path, mode: change.mode ?? MODE.file, type: 'blob', sha: this.putBlob(change.content) });
        continue;
      }
      const name = path.slice(0, slash);
      const nested = below.get(name) ?? new Map<string, { content: Buffer; mode?: string } | null>();
      nested.set(path.slice(slash + 1), change);
      below.set(name, nested);
    }
    for (const [name, nested] of below) {
      const existing = entries.get(name);
      const sub = this.edit(existing?.type === 'tree' ? existing.sha : null, nested);
      if ((this.trees.get(sub) ?? []).length === 0) entries.delete(name);
      else entries.set(name, { name, mode: MODE.tree, type: 'tree', sha: sub });
    }
    return this.putTree([...entries.values()]);
  }

  /** Whether `ancestor` is `commit` or one of its ancestors. */
  isAncestor(ancestor: string, commit: string): boolean {
    const seen = new Set<string>();
    const stack = [commit];
    while (stack.length > 0) {
      const sha = stack.pop() as string;
      if (sha === ancestor) return true;
      if (seen.has(sha)) continue;
      seen.add(sha);
      stack.push(...(this.commits.get(sha)?.parents ?? []));
    }
    return false;
  }

  /** The commits reachable from `head` and not from `base`, oldest first (git log base..head, reversed). */
  range(base: string, head: string): Commit[] {
    const out: Commit[] = [];
    let sha: string | undefined = head;
    while (sha !== undefined && !this.isAncestor(sha, base)) {
      const commit = this.commits.get(sha);
      if (!commit) break;
      out.push(commit);
      sha = commit.parents[0];
    }
    return out.reverse();
  }

  /** The nearest common ancestor along first parents (the fake's histories are linear), or null. */
  mergeBase(a: string, b: string): string | null {
    let sha: string | undefined = a;
    while (sha !== undefined) {
      if (this.isAncestor(sha, b)) return sha;
      sha = this.commits.get(sha)?.parents[0];
    }
    return null;
  }
}
