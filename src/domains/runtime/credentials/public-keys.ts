import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { calculateJwkThumbprint, importJWK, type JWK } from 'jose';
import { hasControlCharacters } from '../../../kernel/control-characters.ts';
import { KgateError } from '../../../kernel/errors.ts';
import {
  MAX_KEY_ID_LENGTH,
  MAX_RSA_MODULUS_BITS,
  MIN_RSA_MODULUS_BITS,
  type AddPublicKeyInput,
  type AssertionAlgorithm,
} from './contract.ts';

/**
 * Public keys for private_key_jwt (RFC 7523): what may be registered, and which algorithms each key verifies.
 * Registration keeps only the public members, so a stored key can be shown to anyone who may list it.
 */

// RFC 7518 section 6: the private members of RSA, EC and OKP keys, and of symmetric keys ("k").
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
// A public JWK is a few hundred bytes (an 8192-bit RSA modulus is 1,366 characters); anything far larger is not one.
const MAX_JWK_JSON_LENGTH = 16 * 1024;

/** The algorithms each key type may sign assertions with. */
const ALGORITHMS_BY_KEY_TYPE: Readonly<Record<string, readonly AssertionAlgorithm[]>> = {
  RSA: ['RS256', 'PS256'],
  EC: ['ES256'],
  OKP: ['EdDSA'],
};
// The one curve each elliptic key type may use: ES256 is P-256 only; EdDSA here is Ed25519 only.
const CURVE_BY_KEY_TYPE: Readonly<Record<string, string>> = { EC: 'P-256', OKP: 'Ed25519' };
// The public members of each key type, in RFC 7638 order; nothing else is stored.
const PUBLIC_MEMBERS: Readonly<Record<string, readonly string[]>> = { RSA: ['e', 'n'], EC: ['crv', 'x', 'y'], OKP: ['crv', 'x'] };

const refuse = (message: string) => new KgateError('invalid_request', message, { field: 'jwk' });

/** The algorithms a stored key verifies: its `alg` when it was registered with one, else every one of its type. */
export function algorithmsOf(jwk: Readonly<Record<string, unknown>>): readonly AssertionAlgorithm[] {
  const byType = ALGORITHMS_BY_KEY_TYPE[String(jwk.kty)] ?? [];
  return typeof jwk.alg === 'string' ? byType.filter((alg) => alg === jwk.alg) : byType;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The public JWK to store: its type's public members only, and its `alg` if it named one we accept. */
function publicMembersOf(jwk: Record<string, unknown>): Record<string, unknown> {
  const kty = jwk.kty;
  if (typeof kty !== 'string' || !ALGORITHMS_BY_KEY_TYPE[kty]) throw refuse('The key type (kty) must be RSA, EC (P-256) or OKP (Ed25519).');
  const curve = CURVE_BY_KEY_TYPE[kty];
  if (curve !== undefined && jwk.crv !== curve) throw refuse(`A ${kty} key must be on the curve ${curve}.`);
  if (jwk.use !== undefined && jwk.use !== 'sig') throw refuse('The key must be for signatures (use "sig").');
  if (jwk.alg !== undefined && !ALGORITHMS_BY_KEY_TYPE[kty].includes(jwk.alg as AssertionAlgorithm)) {
    throw refuse(`A ${kty} key signs with ${ALGORITHMS_BY_KEY_TYPE[kty].join(' or ')}.`);
  }
  const stored: Record<string, unknown> = { kty };
  for (const member of PUBLIC_MEMBERS[kty]!) {
    if (typeof jwk[member] !== 'string' || jwk[member] === '') throw refuse(`The key lacks its "${member}" member.`);
    stored[member] = jwk[member];
  }
  if (jwk.alg !== undefined) stored.alg = jwk.alg;
  return stored;
}

/** Checks that the members make a usable key of an accepted size. */
async function assertUsableKey(stored: Record<string, unknown>): Promise<void> {
  let details;
  try {
    details = createPublicKey({ key: stored as JsonWebKey, format: 'jwk' }).asymmetricKeyDetails;
    // Importing for each algorithm proves the key verifies what it will be asked to.
    for (const alg of algorithmsOf(stored)) await importJWK(stored as JWK, alg);
  } catch {
    throw refuse('The key is not a valid public key.');
  }
  if (stored.kty === 'RSA') {
    const bits = details?.modulusLength ?? 0;
    if (bits < MIN_RSA_MODULUS_BITS || bits > MAX_RSA_MODULUS_BITS) {
      throw refuse(`An RSA key has ${MIN_RSA_MODULUS_BITS} to ${MAX_RSA_MODULUS_BITS} bits.`);
    }
  }
}

function validKeyId(keyId: unknown): string {
  if (typeof keyId !== 'string' || keyId.length === 0 || keyId.length > MAX_KEY_ID_LENGTH || hasControlCharacters(keyId)) {
    throw new KgateError('invalid_request', `A key id has 1 to ${MAX_KEY_ID_LENGTH} characters and no control characters.`, { field: 'keyId' });
  }
  return keyId;
}

/**
 * Checks a key offered for registration: a JSON object with no private member, of an accepted type, curve, size and
 * algorithm, that imports as a public key. Answers what to store and the key id assertions will name it by (the
 * given one, else the JWK's `kid`, else its RFC 7638 thumbprint).
 */
export async function registrablePublicKey(input: AddPublicKeyInput): Promise<{ jwk: Record<string, unknown>; keyId: string }> {
  const { jwk } = input;
  if (!isPlainObject(jwk)) throw refuse('The key must be a JWK: a JSON object.');
  if (JSON.stringify(jwk).length > MAX_JWK_JSON_LENGTH) throw refuse('The key is too large to be a public JWK.');
  const privateMember = PRIVATE_MEMBERS.find((member) => Object.hasOwn(jwk, member));
  if (privateMember) throw refuse(`The key holds the private member "${privateMember}": register the public key only.`);
  const stored = publicMembersOf(jwk);
  await assertUsableKey(stored);
  const keyId = input.keyId ?? jwk.kid ?? (await calculateJwkThumbprint(stored, 'sha256'));
  return { jwk: stored, keyId: validKeyId(keyId) };
}
