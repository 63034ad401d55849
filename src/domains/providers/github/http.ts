/**
 * Requests to the GitHub REST API through a provider call, their answers read against schemas, and GitHub's error
 * answers translated into ProviderError codes.
 */
import type { z } from 'zod';
import { ProviderError, type ProviderCall, type ProviderRequest, type ProviderResponse } from '../port.ts';
import { rateLimitDelay } from './rate-limit.ts';

/** GitHub's JSON media type and the REST API version this adapter was written against. */
export const GITHUB_API_HEADERS: Readonly<Record<string, string>> = {
  accept: 'application/vnd.github+json',
  'x-github-api-version': '2022-11-28',
};

/** One REST request: a path below the API origin, an optional query and JSON body. */
export interface GithubRequest {
  method: ProviderRequest['method'];
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  accept?: string;
  maxBytes?: number;
}

/** Sends a request to the API origin of the call's URLs. */
export function sendGithub(call: ProviderCall, request: GithubRequest): Promise<ProviderResponse> {
  const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
  const headers: Record<string, string> = { ...GITHUB_API_HEADERS, ...(request.accept ? { accept: request.accept } : {}) };
  if (request.json !== undefined) headers['content-type'] = 'application/json';
  return call.send({
    method: request.method,
    url: `${call.urls.api.replace(/\/+$/, '')}${request.path}${query}`,
    headers,
    ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
    ...(request.maxBytes === undefined ? {} : { maxBytes: request.maxBytes }),
  });
}

/** The `message` of a GitHub error body, when there is one (GitHub's messages hold names and shas, never tokens). */
export function githubMessage(response: ProviderResponse): string {
  try {
    const body = JSON.parse(response.body.toString('utf8')) as { message?: unknown };
    return typeof body.message === 'string' ? body.message.slice(0, 300) : '';
  } catch {
    return '';
  }
}

/** Reads a JSON answer against its schema; `protocol` when it is not what GitHub documents. */
export function readJson<T extends z.ZodType>(schema: T, response: ProviderResponse, what: string): z.infer<T> {
  let value: unknown;
  try {
    value = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new ProviderError('protocol', `GitHub answered ${what} with something that is not JSON.`, { status: response.status });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ProviderError('protocol', `GitHub answered ${what} in an unexpected shape.`, { status: response.status });
  return parsed.data;
}

/** The ProviderError for a GitHub answer that is not a success; `what` names the thing asked for. */
export function githubFailure(response: ProviderResponse, what: string): ProviderError {
  const { status } = response;
  const said = githubMessage(response);
  const suffix = said === '' ? '' : ` GitHub says: ${said}`;
  const wait = rateLimitDelay(response);
  if (wait !== null) return new ProviderError('rate_limited', `GitHub is rate limiting these requests.${suffix}`, { status, retryAfterMs: wait });
  if (status === 401) return new ProviderError('unauthorized', `GitHub did not accept the access token.${suffix}`, { status });
  if (status === 403) return new ProviderError('forbidden', `The connection may not do this with ${what}.${suffix}`, { status });
  // GitHub answers 404 for what does not exist and for what the token may not see.
  if (status === 404) return new ProviderError('not_found', `${what} was not found at GitHub.${suffix}`, { status });
  if (status === 409) return new ProviderError('conflict', `${what} changed at GitHub.${suffix}`, { status });
  if (status === 413) return new ProviderError('too_large', `GitHub refused ${what} as too large.${suffix}`, { status });
  if (status === 400 || status === 422) return new ProviderError('invalid', `GitHub refused the request for ${what}.${suffix}`, { status });
  if (status === 429) return new ProviderError('rate_limited', `GitHub is rate limiting these requests.${suffix}`, { status });
  if (status >= 500) return new ProviderError('unavailable', `GitHub failed to answer for ${what} (HTTP ${status}).`, { status });
  return new ProviderError('protocol', `GitHub answered HTTP ${status} for ${what}.${suffix}`, { status });
}

/** Sends a request and reads a 2xx JSON answer against its schema; any other answer throws its ProviderError. */
export async function fetchGithub<T extends z.ZodType>(call: ProviderCall, request: GithubRequest, schema: T, what: string): Promise<z.infer<T>> {
  const response = await sendGithub(call, request);
  if (response.status < 200 || response.status >= 300) throw githubFailure(response, what);
  return readJson(schema, response, what);
}
