/**
 * The fake Google authorization server: the consent redirect, the token endpoint (authorization code with PKCE S256,
 * refresh) and the revocation endpoint, with Google's rules: a refresh token only with `access_type=offline`, never
 * rotated on refresh; codes single-use and short-lived; `invalid_grant` for a bad code, verifier or a revoked grant;
 * revoking either token of a grant revokes the grant.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FakeAnswer } from './wire.ts';

/** Google's scope for full Drive access. */
export const DRIVE_SCOPE = 'https://www.googleapis.com/auth/drive';
/** Google's read-only Drive scope. */
export const DRIVE_READONLY_SCOPE = 'https://www.googleapis.com/auth/drive.readonly';
/** Google's per-file Drive scope: only files the app created or the user picked in Google Picker. */
export const DRIVE_FILE_SCOPE = 'https://www.googleapis.com/auth/drive.file';

/** What the simulated user does on the consent screen. */
export interface Consent {
  /** Refuse: the redirect carries `error=access_denied`. */
  deny?: boolean;
  /** Grant only these of the scopes asked for (Google's granular consent); default every scope asked for. */
  grantOnly?: string[];
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  offline: boolean;
  challenge: string | null;
  expiresAt: number;
}

interface Grant {
  scopes: string[];
  refreshToken: string | null;
  revoked: boolean;
}

interface AccessToken {
  grant: Grant;
  expiresAt: number;
}

/** Settings of the fake authorization server. */
export interface OAuthOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  accessTokenTtlSeconds: number;
  codeTtlSeconds: number;
  now: () => number;
}

const tokenError = (status: number, error: string, description: string): FakeAnswer => ({ status, json: { error, error_description: description } });

/** The fake authorization server's state and endpoints. */
export class FakeGoogleOAuth {
  consent: Consent = {};
  private readonly codes = new Map<string, PendingCode>();
  private readonly accessTokens = new Map<string, AccessToken>();
  private readonly refreshTokens = new Map<string, Grant>();

  constructor(readonly options: OAuthOptions) {}

  /** GET /o/oauth2/v2/auth: redirects as if the user answered the consent screen. */
  authorize(query: URLSearchParams): FakeAnswer {
    const { options } = this;
    // Google shows an error page (no redirect) for an unknown client or a redirect URI that is not registered.
    if (query.get('client_id') !== options.clientId) return { status: 401, raw: Buffer.from('Error 401: invalid_client') };
    const redirectUri = query.get('redirect_uri') ?? '';
    if (!options.redirectUris.includes(redirectUri)) return { status: 400, raw: Buffer.from('Error 400: redirect_uri_mismatch') };
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
    const method = query.get('code_challenge_method');
    const challenge = query.get('code_challenge');
    if (query.get('response_type') !== 'code' || scopes.length === 0 || (challenge !== null && method !== 'S256')) {
      back.searchParams.set('error', 'invalid_request');
      return redirect(back);
    }
    if (this.consent.deny) {
      back.searchParams.set('error', 'access_denied');
      return redirect(back);
    }
    const granted = this.consent.grantOnly ? scopes.filter((scope) => this.consent.grantOnly!.includes(scope)) : scopes;
    if (granted.length === 0) {
      back.searchParams.set('error', 'access_denied');
      return redirect(back);
    }
    const code = `4/0${randomBytes(24).toString('base64url')}`;
    this.codes.set(code, {
      clientId: options.clientId,
      redirectUri,
      scopes: granted,
      offline: query.get('access_type') === 'offline',
      challenge,
      expiresAt: options.now() + options.codeTtlSeconds * 1000,
    });
    back.searchParams.set('code', code);
    back.searchParams.set('scope', granted.join(' '));
    return redirect(back);
  }

