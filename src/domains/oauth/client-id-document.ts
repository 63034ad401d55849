import { hasControlCharacters } from '../../kernel/control-characters.ts';
import { OAuthError, type OAuthClient } from './contract.ts';
import { acceptClientMetadata, type AcceptedClientMetadata } from './client-metadata.ts';
import { MAX_URI_LENGTH } from './redirect-uris.ts';

/** Fetches an untrusted https URL, bounded (time, size, no redirects) and guarded against private addresses. */
export type ClientMetadataFetch = (url: string) => Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;

/** How long a fetched document is trusted when it says nothing, and the bounds on what it may say. */
export const DOCUMENT_CACHE_DEFAULT_MS = 5 * 60_000;
export const DOCUMENT_CACHE_MAX_MS = 60 * 60_000;
/** Documents kept in memory at most; the oldest makes room. */
export const DOCUMENT_CACHE_MAX_ENTRIES = 1000;

/**
 * True when a client_id is meant as a client ID metadata document URL (draft-ietf-oauth-client-id-metadata-document):
 * it starts with https://. Whether it is a valid one is `checkClientIdUrl`'s job.
 */
export function looksLikeClientIdUrl(clientId: string): boolean {
  return clientId.startsWith('https://');
}

function invalidClient(description: string): OAuthError {
  return new OAuthError('invalid_client', description);
}

/**
 * The URL rules of the draft s3: https, a path, no fragment, no user info, no dot segments (also percent-encoded),
 * and at most MAX_URI_LENGTH characters. The string must already be in the form URL parsing keeps, so that the
 * client_id in the document can be compared character for character.
 */
export function checkClientIdUrl(clientId: string): URL {
  if (clientId.length > MAX_URI_LENGTH) throw invalidClient('The client_id URL is too long.');
  if (/[\s\\]/u.test(clientId) || hasControlCharacters(clientId)) throw invalidClient('The client_id URL contains forbidden characters.');
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw invalidClient('The client_id is not a URL.');
  }
  if (url.protocol !== 'https:') throw invalidClient('A client_id URL must use https.');
  if (clientId.includes('#')) throw invalidClient('A client_id URL must not contain a fragment.');
  if (url.username || url.password || /^https:\/\/[^/]*@/.test(clientId)) throw invalidClient('A client_id URL must not contain user information.');
  const rawPath = clientId.slice('https://'.length).replace(/^[^/?]*/, '').replace(/\?.*$/, '');
  if (rawPath === '' || rawPath === '/') throw invalidClient('A client_id URL must contain a path.');
  if (rawPath.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    throw invalidClient('A client_id URL must not contain dot segments.');
  }
  return url;
}

function maxAgeOf(headers: Record<string, string>): number {
  const cacheControl = (headers['cache-control'] ?? '').toLowerCase();
  if (/\b(no-store|no-cache)\b/.test(cacheControl)) return 0;
  const match = /\bmax-age=(\d+)/.exec(cacheControl);
  if (!match) return DOCUMENT_CACHE_DEFAULT_MS;
  return Math.min(Number(match[1]) * 1000, DOCUMENT_CACHE_MAX_MS);
}

/** Resolves client ID metadata documents: fetched, validated, cached within bounds. */
export interface ClientIdDocuments {
  /** The client a document URL describes; throws OAuthError `invalid_client` with the reason. */
  resolve(clientId: string): Promise<{ client: OAuthClient; accepted: AcceptedClientMetadata }>;
}

/** Builds the resolver over a guarded fetch. */
export function createClientIdDocuments(fetchDocument: ClientMetadataFetch, now: () => number): ClientIdDocuments {
  const cache = new Map<string, { until: number; client: OAuthClient; accepted: AcceptedClientMetadata }>();
  // Concurrent authorizations of one client share a fetch rather than each reaching out.
  const inFlight = new Map<string, Promise<{ client: OAuthClient; accepted: AcceptedClientMetadata }>>();

  async function load(clientId: string): Promise<{ client: OAuthClient; accepted: AcceptedClientMetadata }> {
    checkClientIdUrl(clientId);
    let response: Awaited<ReturnType<ClientMetadataFetch>>;
    try {
      response = await fetchDocument(clientId);
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'unknown error';
      throw invalidClient(`The client metadata document could not be fetched: ${reason}`);
    }
    if (response.status !== 200) throw invalidClient(`The client metadata document answered HTTP ${response.status}.`);
    const type = (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') throw invalidClient('The client metadata document is not application/json.');
    let document: unknown;
    try {
      document = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw invalidClient('The client metadata document is not valid JSON.');
    }
    if (typeof document !== 'object' || document === null || (document as { client_id?: unknown }).client_id !== clientId) {
      throw invalidClient('The client_id in the metadata document must equal the URL it was fetched from.');
    }
    let accepted: AcceptedClientMetadata;
    try {
      accepted = acceptClientMetadata(document);
    } catch (error) {
      if (error instanceof OAuthError) throw invalidClient(`The client metadata document is not acceptable: ${error.description}`);
      throw error;
    }
    const client: OAuthClient = { clientId, kind: 'metadata_document', ...accepted.client };
    const ttl = maxAgeOf(response.headers);
    if (ttl > 0) {
      if (cache.size >= DOCUMENT_CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(clientId, { until: now() + ttl, client, accepted });
    }
    return { client, accepted };
  }

  return {
    async resolve(clientId) {
      const cached = cache.get(clientId);
      if (cached && cached.until > now()) return cached;
      cache.delete(clientId);
      const pending = inFlight.get(clientId);
      if (pending) return pending;
      const loading = load(clientId).finally(() => inFlight.delete(clientId));
      inFlight.set(clientId, loading);
      return loading;
    },
  };
}
