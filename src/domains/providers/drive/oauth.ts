/**
 * Google's OAuth 2.0 for web server applications, as Drive connections use it: authorization code with PKCE S256 and
 * `access_type=offline` (a refresh token), `prompt=consent` (so that a reconnect gets a refresh token again), the
 * form-encoded token endpoint, and the revocation endpoint. Google does not rotate refresh tokens: a refresh answer
 * carries none and the one held stays valid. Reference: developers.google.com/identity/protocols/oauth2/web-server.
 */
import { z } from 'zod';
import { ProviderError, type ProviderCapabilities, type ProviderHttp, type ProviderOAuth, type ProviderResponse, type ProviderTokens, type ProviderUrls } from '../port.ts';

/** Full access to the user's Drive files: kgate's file-write capability. */
export const DRIVE_SCOPE = 'https://www.googleapis.com/auth/drive';
/** Read-only access to the user's Drive files. */
export const DRIVE_READONLY_SCOPE = 'https://www.googleapis.com/auth/drive.readonly';

const TokenAnswer = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
  token_type: z.string().optional(),
});
const TokenError = z.object({ error: z.string(), error_description: z.string().optional() });

function form(values: Record<string, string>): { headers: Record<string, string>; body: string } {
  return { headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: new URLSearchParams(values).toString() };
}

function oauthError(response: ProviderResponse): string | null {
  try {
    const parsed = TokenError.safeParse(JSON.parse(response.body.toString('utf8')));
    return parsed.success ? parsed.data.error : null;
  } catch {
    return null;
  }
}

/** Translates a refused token request; `invalid_grant` means revoked for a refresh, a bad code or verifier otherwise. */
function tokenFailure(response: ProviderResponse, grant: 'authorization_code' | 'refresh_token'): ProviderError {
  const error = oauthError(response);
  const why = `Google refused the token request (${response.status}${error ? ` ${error}` : ''}).`;
  const details = { status: response.status };
  if (error === 'invalid_grant') return new ProviderError(grant === 'refresh_token' ? 'revoked' : 'invalid', why, details);
  if (error === 'invalid_client' || error === 'unauthorized_client') return new ProviderError('unauthorized', why, details);
  if (response.status === 429) return new ProviderError('rate_limited', why, details);
  if (response.status >= 500) return new ProviderError('unavailable', why, details);
  if (response.status >= 400 && response.status < 500) return new ProviderError('invalid', why, details);
  return new ProviderError('protocol', why, details);
}

function tokensOf(response: ProviderResponse, grant: 'authorization_code' | 'refresh_token', heldRefreshToken: string | null): ProviderTokens {
  if (response.status !== 200) throw tokenFailure(response, grant);
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    body = null;
  }
  const parsed = TokenAnswer.safeParse(body);
  if (!parsed.success) throw new ProviderError('protocol', 'Google answered the token request in an unexpected shape.', { status: response.status });
  const answer = parsed.data;
  return {
    accessToken: answer.access_token,
    // Google does not rotate refresh tokens: a refresh answer has none and the held one stays valid.
    refreshToken: answer.refresh_token ?? heldRefreshToken,
    expiresAt: answer.expires_in === undefined ? null : new Date(Date.now() + answer.expires_in * 1000),
    scopes: (answer.scope ?? '').split(' ').filter(Boolean),
  };
}

/** The OAuth part of the Drive adapter. */
export const driveOAuth: ProviderOAuth = {
  authorizationUrl(urls: ProviderUrls, input) {
    const url = new URL(urls.authorize);
    url.searchParams.set('client_id', input.clientId);
    url.searchParams.set('redirect_uri', input.redirectUri);
    url.searchParams.set('response_type', 'code');
    // Asking for both when writing lets the owner grant read only on Google's granular consent screen; the
    // connection's capabilities then follow what was granted.
    url.searchParams.set('scope', input.write ? `${DRIVE_READONLY_SCOPE} ${DRIVE_SCOPE}` : DRIVE_READONLY_SCOPE);
    url.searchParams.set('state', input.state);
    url.searchParams.set('code_challenge', input.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('access_type', 'offline');
    url.searchParams.set('prompt', 'consent');
    return url.toString();
  },

  async exchangeCode(http: ProviderHttp, urls: ProviderUrls, input) {
    const response = await http({
      method: 'POST',
      url: urls.token,
      ...form({
        grant_type: 'authorization_code',
        code: input.code,
        code_verifier: input.codeVerifier,
        redirect_uri: input.redirectUri,
        client_id: input.clientId,
        client_secret: input.clientSecret,
      }),
      // A code is single-use: sending it twice cannot succeed twice.
      once: true,
    });
    return tokensOf(response, 'authorization_code', null);
  },

  async refresh(http: ProviderHttp, urls: ProviderUrls, input) {
    const response = await http({
      method: 'POST',
      url: urls.token,
      ...form({ grant_type: 'refresh_token', refresh_token: input.refreshToken, client_id: input.clientId, client_secret: input.clientSecret }),
    });
    return tokensOf(response, 'refresh_token', input.refreshToken);
  },

  async revoke(http: ProviderHttp, urls: ProviderUrls, input) {
    // Revoking the refresh token revokes the whole grant (and its access tokens); an access token alone does too
    // when the grant has no refresh token.
    const response = await http({ method: 'POST', url: urls.revoke, ...form({ token: input.refreshToken ?? input.accessToken }) });
    if (response.status === 200) return;
    // Google answers 400 invalid_token for a token already revoked or expired: the grant is gone, as asked.
    if (response.status === 400 && oauthError(response) === 'invalid_token') return;
    if (response.status === 429) throw new ProviderError('rate_limited', 'Google refused the revocation for now.', { status: 429 });
    if (response.status >= 500) throw new ProviderError('unavailable', `Google could not revoke the grant (${response.status}).`, { status: response.status });
    throw new ProviderError('protocol', `Google answered the revocation with ${response.status}.`, { status: response.status });
  },

  capabilities(scopes: readonly string[]): ProviderCapabilities {
    const write = scopes.includes(DRIVE_SCOPE);
    return { read: write || scopes.includes(DRIVE_READONLY_SCOPE), write };
  },
};
