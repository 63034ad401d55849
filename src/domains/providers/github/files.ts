/**
 * One file at a time through GitHub's contents API: stat and read at the branch head, conditional writes and deletes
 * as commits on the branch. The blob `sha` is the concurrency token: GitHub refuses a replace or delete whose `sha` is
 * not the file's current one (409), and a create over an existing file without one (422).
 */
import { createHash } from 'node:crypto';
import { ProviderError, type ExpectedFile, type ProviderCall, type ProviderResponse, type RemoteEntry } from '../port.ts';
import { githubFailure, githubMessage, readJson, sendGithub } from './http.ts';
import { encodePath, repoApiPath, repoPath, type GithubRoot } from './paths.ts';
import { ContentAnswer, WriteAnswer } from './schemas.ts';

/** The blob sha git computes for these bytes: what GitHub reports as the file's `sha` once they are written. */
export function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function contentsPath(root: GithubRoot, path: string): string {
  return `${repoApiPath(root)}/contents/${encodePath(repoPath(root, path))}`;
}

function entryFrom(path: string, fileId: string, answer: { sha: string; size: number }): RemoteEntry {
  return { path, fileId, revision: answer.sha, size: answer.size, modifiedAt: null };
}

// The contents API answers base64 in lines of 60 characters: about 4/3 of the file and a newline per 45 bytes.
function encodedBound(maxBytes: number): number {
  return Math.ceil(maxBytes / 3) * 4 + Math.ceil(maxBytes / 45) + 64 * 1024;
}

async function getContents(call: ProviderCall, root: GithubRoot, path: string, maxBytes?: number): Promise<ProviderResponse | null> {
  const response = await sendGithub(call, {
    method: 'GET',
    path: contentsPath(root, path),
    query: { ref: root.branch },
    ...(maxBytes === undefined ? {} : { maxBytes: encodedBound(maxBytes) }),
  });
  if (response.status === 404) {
    // A missing ref is the branch gone, not the file.
    if (/^No commit found for the ref/i.test(githubMessage(response))) throw githubFailure(response, `Branch ${root.branch}`);
    return null;
  }
  if (response.status !== 200) throw githubFailure(response, `File ${path}`);
  return response;
}

function fileAnswer(response: ProviderResponse, path: string): ReturnType<typeof ContentAnswer.parse> | null {
  // A folder answers an array of its entries; a symlink or submodule is not a file.
  if (response.body.subarray(0, 64).toString('utf8').trimStart().startsWith('[')) return null;
  const answer = readJson(ContentAnswer, response, `file ${path}`);
  return answer.type === 'file' ? answer : null;
}

/** Live metadata of one path at the branch head; null when no file is there. */
export async function statFile(call: ProviderCall, root: GithubRoot, path: string): Promise<RemoteEntry | null> {
  const response = await getContents(call, root, path);
  const answer = response === null ? null : fileAnswer(response, path);
  return answer === null ? null : entryFrom(path, repoPath(root, path), answer);
}

/** One file and its metadata from the same answer; files over 1 MB come from the blob, raw. */
export async function readFile(call: ProviderCall, root: GithubRoot, path: string, maxBytes: number): Promise<{ entry: RemoteEntry; content: Buffer }> {
  const response = await getContents(call, root, path, maxBytes);
  const answer = response === null ? null : fileAnswer(response, path);
  if (answer === null) throw new ProviderError('not_found', `File ${path} was not found at GitHub.`);
  if (answer.size > maxBytes) throw new ProviderError('too_large', `File ${path} is larger than ${maxBytes} bytes.`, { bound: 'bytes' });
  let content: Buffer;
  if (answer.encoding === 'base64' && answer.content !== undefined) {
    content = Buffer.from(answer.content, 'base64');
  } else {
    const blob = await sendGithub(call, { method: 'GET', path: `${repoApiPath(root)}/git/blobs/${answer.sha}`, accept: 'application/vnd.github.raw+json', maxBytes });
    if (blob.status !== 200) throw githubFailure(blob, `File ${path}`);
    content = blob.body;
  }
  if (gitBlobSha(content) !== answer.sha) throw new ProviderError('protocol', `GitHub answered content for ${path} that does not match its sha.`);
  return { entry: entryFrom(path, repoPath(root, path), answer), content };
}

// 409: the sha does not match the file (or the branch moved under the commit); 422 "sha wasn't supplied": a file is
// already there. Both are concurrency refusals; any other 422 is a malformed request.
function isConcurrencyRefusal(response: ProviderResponse): boolean {
  return response.status === 409 || (response.status === 422 && /\bsha\b/i.test(githubMessage(response)));
}

/**
 * Writes one file conditionally (see ProviderAdapter.write). On a refusal the file is looked at again: if it already
 * holds exactly these bytes (an earlier attempt of ours landed, or the same text was written elsewhere) nothing was
 * lost and the write stands; if it is still as expected, only the branch moved under the commit, and the write is
 * sent once more; otherwise it is a conflict and nothing was written.
 */
export async function writeFile(
  call: ProviderCall,
  root: GithubRoot,
  input: { path: string; content: Buffer; expected: ExpectedFile; message: string },
): Promise<RemoteEntry> {
  const fileId = repoPath(root, input.path);
  if (input.expected !== null && input.expected.fileId !== fileId) {
    throw new ProviderError('conflict', `The expected file is not the one at ${input.path}; nothing was written.`);
  }
  const body = {
    message: input.message,
    content: input.content.toString('base64'),
    branch: root.branch,
    ...(input.expected === null ? {} : { sha: input.expected.revision }),
  };
  for (let attempt = 0; ; attempt += 1) {
    const response = await sendGithub(call, { method: 'PUT', path: contentsPath(root, input.path), json: body });
    if (response.status === 200 || response.status === 201) {
      return entryFrom(input.path, fileId, readJson(WriteAnswer, response, `the write of ${input.path}`).content);
    }
    if (!isConcurrencyRefusal(response)) throw githubFailure(response, `File ${input.path}`);
    const current = await statFile(call, root, input.path);
    if (current !== null && current.revision === gitBlobSha(input.content)) return current;
    const unchanged = input.expected === null ? current === null : current?.revision === input.expected.revision;
    if (!unchanged || attempt > 0) {
      throw new ProviderError('conflict', `File ${input.path} changed at GitHub since it was read; nothing was written.`, { status: response.status });
    }
  }
}

/** Deletes one file in a commit on the branch, only while its blob sha is still the expected one. */
export async function trashFile(call: ProviderCall, root: GithubRoot, input: { path: string; expected: { fileId: string; revision: string }; message: string }): Promise<void> {
  const fileId = repoPath(root, input.path);
  if (input.expected.fileId !== fileId) throw new ProviderError('conflict', `The expected file is not the one at ${input.path}; nothing was deleted.`);
  for (let attempt = 0; ; attempt += 1) {
    const response = await sendGithub(call, {
      method: 'DELETE',
      path: contentsPath(root, input.path),
      json: { message: input.message, sha: input.expected.revision, branch: root.branch },
    });
    if (response.status === 200) return;
    if (response.status !== 409) throw githubFailure(response, `File ${input.path}`);
    const current = await statFile(call, root, input.path);
    if (current?.revision !== input.expected.revision || attempt > 0) {
      throw new ProviderError('conflict', `File ${input.path} changed at GitHub since it was read; nothing was deleted.`, { status: 409 });
    }
  }
}
