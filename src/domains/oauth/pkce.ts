import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../../kernel/hashing.ts';

// RFC 7636 s4.1-4.2: a verifier is 43 to 128 unreserved characters; an S256 challenge is 43 base64url characters.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** True when a code_challenge has the shape of an S256 challenge. */
export function isS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

/** True when `verifier` is well-formed and its S256 transform equals `challenge` (compared in constant time). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return constantTimeEqual(createHash('sha256').update(verifier, 'ascii').digest('base64url'), challenge);
}
