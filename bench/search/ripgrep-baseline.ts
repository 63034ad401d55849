/**
 * Baseline 2: ripgrep over the vault folder, what a gateway that scans every file per search does. Each search is
 * one `rg --files-with-matches --fixed-strings --ignore-case NEEDLE DIR` child process, timed from spawn to exit
 * (its output read in full); the phrase is searched as one fixed string.
 */
import { spawn } from 'node:child_process';
import { sep } from 'node:path';
import type { SearchSubject } from './latency.ts';

/** Why the benchmark cannot run without ripgrep, and how to fix it. */
export const RIPGREP_MISSING = 'ripgrep (`rg`) is not installed; install it with `apt-get install ripgrep` (Debian/Ubuntu) and run again';

/** Runs `rg` with arguments; resolves with its exit code and standard output (exit code -1 when it cannot start). */
function runRg(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('rg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => resolve({ code: -1, stdout: '', stderr: error.message }));
    child.on('close', (code) =>
      resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

/** The first line of `rg --version` (e.g. "ripgrep 13.0.0"), or undefined when ripgrep is not installed. */
export async function ripgrepVersion(): Promise<string | undefined> {
  const { code, stdout } = await runRg(['--version']);
  return code === 0 ? stdout.split('\n')[0]?.trim() : undefined;
}

/** ripgrep over `dir` as a search subject: every file that contains the needle, as vault-relative paths. */
export function ripgrepSubject(dir: string): SearchSubject {
  const prefix = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  return {
    name: 'ripgrep',
    kind: 'all',
    async search(query) {
      const { code, stdout, stderr } = await runRg(['--files-with-matches', '--fixed-strings', '--ignore-case', query.needle, dir]);
      // Exit code 1 means "no match", which the answer check reports.
      if (code !== 0 && code !== 1) throw new Error(`rg exited with ${code}: ${stderr.trim()}`);
      const paths = stdout.split('\n').filter((line) => line !== '');
      return { paths: paths.map((path) => (path.startsWith(prefix) ? path.slice(prefix.length) : path).split(sep).join('/')) };
    },
  };
}
