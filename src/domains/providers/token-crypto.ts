import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KgateError } from '../../kernel/errors.ts';

/**
 * Provider tokens at rest: AES-256-GCM (node:crypto) under keys from the environment, never in the database. An
 * envelope names its key, so keys rotate without a flag day: the first key seals, every listed key opens, and a
 * sealed value is re-sealed under the first key whenever it is written again (docs/providers.md, "Token keys").
 * The associated data binds an envelope to its row and column, so a ciphertext copied to another connection or field
 * does not open.
 */

/** One key: its id (named in envelopes) and 32 bytes. */
export interface TokenKey {
  id: string;
  key: Buffer;
}

/** Seals and opens token envelopes. */
export interface TokenSealer {
  /** The id of the key new envelopes are sealed under. */
  readonly currentKeyId: string;
  seal(plaintext: string, context: string): string;
  /** Throws when the envelope is malformed, sealed under an unknown key, or was tampered with or moved. */
  open(envelope: string, context: string): string;
  /** The key id an envelope names (to find values still sealed under a retired key). */
  keyIdOf(envelope: string): string | undefined;
}

const VERSION = 'v1';
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Reads the keys setting: a comma-separated list of `id:base64` entries, each a 32-byte key; the first seals. Throws a
 * plain Error naming what is wrong (the configuration reports it), never echoing key material.
 */
export function parseTokenKeys(setting: string): TokenKey[] {
  const keys = setting
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, index) => {
      const colon = entry.indexOf(':');
      const id = colon > 0 ? entry.slice(0, colon) : '';
      if (!KEY_ID.test(id)) throw new Error(`key ${index + 1} needs an id of letters, digits, - or _ before a colon`);
      const key = Buffer.from(entry.slice(colon + 1), 'base64');
      if (key.length !== 32) throw new Error(`key "${id}" must be 32 bytes, base64-encoded`);
      return { id, key };
    });
  if (keys.length === 0) throw new Error('at least one key is needed');
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new Error('key ids must be distinct');
  return keys;
}

/** Builds a sealer over the keys; the first one seals. */
export function createTokenSealer(keys: readonly TokenKey[]): TokenSealer {
  const current = keys[0];
  if (!current) throw new Error('at least one token key is needed');
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  const damaged = () => new KgateError('internal', 'A stored provider token could not be opened.');
  return {
    currentKeyId: current.id,
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, current.id, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(envelope, context) {
      const [version, keyId, iv, sealed, tag, ...rest] = envelope.split('.');
      if (version !== VERSION || rest.length > 0 || !keyId || iv === undefined || sealed === undefined || tag === undefined) throw damaged();
      const key = byId.get(keyId);
      if (!key) throw new KgateError('internal', `A stored provider token is sealed under key "${keyId}", which is not configured.`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw damaged();
      }
    },
    keyIdOf(envelope) {
      const [version, keyId] = envelope.split('.');
      return version === VERSION ? keyId : undefined;
    },
  };
}
