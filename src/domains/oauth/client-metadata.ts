import { hasControlCharacters } from '../../kernel/control-characters.ts';
import { OAuthError, OAUTH_SCOPES, type OAuthClient } from './contract.ts';
import { MAX_REDIRECT_URIS, MAX_URI_LENGTH, validateRedirectUri } from './redirect-uris.ts';

/** Longest client name shown on the consent page. */
export const MAX_CLIENT_NAME_LENGTH = 200;

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

function invalid(description: string): OAuthError {
  return new OAuthError('invalid_client_metadata', description);
}

function optionalString(metadata: Record<string, unknown>, key: string, max: number): string | undefined {
  const value = metadata[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max) throw invalid(`${key} must be a string of at most ${max} characters.`);
  // A name is shown on the consent page: no control characters that could disguise it.
  if (hasControlCharacters(value) || /[\u202a-\u202e\u2066-\u2069]/u.test(value)) throw invalid(`${key} must not contain control characters.`);
  return value;
}

function optionalHttpsUrl(metadata: Record<string, unknown>, key: string): string | undefined {
  const value = optionalString(metadata, key, MAX_URI_LENGTH);
  if (value === undefined) return undefined;
  try {
    if (new URL(value).protocol === 'https:') return value;
  } catch {
    // fall through
  }
  throw invalid(`${key} must be an https URL.`);
}

function stringList(metadata: Record<string, unknown>, key: string, fallback: string[]): string[] {
  const value = metadata[key];
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw invalid(`${key} must be an array of strings.`);
  return value;
}

/** Accepted client metadata: what we store and what registration echoes. */
export interface AcceptedClientMetadata {
  client: Omit<OAuthClient, 'clientId' | 'kind'>;
  /** The metadata as registered (RFC 7591 s3.2.1 echoes it), with defaults filled in. */
  document: Record<string, unknown>;
}

/**
 * Validates client metadata (RFC 7591 s2) for a public client, from registration or a client ID metadata
 * document: at least one valid redirect URI, the `none` token endpoint auth method, the code flow only.
 * Unknown members are ignored (RFC 7591 s2); members we rely on must be well-formed.
 */
export function acceptClientMetadata(input: unknown): AcceptedClientMetadata {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid('Client metadata must be a JSON object.');
  const metadata = input as Record<string, unknown>;
  const redirectValue = metadata.redirect_uris;
  if (!Array.isArray(redirectValue) || redirectValue.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list at least one redirect URI.');
  }
  if (redirectValue.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `A client registers at most ${MAX_REDIRECT_URIS} redirect URIs.`);
  }
  const redirectUris = [...new Set(redirectValue.map(validateRedirectUri))];

  const authMethod = metadata.token_endpoint_auth_method ?? 'none';
  if (authMethod !== 'none') {
    throw invalid('Only public clients are supported: token_endpoint_auth_method must be "none" (PKCE protects the code).');
  }
  if (metadata.client_secret !== undefined) throw invalid('A public client has no client_secret.');
  const grantTypes = stringList(metadata, 'grant_types', ['authorization_code']);
  if (grantTypes.length === 0 || !grantTypes.every((type) => GRANT_TYPES.has(type)) || !grantTypes.includes('authorization_code')) {
    throw invalid('grant_types may hold authorization_code and refresh_token only, and must include authorization_code.');
  }
  const responseTypes = stringList(metadata, 'response_types', ['code']);
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') throw invalid('response_types must be ["code"].');
  const scope = optionalString(metadata, 'scope', 500);
  if (scope !== undefined && !scope.split(' ').every((item) => (OAUTH_SCOPES as readonly string[]).includes(item))) {
    throw invalid(`scope may only hold ${OAUTH_SCOPES.join(', ')}.`);
  }
  const name = optionalString(metadata, 'client_name', MAX_CLIENT_NAME_LENGTH) ?? null;
  const clientUri = optionalHttpsUrl(metadata, 'client_uri') ?? null;
  const logoUri = optionalHttpsUrl(metadata, 'logo_uri') ?? null;
  const softwareId = optionalString(metadata, 'software_id', 200);
  const softwareVersion = optionalString(metadata, 'software_version', 100);

  const document: Record<string, unknown> = {
    redirect_uris: redirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: [...new Set(grantTypes)],
    response_types: ['code'],
    ...(name !== null ? { client_name: name } : {}),
    ...(clientUri !== null ? { client_uri: clientUri } : {}),
    ...(logoUri !== null ? { logo_uri: logoUri } : {}),
    ...(scope !== undefined ? { scope } : {}),
    ...(softwareId !== undefined ? { software_id: softwareId } : {}),
    ...(softwareVersion !== undefined ? { software_version: softwareVersion } : {}),
  };
  return { client: { name, clientUri, logoUri, redirectUris, grantTypes: document.grant_types as string[] }, document };
}