  /** POST /token (form-encoded): authorization_code and refresh_token grants. */
  token(form: URLSearchParams, basic: { id: string; secret: string } | null): FakeAnswer {
    const clientId = basic?.id ?? form.get('client_id');
    const clientSecret = basic?.secret ?? form.get('client_secret');
    if (clientId !== this.options.clientId || clientSecret !== this.options.clientSecret) {
      return tokenError(401, 'invalid_client', 'Unauthorized');
    }
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') return this.exchange(form);
    if (grantType === 'refresh_token') return this.refresh(form);
    return tokenError(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType ?? ''}`);
  }

  /** POST /revoke: `token` is an access or refresh token; either revokes the whole grant. */
  revoke(token: string | null): FakeAnswer {
    const grant = token === null ? undefined : (this.refreshTokens.get(token) ?? this.accessTokens.get(token)?.grant);
    if (!grant || grant.revoked) return tokenError(400, 'invalid_token', 'Token expired or revoked');
    grant.revoked = true;
    return { status: 200, json: {} };
  }

  /** The grant behind a bearer token, or why it is refused. */
  check(token: string): { scopes: string[] } | 'unknown' | 'expired' {
    const access = this.accessTokens.get(token);
    if (!access || access.grant.revoked) return 'unknown';
    if (access.expiresAt <= this.options.now()) return 'expired';
    return { scopes: access.grant.scopes };
  }

  /** Issues a grant without the browser (for tests that are not about OAuth). */
  issue(scopes: string[], offline = true): { accessToken: string; refreshToken: string | null } {
    const grant: Grant = { scopes, refreshToken: offline ? `1//0${randomBytes(32).toString('base64url')}` : null, revoked: false };
    if (grant.refreshToken) this.refreshTokens.set(grant.refreshToken, grant);
    return { accessToken: this.newAccessToken(grant), refreshToken: grant.refreshToken };
  }

  /** Every access token issued so far is expired (refresh tokens stay valid). */
  expireAccessTokens(): void {
    for (const access of this.accessTokens.values()) access.expiresAt = this.options.now() - 1;
  }

  /** The user removed the app's access: every grant is revoked. */
  revokeAll(): void {
    for (const grant of this.refreshTokens.values()) grant.revoked = true;
    for (const access of this.accessTokens.values()) access.grant.revoked = true;
  }

  /** Whether any grant is still alive (for assertions after a disconnect). */
  activeGrants(): number {
    const grants = new Set([...this.refreshTokens.values(), ...[...this.accessTokens.values()].map((access) => access.grant)]);
    return [...grants].filter((grant) => !grant.revoked).length;
  }

  private exchange(form: URLSearchParams): FakeAnswer {
    const code = form.get('code') ?? '';
    const pending = this.codes.get(code);
    // Single use: the code is gone whatever happens next.
    this.codes.delete(code);
    if (!pending || pending.expiresAt <= this.options.now()) return tokenError(400, 'invalid_grant', 'Bad Request');
    if (form.get('redirect_uri') !== pending.redirectUri) return tokenError(400, 'redirect_uri_mismatch', 'Bad Request');
    if (pending.challenge !== null) {
      const verifier = form.get('code_verifier');
      if (!verifier) return tokenError(400, 'invalid_grant', 'Missing code verifier.');
      if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) {
        return tokenError(400, 'invalid_grant', 'Invalid code verifier.');
      }
    }
    const { accessToken, refreshToken } = this.issue(pending.scopes, pending.offline);
    return {
      status: 200,
      json: {
        access_token: accessToken,
        expires_in: this.options.accessTokenTtlSeconds,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        scope: pending.scopes.join(' '),
        token_type: 'Bearer',
      },
    };
  }

  private refresh(form: URLSearchParams): FakeAnswer {
    const grant = this.refreshTokens.get(form.get('refresh_token') ?? '');
    if (!grant || grant.revoked) return tokenError(400, 'invalid_grant', 'Token has been expired or revoked.');
    // Google keeps the refresh token: the answer carries none, and earlier access tokens live until they expire.
    return {
      status: 200,
      json: { access_token: this.newAccessToken(grant), expires_in: this.options.accessTokenTtlSeconds, scope: grant.scopes.join(' '), token_type: 'Bearer' },
    };
  }

  private newAccessToken(grant: Grant): string {
    const token = `ya29.${randomBytes(32).toString('base64url')}`;
    this.accessTokens.set(token, { grant, expiresAt: this.options.now() + this.options.accessTokenTtlSeconds * 1000 });
    return token;
  }
}

function redirect(location: URL): FakeAnswer {
  return { status: 302, headers: { location: location.toString() } };
}
