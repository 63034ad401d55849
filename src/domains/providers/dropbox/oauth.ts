/**
 * Dropbox's OAuth 2 as kgate uses it: authorization code with PKCE (S256) and `token_access_type=offline` for a
 * refresh token, scoped-app scopes, refresh (Dropbox keeps the refresh token: it does not rotate it), and
 * /2/auth/token/revoke, which ends the whole grant (refresh token and every access token of it).
 * Reference: developers.dropbox.com/oauth-guide, www.dropbox.com/developers/documentation/http/documentation#oauth2-token.
 */
import { z } from 'zod';
import { ProviderError, type ProviderCapabilities, type ProviderOAuth, type ProviderResponse, type ProviderTokens, type ProviderUrls } from '../port.ts';
import { httpFailure } from './wire.ts';

/** Scopes of a read connection: file listing and content, and who the account is. */
export const DROPBOX_READ_SCOPES = ['account_info.read', 'files.metadata.read', 'files.content.read'] as const;
/** Scopes of a write connection: reading, and writing file content (upload and delete_v2 need it). */
export const DROPBOX_WRITE_SCOPES = [...DROPBOX_READ_SCOPES, 'files.content.write'] as const;

const TokenAnswerSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((type) => type.toLowerCase() === 'bearer'),
  expires_in: z.number().int().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
});

const OAuthErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() });

function form(fields: Record<string, string>): { headers: Record<string, string>; body: string } {
  return { headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: new URLSearchParams(fields).toString() };
}

/** The token endpoint's answer as ProviderTokens; `refreshToken` is kept when the answer carries none (a refresh). */
function tokensFrom(response: ProviderResponse, refreshToken: string | null, grant: 'code' | 'refresh'): ProviderTokens {
  if (response.status !== 200) throw tokenFailure(response, grant);
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new ProviderError('protocol', 'Dropbox answered the token request with something that is not JSON.');
  }
  const parsed = TokenAnswerSchema.safeParse(body);
  if (!parsed.success) throw new ProviderError('protocol', 'Dropbox answered the token request in an unexpected shape.');
  const answer = parsed.data;
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? refreshToken,
    expiresAt: answer.expires_in === undefined ? null : new Date(Date.now() + answer.expires_in * 1000),
    // A refresh answer names no scopes (Dropbox sends access_token, token_type and expires_in only): the grant's
    // scopes are unchanged, and an empty list here means "as granted before".
    scopes: answer.scope?.split(' ').filter(Boolean) ?? [],
  };
}

/** The token endpoint's refusal (400 with `error`): a refused refresh token means the grant is gone. */
function tokenFailure(response: ProviderResponse, grant: 'code' | 'refresh'): ProviderError {
  let error: string | null = null;
  try {
    const parsed = OAuthErrorSchema.safeParse(JSON.parse(response.body.toString('utf8')));
    if (parsed.success) error = parsed.data.error;
  } catch {
    // Not JSON: judged by the status below.
  }
  const status = response.status;
  if (error === 'invalid_grant') {
    return grant === 'refresh'
      ? new ProviderError('revoked', 'Dropbox refused the refresh token: the connection was revoked or has expired.', { status })
      : new ProviderError('invalid', 'Dropbox refused the authorization code (unknown, used, expired, or not matching the verifier or redirect URI).', { status });
  }
  if (error === 'invalid_client' || error === 'unauthorized_client') return new ProviderError('unauthorized', 'Dropbox did not accept the app key and secret.', { status });
  if (error !== null) return new ProviderError('invalid', `Dropbox refused the token request (${error}).`, { status });
  return httpFailure('oauth2/token', response);
}

/** Dropbox's part of the provider port that authenticates the application. */
export const dropboxOAuth: ProviderOAuth = {
  authorizationUrl(urls, input) {
    const url = new URL(urls.authorize);
    url.search = new URLSearchParams({
      client_id: input.clientId,
      response_type: 'code',
      redirect_uri: input.redirectUri,
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
      // Offline access: a refresh token, so that sync runs while the owner is away.
      token_access_type: 'offline',
      scope: (input.write ? DROPBOX_WRITE_SCOPES : DROPBOX_READ_SCOPES).join(' '),
    }).toString();
    return url.toString();
  },

  async exchangeCode(http, urls, input) {
    const response = await http({
      method: 'POST',
      url: urls.token,
      ...form({ grant_type: 'authorization_code', code: input.code, code_verifier: input.codeVerifier, redirect_uri: input.redirectUri, client_id: input.clientId, client_secret: input.clientSecret }),
    });
    return tokensFrom(response, null, 'code');
  },

  async refresh(http, urls, input) {
    const response = await http({
      method: 'POST',
      url: urls.token,
      ...form({ grant_type: 'refresh_token', refresh_token: input.refreshToken, client_id: input.clientId, client_secret: input.clientSecret }),
    });
    return tokensFrom(response, input.refreshToken, 'refresh');
  },

  async revoke(http, urls, input) {
    const revokeWith = (accessToken: string): Promise<ProviderResponse> => http({ method: 'POST', url: urls.revoke, headers: { authorization: `Bearer ${accessToken}` } });
    const first = await revokeWith(input.accessToken);
    if (first.status === 200) return;
    if (first.status !== 401) throw httpFailure('auth/token/revoke', first);
    // The access token is expired or already revoked. Revocation needs a live access token of the grant: get one
    // with the refresh token; a refused refresh token means the grant is already gone.
    if (input.refreshToken === null) return;
    let fresh: ProviderTokens;
    try {
      fresh = await dropboxOAuth.refresh(http, urls, { clientId: input.clientId, clientSecret: input.clientSecret, refreshToken: input.refreshToken });
    } catch (error) {
      if (error instanceof ProviderError && error.code === 'revoked') return;
      throw error;
    }
    const second = await revokeWith(fresh.accessToken);
    if (second.status !== 200 && second.status !== 401) throw httpFailure('auth/token/revoke', second);
  },

  capabilities(scopes): ProviderCapabilities {
    const has = (scope: string): boolean => scopes.includes(scope);
    const read = has('files.metadata.read') && has('files.content.read');
    return { read, write: read && has('files.content.write') };
  },
};

/** The revocation endpoint and the rest of Dropbox's OAuth URLs, for settings' defaults. */
export const DROPBOX_URLS: ProviderUrls = {
  api: 'https://api.dropboxapi.com',
  content: 'https://content.dropboxapi.com',
  authorize: 'https://www.dropbox.com/oauth2/authorize',
  token: 'https://api.dropboxapi.com/oauth2/token',
  revoke: 'https://api.dropboxapi.com/2/auth/token/revoke',
};
