import { KgateError } from '../../kernel/errors.ts';

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/** The `WWW-Authenticate` challenge for a 401 (RFC 6750 s3): `error` only when a token was presented. */
export function bearerChallenge(presented: boolean, extra: Readonly<Record<string, string>> = {}): string {
  const params = { realm: 'kgate', ...(presented ? { error: 'invalid_token' } : {}), ...extra };
  return `Bearer ${Object.entries(params)
    .map(([key, value]) => `${key}="${value.replace(/["\\]/g, '')}"`)
    .join(', ')}`;
}

/** The bearer token in an `Authorization` header value; throws `unauthenticated` when there is none. */
export function bearerTokenOf(header: string | undefined): string {
  const match = header ? BEARER.exec(header) : null;
  if (!match) {
    throw new KgateError('unauthenticated', 'Send a personal access token as "Authorization: Bearer <token>".');
  }
  return match[1]!;
}
