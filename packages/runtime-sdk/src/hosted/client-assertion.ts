/**
 * RFC 7523 section 2.2 client assertions for `private_key_jwt`, signed with node:crypto: a JWT with
 * iss = sub = client_id, aud = the token endpoint's URL, a 60-second lifetime and a random jti (used once).
 */
import { KeyObject, constants, createPrivateKey, randomUUID, sign, type JsonWebKey } from 'node:crypto';

/** The signature algorithms the token endpoint accepts (docs/runtime.md, "Credential issuance"). */
export type AssertionAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

/** Lifetime of an assertion: the server accepts at most five minutes ahead; one minute is plenty for one request. */
export const ASSERTION_LIFETIME_SECONDS = 60;

const base64url = (bytes: Buffer | string): string => Buffer.from(bytes).toString('base64url');

/** The private key as a KeyObject, checked to fit `alg`; throws a TypeError for a key that cannot sign with it. */
export function assertionKey(privateKey: KeyObject | JsonWebKey, alg: AssertionAlgorithm): KeyObject {
  let key: KeyObject;
  if (privateKey instanceof KeyObject) {
    key = privateKey;
  } else {
    try {
      key = createPrivateKey({ key: privateKey, format: 'jwk' });
    } catch {
      throw new TypeError('credentials.privateKey is not a private JWK that node:crypto can read.');
    }
  }
  if (key.type !== 'private') throw new TypeError('credentials.privateKey must be a private key.');
  const type = key.asymmetricKeyType;
  const fits =
    (alg === 'RS256' && type === 'rsa') ||
    (alg === 'PS256' && (type === 'rsa' || type === 'rsa-pss')) ||
    (alg === 'ES256' && type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') ||
    (alg === 'EdDSA' && type === 'ed25519');
  if (!fits) throw new TypeError(`credentials.alg ${alg} does not fit a ${type ?? 'unknown'} key (RS256 and PS256: RSA; ES256: P-256; EdDSA: Ed25519).`);
  return key;
}

/** Signs a new client assertion for one token request. */
export function clientAssertion(input: { clientId: string; tokenUrl: string; key: KeyObject; alg: AssertionAlgorithm; keyId?: string; nowSeconds: number }): string {
  const header = { alg: input.alg, typ: 'JWT', ...(input.keyId !== undefined ? { kid: input.keyId } : {}) };
  const payload = {
    iss: input.clientId,
    sub: input.clientId,
    aud: input.tokenUrl,
    iat: input.nowSeconds,
    exp: input.nowSeconds + ASSERTION_LIFETIME_SECONDS,
    jti: randomUUID(),
  };
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  const data = Buffer.from(signingInput, 'ascii');
  let signature: Buffer;
  switch (input.alg) {
    case 'RS256':
      signature = sign('sha256', data, { key: input.key, padding: constants.RSA_PKCS1_PADDING });
      break;
    case 'PS256':
      signature = sign('sha256', data, { key: input.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
      break;
    case 'ES256':
      // JWS (RFC 7518 section 3.4) wants the raw r || s form, not DER.
      signature = sign('sha256', data, { key: input.key, dsaEncoding: 'ieee-p1363' });
      break;
    case 'EdDSA':
      signature = sign(null, data, input.key);
      break;
  }
  return `${signingInput}.${base64url(signature)}`;
}
