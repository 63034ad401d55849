import type { RuntimeScope } from '../contract.ts';

/**
 * Service principals, their client credentials and the Product Runtime token endpoint (docs/runtime.md, "Credential
 * issuance"): what crosses this module's boundary.
 */

/** RFC 7523 section 2.2: the client assertion type of private_key_jwt. */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The signature algorithms a registered key may sign client assertions with; never `none` nor a MAC (HS*). */
export const ASSERTION_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
/** One of ASSERTION_ALGORITHMS. */
export type AssertionAlgorithm = (typeof ASSERTION_ALGORITHMS)[number];

/** Smallest RSA modulus a registered key may have, in bits (NIST SP 800-57: 2048 bits for 112-bit security). */
export const MIN_RSA_MODULUS_BITS = 2048;
/** Largest RSA modulus accepted: bounds the cost of one verification. */
export const MAX_RSA_MODULUS_BITS = 8192;
/**
 * Active credentials a principal may hold at once: enough for rotation (old and new side by side), and it bounds the
 * keys an assertion without `kid` is tried against.
 */
export const MAX_ACTIVE_CREDENTIALS_PER_PRINCIPAL = 10;
/** Longest key id accepted, registered or in an assertion's header. */
export const MAX_KEY_ID_LENGTH = 200;
/** RFC 7523 section 3: an assertion's `exp` may be at most this far ahead (docs/runtime.md: five minutes). */
export const MAX_ASSERTION_LIFETIME_SECONDS = 5 * 60;
/** Clock skew allowed on an assertion's `exp`, `nbf` and `iat`, between the client's clock and ours. */
export const ASSERTION_CLOCK_SKEW_SECONDS = 30;
/** Longest `jti` accepted: it is stored until the assertion expires. */
export const MAX_JTI_LENGTH = 256;

/** A service principal as its organization's admins see it. */
export interface PrincipalInfo {
  id: string;
  installationId: string;
  name: string;
  scopes: RuntimeScope[];
  status: 'active' | 'revoked';
  createdAt: Date;
  revokedAt: Date | null;
}

/** Input of createPrincipal. `scopes` is checked against RuntimeScopeSchema: at least one, none twice. */
export interface CreatePrincipalInput {
  name: string;
  scopes: readonly string[];
}

/** A client credential as listed: never the secret, only what identifies it. */
export interface CredentialInfo {
  id: string;
  principalId: string;
  kind: 'client_secret' | 'public_key';
  /** For a secret: `kgcs_…` and its last four characters. */
  display: string | null;
  /** For a public key: the `kid` an assertion names it by (the JWK's own `kid`, or its RFC 7638 thumbprint). */
  keyId: string | null;
  /** For a public key: the public JWK as registered (public members only). */
  publicJwk: Record<string, unknown> | null;
  status: 'active' | 'revoked';
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A new client secret: shown once, stored as its SHA-256 only. */
export interface IssuedClientSecret {
  credentialId: string;
  secret: string;
}

/** Input of addPublicKey. */
export interface AddPublicKeyInput {
  /** A public JWK (RSA of at least 2048 bits, EC P-256 or OKP Ed25519); private members are refused. */
  jwk: unknown;
  /** The `kid` assertions will name; default the JWK's `kid`, else its RFC 7638 thumbprint. */
  keyId?: string;
}

/** RFC 6749 section 5.1 answer of the Product Runtime token endpoint. */
export interface RuntimeTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** RFC 6749 section 5.2 error codes the token endpoint answers (docs/runtime.md). */
export type RuntimeOAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'unauthorized_client';

const STATUS: Readonly<Record<RuntimeOAuthErrorCode, number>> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  invalid_scope: 400,
  unsupported_grant_type: 400,
  unauthorized_client: 403,
};

/**
 * A refusal of the token endpoint, crossing the wire as RFC 6749 JSON (`error`, `error_description`) with `status`,
 * and `WWW-Authenticate` when the client authenticated with HTTP Basic (RFC 6749 section 5.2).
 */
export class RuntimeOAuthError extends Error {
  override readonly name = 'RuntimeOAuthError';
  readonly status: number;
  /** The challenge to send with a 401 when the client used HTTP Basic. */
  readonly wwwAuthenticate?: string;

  constructor(
    readonly error: RuntimeOAuthErrorCode,
    readonly error_description: string,
    options: { status?: number; wwwAuthenticate?: string } = {},
  ) {
    super(error_description);
    this.status = options.status ?? STATUS[error];
    if (options.wwwAuthenticate !== undefined) this.wwwAuthenticate = options.wwwAuthenticate;
  }
}
