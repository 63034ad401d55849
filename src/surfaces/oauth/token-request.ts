import { OAuthError, type TokenRequest } from '../../domains/oauth/index.ts';

// RFC 6749 s3.2: request parameters must not be included more than once.
const SINGLE_VALUED = ['grant_type', 'client_id', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'resource', 'scope'];

/**
 * Reads a token request from its application/x-www-form-urlencoded parameters (RFC 6749 s4.1.3, s6), checking in
 * this order: no parameter twice (invalid_request), a grant_type (invalid_request) that we support
 * (unsupported_grant_type), a client_id (invalid_request), and no client_secret (invalid_client: clients here are
 * public). The grant checks the rest. Throws OAuthError.
 */
export function tokenRequestOf(form: URLSearchParams): TokenRequest {
  const duplicated = SINGLE_VALUED.find((name) => form.getAll(name).length > 1);
  if (duplicated) throw new OAuthError('invalid_request', `The parameter ${duplicated} appears more than once.`);
  const grantType = form.get('grant_type');
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuthError('unsupported_grant_type', 'Supported grant types: authorization_code, refresh_token.');
  }
  const clientId = form.get('client_id');
  if (!clientId) throw new OAuthError('invalid_request', 'client_id is required (public clients authenticate with it alone).');
  if (form.has('client_secret')) throw new OAuthError('invalid_client', 'Clients here are public: send no client_secret.');
  // Absent stays absent (undefined); present but empty stays '': the grants tell the two apart.
  const optional = (name: string) => form.get(name) ?? undefined;
  if (grantType === 'authorization_code') {
    return {
      grantType,
      clientId,
      code: optional('code'),
      redirectUri: optional('redirect_uri'),
      codeVerifier: optional('code_verifier'),
      resource: optional('resource'),
    };
  }
  return { grantType, clientId, refreshToken: optional('refresh_token'), scope: optional('scope'), resource: optional('resource') };
}
