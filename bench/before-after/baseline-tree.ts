/**
 * The two source trees of the before-and-after benchmark. "New" is this working tree as it is (uncommitted changes
 * included). "Old" is the baseline commit, checked out with `git worktree add --detach` into a temporary folder
 * outside the repository (never committed), with its dependencies installed, and removed afterwards with
 * `git worktree remove --force` and `git worktree prune`: after a failure too, and on Ctrl-C.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cleanupOnInterrupt } from '../support/interrupt.ts';
import { chooseBaseline, type BaselineChoice } from './compare.ts';

/** This repository's working tree: the "new" side. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const execFileAsync = promisify(execFile);

async function git(args: string[], cwd = REPO_ROOT): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, maxBuffer: 16 * 2 ** 20 });
  return stdout.trim();
}

/** A commit as the report names it. */
export interface Commit {
  hash: string;
  /** Abbreviated hash, e.g. "8f0cc78". */
  short: string;
  subject: string;
}

async function describeCommit(ref: string): Promise<Commit> {
  let line: string;
  try {
    line = await git(['log', '-1', '--format=%H%x00%h%x00%s', `${ref}^{commit}`, '--']);
  } catch (error) {
    throw new Error(`the baseline ${JSON.stringify(ref)} is not a commit of this repository: ${error instanceof Error ? error.message : String(error)}`);
  }
  const [hash = '', short = '', subject = ''] = line.split('\0');
  return { hash, short, subject };
}

/** The baseline commit: `--baseline REF` when given, else the default of {@link chooseBaseline}. */
export async function resolveBaseline(explicit: string | undefined): Promise<BaselineChoice & { commit: Commit }> {
  const head = await git(['rev-parse', 'HEAD']);
  const mergeBase = await git(['merge-base', 'main', 'HEAD']).catch(() => undefined);
  const choice = chooseBaseline(explicit, { head, mergeBase });
  return { ...choice, commit: await describeCommit(choice.ref) };
}

/** The "new" side: HEAD's commit, and whether the working tree differs from it (modified or untracked files). */
export async function describeWorkingTree(): Promise<{ commit: Commit; dirty: boolean }> {
  const commit = await describeCommit('HEAD');
  const status = await git(['status', '--porcelain']);
  return { commit, dirty: status !== '' };
}

/** The baseline commit checked out, with dependencies, until {@link BaselineTree.remove}. */
export interface BaselineTree {
  path: string;
  commit: Commit;
  /** How its dependencies were installed, for the report. */
  install: string;
  /** Removes the worktree (files and git's record of it); safe to call more than once. */
  remove(): Promise<void>;
}

/**
 * Its dependencies: when its package-lock.json equals this tree's, a hard-linked copy of this tree's node_modules
 * (under a second; the packages are the same files); otherwise `npm ci --prefer-offline` (about 80 s here, from the
 * npm cache), its output in `logFile`.
 */
async function installDependencies(tree: string, logFile: string): Promise<string> {
  const theirs = await readFile(join(tree, 'package-lock.json'), 'utf8').catch(() => undefined);
  const ours = await readFile(join(REPO_ROOT, 'package-lock.json'), 'utf8');
  if (theirs === ours && existsSync(join(REPO_ROOT, 'node_modules'))) {
    await execFileAsync('cp', ['-al', join(REPO_ROOT, 'node_modules'), join(tree, 'node_modules')]);
    return "a hard-linked copy of the working tree's `node_modules` (the two `package-lock.json` are identical)";
  }
  const started = performance.now();
  const log = await open(logFile, 'w');
  let code: number | null;
  try {
    const child = spawn('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: tree, stdio: ['ignore', log.fd, log.fd] });
    [code] = (await once(child, 'close')) as [number | null];
  } finally {
    await log.close();
  }
  if (code !== 0) throw new Error(`npm ci in the baseline tree exited with ${code}:\n${(await readFile(logFile, 'utf8')).slice(-2000)}`);
  const seconds = Math.round((performance.now() - started) / 1000);
  return `\`npm ci --prefer-offline --no-audit --no-fund\` (its \`package-lock.json\` differs from the working tree's), ${seconds} s`;
}

/**
 * Checks `commit` out into `parent`/old-tree with `git worktree add --detach` and installs its dependencies. On
 * failure the worktree is removed before the error is passed on.
 */
export async function materializeBaseline(commit: Commit, parent: string): Promise<BaselineTree> {
  const path = join(parent, 'old-tree');
  await git(['worktree', 'add', '--detach', path, commit.hash]);
  const remove = cleanupOnInterrupt(async () => {
    try {
      await git(['worktree', 'remove', '--force', path]);
    } finally {
      await rm(path, { recursive: true, force: true });
      await git(['worktree', 'prune']);
    }
  });
  try {
    const install = await installDependencies(path, join(parent, 'old-npm-ci.log'));
    return { path, commit, install, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
