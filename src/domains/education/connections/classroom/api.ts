/**
 * How kgate speaks to the Google Classroom API v1 (classroom.googleapis.com): JSON requests through a provider call
 * (the connection's token, the round trip's budget, retries of 429 and 5xx, a refresh after a 401), answers parsed
 * with a schema that keeps only the fields kgate uses (zod strips the rest: profile e-mails and photos, grades,
 * answers never pass this layer), and Google's JSON errors (`{ error: { code, message, status } }`) translated into
 * provider errors. Reference: developers.google.com/workspace/classroom/reference/rest.
 */
import { z } from 'zod';
import { ProviderError, retryAfterMs, type ProviderCall, type ProviderRequest, type ProviderResponse } from '../../../providers/index.ts';

const ErrorSchema = z.object({ error: z.object({ message: z.string().optional(), status: z.string().optional() }) });

function errorOf(response: ProviderResponse): { status: string | null; message: string | null } {
  try {
    const parsed = ErrorSchema.safeParse(JSON.parse(response.body.toString('utf8')));
    if (parsed.success) return { status: parsed.data.error.status ?? null, message: parsed.data.error.message ?? null };
  } catch {
    // Falls through: not Google's error JSON.
  }
  return { status: null, message: null };
}

/** A Classroom error answer as a provider error; an INVALID_ARGUMENT keeps Google's (bounded) reason for the product. */
export function classroomFailure(response: ProviderResponse, what: string): ProviderError {
  const { status, message } = errorOf(response);
  const code = response.status;
  const why = `Classroom refused ${what} (${code}${status ? ` ${status}` : ''}).`;
  if (code === 400) return new ProviderError('invalid', message ? `${why} ${message.slice(0, 200)}` : why, { status: code });
  if (code === 401) return new ProviderError('unauthorized', why, { status: code });
  if (code === 403) return new ProviderError('forbidden', why, { status: code });
  if (code === 404) return new ProviderError('not_found', why, { status: code });
  if (code === 409) return new ProviderError('conflict', why, { status: code });
  if (code === 429) {
    const after = retryAfterMs(response.headers['retry-after'], Date.now());
    return new ProviderError('rate_limited', why, { status: code, ...(after === null ? {} : { retryAfterMs: after }) });
  }
  if (code >= 500) return new ProviderError('unavailable', why, { status: code });
  return new ProviderError('protocol', why, { status: code });
}

/** A Classroom URL: the API origin, a path below /v1, and query parameters (repeated ones as arrays). */
export function classroomUrl(call: ProviderCall, path: string, params: Record<string, string | readonly string[] | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const each of typeof value === 'string' ? [value] : value) query.append(name, each);
  }
  const text = query.toString();
  return `${call.urls.api.replace(/\/+$/, '')}/v1${path}${text ? `?${text}` : ''}`;
}

/** Sends a request and parses a successful answer with `schema`; any other answer is thrown as ProviderError. */
export async function classroomJson<T>(call: ProviderCall, request: ProviderRequest, schema: z.ZodType<T>, what: string): Promise<T> {
  const response = await call.send({ ...request, headers: { accept: 'application/json', ...request.headers } });
  if (response.status < 200 || response.status > 299) throw classroomFailure(response, what);
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new ProviderError('protocol', `Classroom answered ${what} with a body that is not JSON.`, { status: response.status });
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ProviderError('protocol', `Classroom answered ${what} in an unexpected shape.`, { status: response.status });
  return parsed.data;
}
