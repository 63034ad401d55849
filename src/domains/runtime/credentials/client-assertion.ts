import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWK, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import type { Sql } from '../../../db/port.ts';
import { isUuid } from '../../../kernel/ids.ts';
import { invalidClient } from './client-authentication.ts';
import {
  ASSERTION_ALGORITHMS,
  ASSERTION_CLOCK_SKEW_SECONDS,
  MAX_ASSERTION_LIFETIME_SECONDS,
  MAX_JTI_LENGTH,
  MAX_KEY_ID_LENGTH,
  type AssertionAlgorithm,
} from './contract.ts';
import { algorithmsOf } from './public-keys.ts';
import * as store from './store.ts';

/** A client assertion whose signature and claims are good; its jti is not yet recorded (the grant does that). */
export interface VerifiedAssertion {
  principalId: string;
  credentialId: string;
  jti: string;
  /** Until when the jti must be remembered: the assertion's `exp` plus the skew it is accepted with. */
  replayableUntil: Date;
}

const refuse = (description: string) => invalidClient('private_key_jwt', description);
// One answer for everything that fails before a registered key vouches for the assertion: an unknown client, no
// matching key, a bad signature. The caller learns nothing about which principals or keys exist.
const UNVERIFIED = 'The client assertion is not signed by an active key of this client.';

function isAssertionAlgorithm(alg: unknown): alg is AssertionAlgorithm {
  return (ASSERTION_ALGORITHMS as readonly unknown[]).includes(alg);
}

/** The header and unverified claims, only to choose the principal and its keys; nothing here is trusted yet. */
function inspect(assertion: string): { alg: AssertionAlgorithm; kid: string | undefined; claims: JWTPayload } {
  let header: ProtectedHeaderParameters;
  let claims: JWTPayload;
  try {
    header = decodeProtectedHeader(assertion);
    claims = decodeJwt(assertion);
  } catch {
    throw refuse('The client assertion is not a signed JWT.');
  }
  // RFC 8725 section 3.1: `none` and MACs (HS*, keyed with something the server also holds) are never accepted.
  if (!isAssertionAlgorithm(header.alg)) throw refuse(`The client assertion must be signed with ${ASSERTION_ALGORITHMS.join(', ')}.`);
  if (header.kid !== undefined && (typeof header.kid !== 'string' || header.kid.length > MAX_KEY_ID_LENGTH)) throw refuse(UNVERIFIED);
  return { alg: header.alg, kid: header.kid, claims };
}

/** Why a signed assertion's claims are refused, in words that help the client's developer. */
function claimProblem(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  const claim = (error as { claim?: unknown }).claim;
  if (code === 'ERR_JWT_EXPIRED') return 'The client assertion has expired.';
  if (code !== 'ERR_JWT_CLAIM_VALIDATION_FAILED') return undefined;
  if (claim === 'aud') return 'The client assertion audience (aud) must be the token endpoint URL.';
  if (claim === 'iss' || claim === 'sub') return 'The client assertion issuer (iss) and subject (sub) must both be the client_id.';
  if (claim === 'nbf') return 'The client assertion is not valid yet (nbf).';
  return `The client assertion claim ${typeof claim === 'string' ? claim : ''} is missing or invalid.`;
}

/** The checks jose leaves to us: exp at most five minutes ahead, iat not in the future, a bounded jti. */
function checkLifetime(claims: JWTPayload, nowSeconds: number): { jti: string; exp: number } {
  const exp = claims.exp!;
  if (exp > nowSeconds + MAX_ASSERTION_LIFETIME_SECONDS + ASSERTION_CLOCK_SKEW_SECONDS) {
    throw refuse(`The client assertion expires too far ahead: at most ${MAX_ASSERTION_LIFETIME_SECONDS} seconds.`);
  }
  if (claims.iat !== undefined && claims.iat > nowSeconds + ASSERTION_CLOCK_SKEW_SECONDS) throw refuse('The client assertion was issued in the future (iat).');
  const jti = claims.jti;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) {
    throw refuse(`The client assertion needs a jti of 1 to ${MAX_JTI_LENGTH} characters.`);
  }
  return { jti, exp };
}

/**
 * Verifies a private_key_jwt client assertion (RFC 7523 section 2.2 and 3) against the principal's active public keys:
 * the header's `kid` picks among them, and without one each key that verifies the algorithm is tried. `iss` and `sub`
 * must be the client id, `aud` the token endpoint's URL, `exp` present and at most five minutes ahead, `nbf` and
 * `iat` honoured with ASSERTION_CLOCK_SKEW_SECONDS of skew, and `jti` present. Throws invalid_client.
 */
export async function verifyClientAssertion(
  sql: Sql,
  request: { clientId: string | undefined; assertion: string },
  options: { audience: string; now: Date },
): Promise<VerifiedAssertion> {
  const { alg, kid, claims } = inspect(request.assertion);
  // RFC 7523 section 3: with client_id absent, the assertion's subject names the client.
  const principalId = request.clientId ?? claims.sub;
  if (typeof principalId !== 'string' || !isUuid(principalId)) throw refuse(UNVERIFIED);
  const keys = (await store.activeCredentials(sql, principalId, 'public_key', options.now)).filter(
    (key) => key.public_jwk !== null && (kid === undefined || key.key_id === kid) && algorithmsOf(key.public_jwk).includes(alg),
  );
  for (const key of keys) {
    let payload: JWTPayload;
    try {
      const verified = await jwtVerify(request.assertion, await importJWK(key.public_jwk as JWK, alg), {
        algorithms: [alg],
        issuer: principalId,
        subject: principalId,
        audience: options.audience,
        requiredClaims: ['exp', 'jti'],
        clockTolerance: ASSERTION_CLOCK_SKEW_SECONDS,
        currentDate: options.now,
      });
      payload = verified.payload;
    } catch (error) {
      // jose checks the signature before the claims: a claim problem means this key signed it.
      const problem = claimProblem(error);
      if (problem) throw refuse(problem);
      continue;
    }
    const { jti, exp } = checkLifetime(payload, Math.floor(options.now.getTime() / 1000));
    return { principalId, credentialId: key.id, jti, replayableUntil: new Date((exp + ASSERTION_CLOCK_SKEW_SECONDS) * 1000) };
  }
  throw refuse(UNVERIFIED);
}
