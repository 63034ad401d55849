/**
 * GitHub's OAuth web flow, for a GitHub App (user access tokens that expire after 8 hours, refresh tokens that rotate
 * on every use) and for an OAuth App (tokens that do not expire, no refresh token): authorize with state and PKCE
 * S256, the token endpoint (errors come as HTTP 200 with `error`), and revocation of the whole grant through
 * `DELETE /applications/{client_id}/grant`.
 */
import { ProviderError, type ProviderHttp, type ProviderOAuth, type ProviderResponse, type ProviderTokens, type ProviderUrls } from '../port.ts';
import { GITHUB_API_HEADERS, readJson } from './http.ts';
import { rateLimitDelay } from './rate-limit.ts';
import { TokenAnswer } from './schemas.ts';

/**
 * The scope asked for: `repo` both ways. GitHub has no read-only scope for private repositories, so reading private
 * notes needs `repo` too; kgate's own switches (pull-only, "Allow hosted MCP note changes") keep a connection from
 * writing. A GitHub App ignores scopes: its permissions are set where it is registered.
 */
const SCOPE = 'repo';
/** Scopes that let a token write repository contents. */
const WRITE_SCOPES = new Set(['repo', 'public_repo']);

function tokenFailure(error: string, refreshing: boolean): ProviderError {
  switch (error) {
    case 'bad_refresh_token':
      return new ProviderError('revoked', 'GitHub refused the refresh token: the grant was revoked, or the token was used or has expired.');
    case 'bad_verification_code':
      return new ProviderError('invalid', 'GitHub refused the authorization code: incorrect, expired or used, or the PKCE verifier does not match.');
    case 'incorrect_client_credentials':
      return new ProviderError('unauthorized', "GitHub refused the application's client id or secret.");
    case 'redirect_uri_mismatch':
      return new ProviderError('invalid', 'The redirect URI is not the one registered with the GitHub application.');
    case 'unverified_user_email':
      return new ProviderError('forbidden', 'The GitHub account has no verified email address.');
    case 'unsupported_grant_type':
      // An OAuth App (or a GitHub App without expiring tokens) has no refresh: there is nothing to renew.
      return refreshing ? new ProviderError('revoked', 'This GitHub application does not renew tokens.') : new ProviderError('invalid', 'GitHub refused the grant type.');
    default:
      return new ProviderError('protocol', 'GitHub answered the token request with an unknown error.');
  }
}

async function tokenRequest(http: ProviderHttp, urls: ProviderUrls, fields: Record<string, string>, refreshing: boolean): Promise<ProviderTokens> {
  const response = await http({
    method: 'POST',
    url: urls.token,
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  if (response.status !== 200) throw unexpected(response, 'the token request');
  const answer = readJson(TokenAnswer, response, 'the token request');
  if (answer.error !== undefined) throw tokenFailure(answer.error, refreshing);
  if (answer.access_token === undefined) throw new ProviderError('protocol', 'GitHub answered the token request without an access token.');
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? null,
    expiresAt: answer.expires_in === undefined ? null : new Date(Date.now() + answer.expires_in * 1000),
    // OAuth Apps list the granted scopes comma-separated ("repo,gist"); GitHub Apps answer an empty string.
    scopes: (answer.scope ?? '').split(/[\s,]+/).filter((scope) => scope !== ''),
  };
}

function unexpected(response: ProviderResponse, what: string): ProviderError {
  const wait = rateLimitDelay(response);
  if (wait !== null || response.status === 429) return new ProviderError('rate_limited', `GitHub is rate limiting ${what}.`, { status: response.status, retryAfterMs: wait ?? 60_000 });
  if (response.status >= 500) return new ProviderError('unavailable', `GitHub failed to answer ${what} (HTTP ${response.status}).`, { status: response.status });
  return new ProviderError('protocol', `GitHub answered ${what} with HTTP ${response.status}.`, { status: response.status });
}

/** Deletes the grant named by one of its access tokens: true when deleted, false when GitHub no longer knows the token. */
async function deleteGrant(http: ProviderHttp, urls: ProviderUrls, clientId: string, clientSecret: string, accessToken: string): Promise<boolean> {
  const response = await http({
    method: 'DELETE',
    url: `${urls.api.replace(/\/+$/, '')}/applications/${encodeURIComponent(clientId)}/grant`,
    headers: {
      ...GITHUB_API_HEADERS,
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ access_token: accessToken }),
  });
  if (response.status === 204) return true;
  if (response.status === 404 || response.status === 422) return false;
  throw unexpected(response, 'the revocation');
}

function refreshTokens(http: ProviderHttp, urls: ProviderUrls, input: { clientId: string; clientSecret: string; refreshToken: string }): Promise<ProviderTokens> {
  return tokenRequest(
    http,
    urls,
    { client_id: input.clientId, client_secret: input.clientSecret, grant_type: 'refresh_token', refresh_token: input.refreshToken },
    true,
  );
}

/** The OAuth half of the GitHub adapter. */
export const githubOAuth: ProviderOAuth = {
  authorizationUrl(urls, input) {
    const url = new URL(urls.authorize);
    url.searchParams.set('client_id', input.clientId);
    url.searchParams.set('redirect_uri', input.redirectUri);
    url.searchParams.set('state', input.state);
    url.searchParams.set('scope', SCOPE);
    url.searchParams.set('code_challenge', input.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('allow_signup', 'false');
    return url.toString();
  },

  exchangeCode(http, urls, input) {
    return tokenRequest(
      http,
      urls,
      { client_id: input.clientId, client_secret: input.clientSecret, code: input.code, redirect_uri: input.redirectUri, code_verifier: input.codeVerifier },
      false,
    );
  },

  refresh: refreshTokens,

  async revoke(http, urls, input) {
    if (await deleteGrant(http, urls, input.clientId, input.clientSecret, input.accessToken)) return;
    // A GitHub App's access token expires after 8 hours and then names no grant; a refresh gives one that does.
    // A refused refresh means the grant is already gone.
    if (input.refreshToken === null) return;
    let fresh: ProviderTokens;
    try {
      fresh = await refreshTokens(http, urls, { clientId: input.clientId, clientSecret: input.clientSecret, refreshToken: input.refreshToken });
    } catch (error) {
      if (error instanceof ProviderError && error.code === 'revoked') return;
      throw error;
    }
    await deleteGrant(http, urls, input.clientId, input.clientSecret, fresh.accessToken);
  },

  capabilities(scopes) {
    return { read: true, write: scopes.some((scope) => WRITE_SCOPES.has(scope)) };
  },
};
