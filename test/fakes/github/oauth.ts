/**
 * The GitHub fake's OAuth: `GET /login/oauth/authorize` (the user consents, or not, at once), `POST
 * /login/oauth/access_token` (code with PKCE S256, refresh with rotation; errors as HTTP 200 with `error`, as GitHub
 * answers them) and `DELETE /applications/{client_id}/grant` (HTTP Basic with the application's credentials).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { FAKE_USER, sendError, sendJson, type FakeState } from './state.ts';

const CODE_TTL_MS = 10 * 60 * 1000;
const TROUBLESHOOTING = 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors';

function redirect(res: ServerResponse, target: string, params: Record<string, string>): void {
  const url = new URL(target);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  res.writeHead(302, { location: url.toString() });
  res.end();
}

/** The authorize page, as if the signed-in user had answered the consent screen with `state.consent`. */
export function authorize(state: FakeState, query: URLSearchParams, res: ServerResponse): void {
  if (query.get('client_id') !== state.clientId) {
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>404</h1>');
    return;
  }
  const oauthState = query.get('state') ?? '';
  const redirectUri = query.get('redirect_uri') ?? state.callbackUrl;
  // GitHub never sends the user to an unregistered address: the error goes to the registered callback.
  if (redirectUri !== state.callbackUrl) {
    redirect(res, state.callbackUrl, {
      error: 'redirect_uri_mismatch',
      error_description: 'The redirect_uri MUST match the registered callback URL for this application.',
      error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#redirect-uri-mismatch',
      state: oauthState,
    });
    return;
  }
  const challenge = query.get('code_challenge');
  if (challenge !== null && query.get('code_challenge_method') !== 'S256') {
    redirect(res, redirectUri, { error: 'invalid_request', error_description: 'Only the S256 code challenge method is supported.', state: oauthState });
    return;
  }
  if (state.consent.deny) {
    redirect(res, redirectUri, {
      error: 'access_denied',
      error_description: 'The user has denied your application access.',
      error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#access-denied',
      state: oauthState,
    });
    return;
  }
  const asked = (query.get('scope') ?? '').split(/[\s,]+/).filter((scope) => scope !== '');
  const code = randomBytes(10).toString('hex');
  state.codes.set(code, { redirectUri, scopes: state.consent.scopes ?? asked, challenge, expiresAt: Date.now() + CODE_TTL_MS, used: false });
  redirect(res, redirectUri, { code, state: oauthState });
}

function tokenParams(body: Buffer, headers: IncomingHttpHeaders, query: URLSearchParams): URLSearchParams {
  const params = new URLSearchParams(query);
  const text = body.toString('utf8');
  if ((headers['content-type'] ?? '').includes('application/json')) {
    const parsed = JSON.parse(text || '{}') as Record<string, unknown>;
    for (const [name, value] of Object.entries(parsed)) if (typeof value === 'string') params.set(name, value);
  } else {
    for (const [name, value] of new URLSearchParams(text)) params.set(name, value);
  }
  return params;
}

// GitHub answers in the format the Accept header asks for: JSON, or a form-encoded body by default.
function answer(res: ServerResponse, headers: IncomingHttpHeaders, fields: Record<string, string | number>): void {
  if ((headers.accept ?? '').includes('application/json')) {
    sendJson(res, 200, fields);
    return;
  }
  const text = new URLSearchParams(Object.entries(fields).map(([name, value]): [string, string] => [name, String(value)])).toString();
  res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }).end(text);
}

function refused(res: ServerResponse, headers: IncomingHttpHeaders, error: string, description: string): void {
  answer(res, headers, { error, error_description: description, error_uri: TROUBLESHOOTING });
}

/** The token endpoint: authorization_code (PKCE S256) and refresh_token grants. */
export function token(state: FakeState, body: Buffer, headers: IncomingHttpHeaders, query: URLSearchParams, res: ServerResponse): void {
  let params: URLSearchParams;
  try {
    params = tokenParams(body, headers, query);
  } catch {
    sendError(res, 400, 'Problems parsing JSON');
    return;
  }
  if (params.get('client_id') !== state.clientId || params.get('client_secret') !== state.clientSecret) {
    refused(res, headers, 'incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
    return;
  }
  const grantType = params.get('grant_type') ?? 'authorization_code';
  if (grantType === 'refresh_token') {
    if (state.flavor !== 'github-app') {
      refused(res, headers, 'unsupported_grant_type', 'The grant type is not supported for this application.');
      return;
    }
    const refreshToken = state.refreshTokens.get(params.get('refresh_token') ?? '');
    if (!refreshToken || !refreshToken.live || refreshToken.grant.revoked || refreshToken.expiresAt <= Date.now()) {
      refused(res, headers, 'bad_refresh_token', 'The refresh token passed is incorrect or expired.');
      return;
    }
    // A refresh token is used once: it and every access token issued before it stop working.
    refreshToken.live = false;
    for (const access of state.accessTokens.values()) if (access.grant === refreshToken.grant) access.live = false;
    answer(res, headers, state.issue(refreshToken.grant));
    return;
  }
  if (grantType !== 'authorization_code') {
    refused(res, headers, 'unsupported_grant_type', 'The grant type is not supported.');
    return;
  }
  const code = state.codes.get(params.get('code') ?? '');
  if (!code || code.used || code.expiresAt <= Date.now()) {
    refused(res, headers, 'bad_verification_code', 'The code passed is incorrect or expired.');
    return;
  }
  code.used = true;
  const redirectUri = params.get('redirect_uri');
  if (redirectUri !== null && redirectUri !== code.redirectUri) {
    refused(res, headers, 'redirect_uri_mismatch', 'The redirect_uri MUST match the registered callback URL for this application.');
    return;
  }
  if (code.challenge !== null) {
    const verifier = params.get('code_verifier') ?? '';
    if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
      refused(res, headers, 'bad_verification_code', 'The code passed is incorrect or expired.');
      return;
    }
  }
  answer(res, headers, state.issue({ id: state.id(), scopes: state.flavor === 'oauth-app' ? code.scopes : [], revoked: false }));
}

/** `DELETE /applications/{client_id}/grant`: ends the user's grant and every token under it. */
export function revokeGrant(state: FakeState, clientId: string, body: Buffer, headers: IncomingHttpHeaders, res: ServerResponse): void {
  const basic = `Basic ${Buffer.from(`${state.clientId}:${state.clientSecret}`).toString('base64')}`;
  if (clientId !== state.clientId || headers.authorization !== basic) {
    sendError(res, 404, 'Not Found');
    return;
  }
  let accessToken: unknown;
  try {
    accessToken = (JSON.parse(body.toString('utf8') || '{}') as { access_token?: unknown }).access_token;
  } catch {
    sendError(res, 400, 'Problems parsing JSON');
    return;
  }
  if (typeof accessToken !== 'string') {
    sendError(res, 422, 'Invalid request.\n\n"access_token" wasn\'t supplied.');
    return;
  }
  const grant = state.authorize(accessToken);
  if (!grant) {
    sendError(res, 404, 'Not Found');
    return;
  }
  grant.revoked = true;
  res.writeHead(204).end();
}

/** `GET /user`. */
export function user(res: ServerResponse): void {
  sendJson(res, 200, { login: FAKE_USER.login, id: FAKE_USER.id, type: 'User', name: FAKE_USER.name, site_admin: false });
}
