import { hasControlCharacters } from '../../kernel/control-characters.ts';
import { OAuthError } from './contract.ts';

/** Longest redirect URI or client_id URL we accept. */
export const MAX_URI_LENGTH = 2000;
/** Most redirect URIs one client may register. */
export const MAX_REDIRECT_URIS = 10;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
// Whitespace, controls and the characters WHATWG URL parsing silently strips or rewrites: a URI that contains them
// would be stored as one string and matched as another.
const UNSAFE_CHARACTERS = /[\s\\]/u;
// RFC 8252 s7.1: a private-use scheme is a reverse domain name (com.example.app); single words are too easy to claim.
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:', 'ftp:', 'ws:', 'wss:']);

function invalid(description: string): OAuthError {
  return new OAuthError('invalid_redirect_uri', description);
}

/**
 * Checks a redirect URI a client registers (RFC 9700 s4.1, OAuth 2.1 s2.3.1, RFC 8252 s7): absolute, no fragment,
 * no user info; https, http only to a loopback host, or a reverse-domain private-use scheme for native apps.
 * Returns the string unchanged: requests must later present exactly the same characters.
 */
export function validateRedirectUri(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0) throw invalid('Each redirect URI must be a non-empty string.');
  if (raw.length > MAX_URI_LENGTH) throw invalid(`A redirect URI has at most ${MAX_URI_LENGTH} characters.`);
  if (UNSAFE_CHARACTERS.test(raw) || hasControlCharacters(raw)) throw invalid('A redirect URI must not contain whitespace, control characters or backslashes.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`Not an absolute URI: ${raw}`);
  }
  if (raw.includes('#')) throw invalid('A redirect URI must not contain a fragment.');
  if (url.username || url.password) throw invalid('A redirect URI must not contain user information.');
  if (url.protocol === 'https:') return raw;
  if (url.protocol === 'http:') {
    if (LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) return raw;
    throw invalid('Plain http redirect URIs are accepted only for loopback hosts (localhost, 127.0.0.1, [::1]).');
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) throw invalid(`The ${url.protocol} scheme cannot be a redirect URI.`);
  if (PRIVATE_USE_SCHEME.test(url.protocol.slice(0, -1))) return raw;
  throw invalid('A redirect URI uses https, http on a loopback host, or a reverse-domain private-use scheme (com.example.app:/callback).');
}

/** True when the redirect lands on the user's own computer: the consent page warns about it. */
export function isLoopbackRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** The host a redirect goes to, for showing; the scheme for private-use schemes. */
export function redirectHostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || url.protocol.slice(0, -1);
  } catch {
    return uri;
  }
}

/** Appends response parameters to a redirect URI, keeping its own query (RFC 6749 s3.1.2). */
export function withParameters(uri: string, params: Readonly<Record<string, string | undefined>>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(key, value);
  return url.toString();
}
