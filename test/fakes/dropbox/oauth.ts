/**
 * The fake Dropbox's OAuth 2: one registered app, /oauth2/authorize (consent simulated, redirect to the exact
 * registered URI), /oauth2/token (authorization_code with PKCE, refresh_token; Dropbox does not rotate refresh
 * tokens), /2/auth/token/revoke (disables the grant: its refresh token and every access token of it), and the bearer
 * check of every API request with Dropbox's 400/401 shapes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FakeAnswer } from './wire.ts';
import { badInput, endpointError, json, text } from './wire.ts';

/** What the simulated user does on the consent page. */
export interface DropboxConsent {
  /** Refuse: redirect with `error=access_denied`. */
  deny?: boolean;
  /** Grant only these of the asked scopes (as if the app's permissions were narrower). */
  grantOnly?: string[];
}

/** One authorization of the app by the user. */
interface Grant {
  scopes: string[];
  refreshToken: string | null;
  revoked: boolean;
  /** PKCE grants may refresh without the app secret. */
  pkce: boolean;
}

interface PendingCode {
  grant: Omit<Grant, 'refreshToken' | 'revoked'>;
  redirectUri: string;
  challenge: string | null;
  method: 'S256' | 'plain';
  offline: boolean;
  /** Epoch ms after which the code is refused; 0 once `expireCodes` ran. */
  expiresAt: number;
}

/** Every scope the fake's registered app has. */
export const DROPBOX_APP_SCOPES = ['account_info.read', 'files.metadata.read', 'files.metadata.write', 'files.content.read', 'files.content.write'];

/** The authorization server and token registry of the fake. */
export class FakeDropboxOAuth {
  readonly clientId = `fakeappkey${randomBytes(4).toString('hex')}`;
  readonly clientSecret = randomBytes(12).toString('hex');
  readonly redirectUris = new Set<string>();
  consent: DropboxConsent = {};
  private readonly codes = new Map<string, PendingCode>();
  private readonly accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  private readonly refreshTokens = new Map<string, Grant>();

  constructor(
    private readonly accessTokenTtlSeconds: number,
    private readonly codeTtlSeconds: number,
  ) {}

