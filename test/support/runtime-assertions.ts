import { randomUUID } from 'node:crypto';
import { SignJWT, base64url, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

/** Client assertions (RFC 7523) and the keys that sign them, for tests of private_key_jwt. */

/** A key pair with its public JWK, as a product would register it. */
export interface TestKeyPair {
  alg: 'RS256' | 'PS256' | 'ES256' | 'EdDSA';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** A fresh key pair for an algorithm. */
export async function testKeyPair(alg: TestKeyPair['alg']): Promise<TestKeyPair> {
  const pair = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
  return { alg, privateKey: pair.privateKey, publicJwk: await exportJWK(pair.publicKey) };
}

/** Claims and header of an assertion; defaults make a valid one for `clientId` at `audience`, signed now. */
export interface AssertionClaims {
  clientId: string;
  audience: string;
  /** Seconds since the epoch the assertion is made at (the service's clock). */
  now: number;
  kid?: string;
  iss?: string;
  sub?: string;
  aud?: string | string[];
  /** Seconds after `now`; null for no exp. */
  expiresIn?: number | null;
  iat?: number;
  nbf?: number;
  /** null for no jti. */
  jti?: string | null;
}

/** Signs a client assertion with the key pair (its algorithm). */
export async function signAssertion(key: Pick<TestKeyPair, 'alg' | 'privateKey'>, claims: AssertionClaims): Promise<string> {
  const payload: Record<string, unknown> = {
    iss: claims.iss ?? claims.clientId,
    sub: claims.sub ?? claims.clientId,
    aud: claims.aud ?? claims.audience,
    iat: claims.iat ?? claims.now,
  };
  if (claims.expiresIn !== null) payload.exp = claims.now + (claims.expiresIn ?? 60);
  if (claims.nbf !== undefined) payload.nbf = claims.nbf;
  if (claims.jti !== null) payload.jti = claims.jti ?? randomUUID();
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, ...(claims.kid ? { kid: claims.kid } : {}) }).sign(key.privateKey);
}

/** An unsecured JWT (`alg: none`, RFC 7519 section 6) with the claims of a valid assertion. */
export function unsecuredAssertion(claims: AssertionClaims): string {
  const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
  const payload = { iss: claims.clientId, sub: claims.clientId, aud: claims.audience, iat: claims.now, exp: claims.now + 60, jti: randomUUID() };
  return `${encode({ alg: 'none' })}.${encode(payload)}.`;
}
