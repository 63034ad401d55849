/**
 * The OAuth 2.1 authorization server of the hosted MCP resource: scopes, lifetimes, clients, requests and the
 * error family of RFC 6749. Decisions are in docs/oauth.md.
 */

/** Scopes a client can ask for (spec 5). */
export const OAUTH_SCOPES = ['mcp:read', 'mcp:write', 'offline_access'] as const;
/** One of OAUTH_SCOPES. */
export type OAuthScope = (typeof OAUTH_SCOPES)[number];
/** The scopes that grant use of MCP tools (as opposed to offline_access). */
export type McpScope = Extract<OAuthScope, `mcp:${string}`>;

/** What each scope allows, in plain words for the consent page. */
export const SCOPE_EXPLANATIONS: Readonly<Record<OAuthScope, string>> = {
  'mcp:read':
    'See the vaults you can reach, and search and read their notes, links, frontmatter, canvases and change history.',
  'mcp:write':
    'Propose changes to notes (creations, replacements and deletions) and apply changes you have approved. Vault switches, stale-hash checks and the trash still apply.',
  offline_access: 'Stay connected when you are away: the application may renew its access for up to 30 days without asking again.',
};

/** The scopes a request gets when it names none: everything MCP offers, but no refresh token (docs/oauth.md). */
export const DEFAULT_SCOPES: readonly OAuthScope[] = ['mcp:read', 'mcp:write'];

/** Spec 8: an authorization code lives five minutes and is used once. */
export const AUTHORIZATION_CODE_TTL_MS = 5 * 60_000;
/** Spec 8: an access token lives one hour. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60_000;
/** Spec 8: a refresh token lives up to 30 days and is replaced by every use. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60_000;

/** Error codes of RFC 6749 s4.1.2.1 and s5.2, RFC 7591 s3.2.2, RFC 8707 s2 and RFC 6750 s3.1. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * An OAuth protocol error. It crosses the wire as RFC 6749 JSON (`error`, `error_description`) at the token,
 * registration and revocation endpoints, or as redirect parameters, never as kgate problem JSON.
 */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** HTTP status at the endpoints that answer directly (400 unless RFC 6749 says otherwise). */
    readonly status: number = error === 'invalid_client' ? 401 : 400,
    /** For a 429: when to try again (the endpoint sends it as Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
  }
}

/** How a client is known. */
export type ClientKind = 'registered' | 'metadata_document';

/** A client as the authorization server trusts it: from registration or from its metadata document. */
export interface OAuthClient {
  clientId: string;
  kind: ClientKind;
  /** The name the client gave itself: a claim, shown as such on the consent page. */
  name: string | null;
  clientUri: string | null;
  logoUri: string | null;
  /** Exact strings; a request's redirect_uri must equal one of them character for character. */
  redirectUris: readonly string[];
  grantTypes: readonly string[];
}

/** A checked `/oauth/authorize` request, ready for the consent page. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  /** Where the redirect goes, for the consent page (the host, or the scheme of a native app's private-use URI). */
  redirectHost: string;
  /** True when the redirect goes to this computer (localhost): the consent page warns about it. */
  loopbackRedirect: boolean;
  /** Echoed unchanged on the redirect; absent when the client sent none. */
  state: string | undefined;
  scopes: readonly OAuthScope[];
  /** PKCE S256 challenge. */
  codeChallenge: string;
  /** Always the MCP resource: a request without `resource` means it. */
  resource: string;
}

/**
 * The outcome of checking an authorization request. Errors about the client or its redirect URI are shown on a
 * page and never redirected (an unverified redirect would make us an open redirector); the others go back to the
 * client's verified redirect URI.
 */
export type AuthorizationCheck =
  | { kind: 'valid'; request: AuthorizationRequest }
  | { kind: 'redirect_error'; redirectTo: string }
  | { kind: 'page_error'; error: OAuthErrorCode; description: string };

/**
 * A token request (RFC 6749 s4.1.3, s6) as the OAuth surface reads it from its form: each parameter at most once,
 * a grant type we support, a client_id and no client_secret. The grant checks the rest; a code, verifier or refresh
 * token that is absent is refused like a wrong one.
 */
export type TokenRequest = AuthorizationCodeTokenRequest | RefreshTokenRequest;

/** Redeems an authorization code with its PKCE verifier (OAuth 2.1 s4.1.3). */
export interface AuthorizationCodeTokenRequest {
  grantType: 'authorization_code';
  /** The public client, which identifies itself by its client_id alone. */
  clientId: string;
  code?: string;
  /** Must equal the redirect_uri of the authorization request. */
  redirectUri?: string;
  codeVerifier?: string;
  /** RFC 8707: may only repeat the resource the grant was made for. */
  resource?: string;
}

/** Redeems a refresh token, which is rotated (OAuth 2.1 s4.3). */
export interface RefreshTokenRequest {
  grantType: 'refresh_token';
  /** The public client, which identifies itself by its client_id alone. */
  clientId: string;
  refreshToken?: string;
  /** The new access token's scope (RFC 6749 s3.3); absent means the grant's. May narrow it, never widen it. */
  scope?: string;
  /** RFC 8707: may only repeat the resource the grant was made for. */
  resource?: string;
}

/** The JSON body of a successful token response (RFC 6749 s5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

/** One application an account has connected, for the connected-applications page. */
export interface ConnectedApplication {
  clientId: string;
  clientName: string | null;
  kind: ClientKind;
  /** Hosts the grants redirect to, for recognizing the application. */
  redirectHosts: readonly string[];
  scopes: readonly OAuthScope[];
  /** When the earliest active grant was approved. */
  grantedAt: Date;
  lastUsedAt: Date | null;
  /** How many approvals are active (one per device or sign-in of the client). */
  activeGrants: number;
}

/** The parts of an OAuth credential an access decision needs, carried on the principal. */
export interface OAuthCredential {
  clientId: string;
  grantId: string;
  scopes: readonly OAuthScope[];
}

/** True when `value` names a scope we know. */
export function isOAuthScope(value: string): value is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}
