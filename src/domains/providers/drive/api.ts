/**
 * Speaking Drive v3 through a ProviderCall: URLs, the file fields kgate reads, response parsing, and the translation
 * of Google's error envelope (`{"error":{"code","message","errors":[{"reason"}]}}`) into ProviderError codes.
 * Reference: developers.google.com/workspace/drive/api/guides/handle-errors.
 */
import { z } from 'zod';
import { retryAfterMs } from '../call.ts';
import { ProviderError, type ProviderCall, type ProviderRequest, type ProviderResponse, type RemoteEntry } from '../port.ts';

/** Drive's MIME type of folders. */
export const FOLDER_MIME = 'application/vnd.google-apps.folder';
/** Google's own document types (Docs, Sheets, shortcuts, ...) have no bytes to download. */
const GOOGLE_APPS_PREFIX = 'application/vnd.google-apps.';

/** The fields of a file kgate asks for: `version` is the concurrency token, `parents` places it. */
export const FILE_FIELDS = 'id,name,mimeType,parents,trashed,version,size,modifiedTime';

/** A file or folder as Drive answers it with FILE_FIELDS (int64 fields come as strings). */
export const DriveFileSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  mimeType: z.string(),
  parents: z.array(z.string()).optional(),
  trashed: z.boolean().optional(),
  version: z.string().regex(/^\d+$/).optional(),
  size: z.string().regex(/^\d+$/).optional(),
  modifiedTime: z.string().optional(),
});
export type DriveFile = z.infer<typeof DriveFileSchema>;

/** files.list answers. */
export const FileListSchema = z.object({ nextPageToken: z.string().optional(), files: z.array(DriveFileSchema).default([]) });

export function isFolder(file: Pick<DriveFile, 'mimeType'>): boolean {
  return file.mimeType === FOLDER_MIME;
}

/** A file with bytes kgate can read and write (not a folder, not a Google Docs document or shortcut). */
export function isContentFile(file: Pick<DriveFile, 'mimeType'>): boolean {
  return !file.mimeType.startsWith(GOOGLE_APPS_PREFIX);
}

/** A Drive URL below the API origin (`/drive/v3/...` or `/upload/drive/v3/...`). */
export function driveUrl(call: ProviderCall, path: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams(params).toString();
  return `${call.urls.api.replace(/\/+$/, '')}${path}${query ? `?${query}` : ''}`;
}

/** A string literal of Drive's query language: backslash and single quote escaped. */
export function queryString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Sends a request and parses a successful JSON answer with `schema`; any other answer is thrown as ProviderError. */
export async function driveJson<T>(call: ProviderCall, request: ProviderRequest, schema: z.ZodType<T>, what: string): Promise<T> {
  const response = await call.send({ ...request, headers: { accept: 'application/json', ...request.headers } });
  if (response.status < 200 || response.status > 299) throw driveFailure(response, what);
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new ProviderError('protocol', `Drive answered ${what} with a body that is not JSON.`, { status: response.status });
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ProviderError('protocol', `Drive answered ${what} in an unexpected shape.`, { status: response.status });
  return parsed.data;
}

const ErrorEnvelope = z.object({
  error: z.object({ errors: z.array(z.object({ reason: z.string().optional() })).optional() }),
});

/** The first `reason` of Google's error envelope, when the body is one. */
export function errorReason(response: ProviderResponse): string | null {
  try {
    const parsed = ErrorEnvelope.safeParse(JSON.parse(response.body.toString('utf8')));
    return parsed.success ? (parsed.data.error.errors?.[0]?.reason ?? null) : null;
  } catch {
    return null;
  }
}

/** Drive's answers that mean "slow down" (403 with these reasons, besides 429): handle-errors guide. */
const RATE_REASONS = new Set(['userRateLimitExceeded', 'rateLimitExceeded', 'sharingRateLimitExceeded']);
// Drive's 403 rate limits usually come without Retry-After; the guide asks for backoff. The call hands adapter
// delays back as they are, so the wait has its own jitter here.
const RATE_LIMIT_WAIT_MS = 1000;

/** The wait for Drive's 403 rate limits (Retry-After when sent, else about a second with jitter); null otherwise. */
export function rateLimitDelay(response: ProviderResponse): number | null {
  if (response.status !== 403) return null;
  const reason = errorReason(response);
  if (reason === null || !RATE_REASONS.has(reason)) return null;
  return retryAfterMs(response.headers['retry-after'], Date.now()) ?? RATE_LIMIT_WAIT_MS + Math.floor(Math.random() * RATE_LIMIT_WAIT_MS);
}

/** Translates a Drive error answer into a ProviderError (the message names Drive's reason, never a body or a token). */
export function driveFailure(response: ProviderResponse, what: string): ProviderError {
  const { status } = response;
  const reason = errorReason(response);
  const why = `Drive refused ${what} (${status}${reason ? ` ${reason}` : ''}).`;
  const retryAfter = retryAfterMs(response.headers['retry-after'], Date.now());
  const limited = { status, ...(retryAfter === null ? {} : { retryAfterMs: retryAfter }) };
  if (status === 429 || (status === 403 && reason !== null && (RATE_REASONS.has(reason) || reason === 'dailyLimitExceeded'))) {
    return new ProviderError('rate_limited', why, limited);
  }
  if (status === 400) return new ProviderError('invalid', why, { status });
  if (status === 401) return new ProviderError('unauthorized', why, { status });
  if (status === 403) return new ProviderError('forbidden', why, { status });
  if (status === 404) return new ProviderError('not_found', why, { status });
  if (status === 409 || status === 412) return new ProviderError('conflict', why, { status });
  if (status === 413) return new ProviderError('too_large', why, { status });
  if (status >= 500) return new ProviderError('unavailable', why, { status });
  return new ProviderError('protocol', why, { status });
}

/** A file as a RemoteEntry at `path`; its version is required (it is the concurrency token). */
export function toEntry(file: DriveFile, path: string): RemoteEntry {
  if (file.version === undefined) throw new ProviderError('protocol', 'Drive answered a file without its version.');
  return { path, fileId: file.id, revision: file.version, size: Number(file.size ?? 0), modifiedAt: file.modifiedTime ?? null };
}

/** The segments of a path below the root; `invalid` for an empty one or one with empty, `.` or `..` segments. */
export function pathSegments(path: string): string[] {
  const segments = path.split('/');
  if (path === '' || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new ProviderError('invalid', 'The path is not a file path below the root.');
  }
  return segments;
}

/** Whether a Drive name can be one segment of a path (a name with '/' could not be found again by its path). */
export function isPathName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/');
}
