/** The parts of GitHub's REST answers the adapter reads (fields it does not read are not checked). */
import { z } from 'zod';

/** A git object id (SHA-1; SHA-256 repositories have 64 digits). */
export const GitSha = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/);

/** `GET /user`. */
export const UserAnswer = z.object({ id: z.number().int(), login: z.string().min(1) });

/** `GET /repos/{owner}/{repo}`. */
export const RepositoryAnswer = z.object({ name: z.string().min(1), owner: z.object({ login: z.string().min(1) }), default_branch: z.string().min(1) });

/** `GET /repos/{owner}/{repo}/branches/{branch}`. */
export const BranchAnswer = z.object({ commit: z.object({ sha: GitSha, commit: z.object({ tree: z.object({ sha: GitSha }) }) }) });

/** One entry of a tree answer (`size` only for blobs). */
export const TreeEntryAnswer = z.object({
  path: z.string().min(1),
  mode: z.string(),
  type: z.string(),
  sha: GitSha,
  size: z.number().int().nonnegative().optional(),
});
export type TreeEntryAnswer = z.infer<typeof TreeEntryAnswer>;

/** `GET /repos/{owner}/{repo}/git/trees/{tree_sha}`. */
export const TreeAnswer = z.object({ sha: GitSha, tree: z.array(TreeEntryAnswer), truncated: z.boolean() });

/** `GET /repos/{owner}/{repo}/contents/{path}` for a file (a folder answers an array). */
export const ContentAnswer = z.object({
  type: z.string(),
  path: z.string(),
  sha: GitSha,
  size: z.number().int().nonnegative(),
  encoding: z.string().optional(),
  content: z.string().optional(),
});

/** `PUT /repos/{owner}/{repo}/contents/{path}`. */
export const WriteAnswer = z.object({ content: z.object({ path: z.string(), sha: GitSha, size: z.number().int().nonnegative() }) });

/** `GET /repos/{owner}/{repo}/compare/{base}...{head}`. */
export const CompareAnswer = z.object({
  status: z.string(),
  files: z.array(z.object({ filename: z.string().min(1), status: z.string(), previous_filename: z.string().optional() })).optional(),
});

/** The token endpoint's JSON answer; errors come with HTTP 200 and `error`. */
export const TokenAnswer = z.object({
  access_token: z.string().min(1).optional(),
  token_type: z.string().optional(),
  scope: z.string().optional(),
  expires_in: z.number().optional(),
  refresh_token: z.string().min(1).optional(),
  refresh_token_expires_in: z.number().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});