  /** GET /oauth2/authorize: the user consents at once (or as `consent` says) and is redirected back. */
  authorize(url: URL): FakeAnswer {
    const q = url.searchParams;
    if (q.get('client_id') !== this.clientId) return text(400, 'Invalid client_id');
    const redirectUri = q.get('redirect_uri') ?? '';
    // Dropbox never redirects to a URI the app did not register: the error stays on its own page.
    if (!this.redirectUris.has(redirectUri)) return text(400, `Invalid redirect_uri: "${redirectUri}". It must exactly match one of the redirect URIs you've pre-configured for your app.`);
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const fail = (error: string, description: string): FakeAnswer => {
      back.searchParams.set('error', error);
      back.searchParams.set('error_description', description);
      return { status: 302, headers: { location: back.toString() }, body: Buffer.alloc(0) };
    };
    if (q.get('response_type') !== 'code') return fail('unsupported_response_type', 'response_type must be code');
    const challenge = q.get('code_challenge');
    const method = q.get('code_challenge_method') ?? 'plain';
    if (method !== 'S256' && method !== 'plain') return fail('invalid_request', 'code_challenge_method must be S256 or plain');
    if (challenge !== null && !/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) return fail('invalid_request', 'invalid code_challenge');
    const asked = q.get('scope')?.split(' ').filter(Boolean) ?? DROPBOX_APP_SCOPES;
    const unknown = asked.find((scope) => !DROPBOX_APP_SCOPES.includes(scope));
    if (unknown) return fail('invalid_scope', `Unknown scope ${unknown}`);
    if (this.consent.deny) return fail('access_denied', 'The user chose not to give your app access to their Dropbox account.');
    const scopes = this.consent.grantOnly ? asked.filter((scope) => this.consent.grantOnly!.includes(scope)) : asked;
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, {
      grant: { scopes, pkce: challenge !== null },
      redirectUri,
      challenge,
      method,
      offline: q.get('token_access_type') === 'offline',
      expiresAt: Date.now() + this.codeTtlSeconds * 1000,
    });
    back.searchParams.set('code', code);
    return { status: 302, headers: { location: back.toString() }, body: Buffer.alloc(0) };
  }

  /** POST /oauth2/token (form-encoded). */
  token(form: URLSearchParams, authorization: string | undefined): FakeAnswer {
    const client = this.client(form, authorization);
    if (client === 'invalid') return oauthError('invalid_client', 'Invalid client_id or client_secret');
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') return this.exchange(form, client.secret);
    if (grantType === 'refresh_token') {
      const grant = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!grant || grant.revoked) return oauthError('invalid_grant', 'refresh token is invalid or revoked');
      if (!client.secret && !grant.pkce) return oauthError('invalid_client', 'No auth function available for given request');
      const asked = form.get('scope')?.split(' ').filter(Boolean);
      if (asked?.some((scope) => !grant.scopes.includes(scope))) return oauthError('invalid_scope', 'scope is not a subset of the granted scopes');
      // Dropbox answers a refresh with the new access token only: the refresh token stays the same.
      return json({ access_token: this.mint(grant), token_type: 'bearer', expires_in: this.accessTokenTtlSeconds, ...(asked ? { scope: asked.join(' ') } : {}) });
    }
    return oauthError('unsupported_grant_type', `grant_type ${grantType ?? '(none)'} is not supported`);
  }

  /** POST /2/auth/token/revoke with a valid bearer: the grant goes away (refresh token and its access tokens). */
  revoke(accessToken: string): FakeAnswer {
    const held = this.accessTokens.get(accessToken);
    if (held) held.grant.revoked = true;
    return json(null);
  }

  /**
   * The bearer check of an API request. Dropbox answers a missing or malformed Authorization header with a plain
   * 400, an unknown or revoked token with 401 invalid_access_token, an expired one with 401 expired_access_token,
   * and a token without the route's scope with 401 missing_scope.
   */
  authenticate(route: string, header: string | undefined, scope: string | null): { token: string } | { answer: FakeAnswer } {
    if (!header) return { answer: badInput(route, 'Must provide HTTP header "Authorization" or URL parameter "authorization".') };
    const match = /^Bearer (\S+)$/.exec(header);
    if (!match) return { answer: badInput(route, `Invalid authorization value in HTTP header "Authorization": "${header.split(' ')[0]}". Expecting "Bearer <oauth2-access-token>".`) };
    const token = match[1]!;
    const held = this.accessTokens.get(token);
    if (!held || held.grant.revoked) return { answer: endpointError({ '.tag': 'invalid_access_token' }, 401) };
    if (held.expiresAt <= Date.now()) return { answer: endpointError({ '.tag': 'expired_access_token' }, 401) };
    if (scope && !held.grant.scopes.includes(scope)) {
      return { answer: endpointError({ '.tag': 'missing_scope', required_scope: scope }, 401) };
    }
    return { token };
  }

  /** Tokens for a grant of these scopes without the browser dance (for tests that need a connection quickly). */
  issue(scopes: string[]): { accessToken: string; refreshToken: string } {
    const grant: Grant = { scopes, refreshToken: randomBytes(32).toString('base64url'), revoked: false, pkce: false };
    this.refreshTokens.set(grant.refreshToken!, grant);
    return { accessToken: this.mint(grant), refreshToken: grant.refreshToken! };
  }

  /** Every access token issued so far expires now (refresh tokens keep working). */
  expireAccessTokens(): void {
    for (const held of this.accessTokens.values()) held.expiresAt = 0;
  }

  /** The user disconnects the app at Dropbox: every grant, refresh token and access token stops working. */
  revokeAll(): void {
    for (const grant of this.refreshTokens.values()) grant.revoked = true;
    for (const held of this.accessTokens.values()) held.grant.revoked = true;
  }

  /** Authorization codes not yet used expire now. */
  expireCodes(): void {
    for (const code of this.codes.values()) code.expiresAt = 0;
  }

  /** Grants still alive (not revoked), for assertions. */
  get liveGrants(): number {
    const grants = new Set([...this.accessTokens.values()].map((held) => held.grant));
    for (const grant of this.refreshTokens.values()) grants.add(grant);
    return [...grants].filter((grant) => !grant.revoked).length;
  }

  private exchange(form: URLSearchParams, secret: boolean): FakeAnswer {
    const code = form.get('code') ?? '';
    const pending = this.codes.get(code);
    // Codes are single-use: the first exchange deletes it.
    this.codes.delete(code);
    if (!pending || pending.expiresAt <= Date.now()) return oauthError('invalid_grant', "code doesn't exist or has expired");
    if (form.get('redirect_uri') !== pending.redirectUri) return oauthError('invalid_grant', 'redirect_uri mismatch');
    const verifier = form.get('code_verifier');
    if (pending.challenge !== null) {
      if (!verifier) return oauthError('invalid_request', 'no code_verifier');
      const computed = pending.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
      if (computed !== pending.challenge) return oauthError('invalid_grant', 'invalid code verifier');
    } else if (!secret) {
      return oauthError('invalid_client', 'No auth function available for given request');
    }
    const grant: Grant = { ...pending.grant, refreshToken: pending.offline ? randomBytes(32).toString('base64url') : null, revoked: false };
    if (grant.refreshToken) this.refreshTokens.set(grant.refreshToken, grant);
    return json({
      access_token: this.mint(grant),
      token_type: 'bearer',
      expires_in: this.accessTokenTtlSeconds,
      scope: grant.scopes.join(' '),
      uid: '4242424242',
      account_id: FAKE_ACCOUNT_ID,
      ...(grant.refreshToken ? { refresh_token: grant.refreshToken } : {}),
    });
  }

  /** The app's credentials: from the form or HTTP Basic; `secret` says whether the secret was given (and right). */
  private client(form: URLSearchParams, authorization: string | undefined): { secret: boolean } | 'invalid' {
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      id = decoded.slice(0, colon);
      secret = decoded.slice(colon + 1);
    }
    if (id !== this.clientId) return 'invalid';
    if (secret !== null && secret !== this.clientSecret) return 'invalid';
    return { secret: secret !== null };
  }

  private mint(grant: Grant): string {
    const token = `sl.${randomBytes(32).toString('base64url')}`;
    this.accessTokens.set(token, { grant, expiresAt: Date.now() + this.accessTokenTtlSeconds * 1000 });
    return token;
  }
}

/** The fake account's id, as Dropbox names accounts. */
export const FAKE_ACCOUNT_ID = 'dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc';

/** Dropbox's token endpoint errors: 400 with `error` and `error_description`. */
function oauthError(error: string, description: string): FakeAnswer {
  return json({ error, error_description: description }, 400);
}
