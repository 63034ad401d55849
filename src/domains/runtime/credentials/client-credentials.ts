import type { Database, Sql } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { isUuid, newId } from '../../../kernel/ids.ts';
import { assertPrincipalAdmin } from './admin-access.ts';
import { CLIENT_SECRET_PREFIX, generateClientSecret } from './client-secrets.ts';
import { MAX_ACTIVE_CREDENTIALS_PER_PRINCIPAL, type AddPublicKeyInput, type CredentialInfo, type IssuedClientSecret } from './contract.ts';
import { registrablePublicKey } from './public-keys.ts';
import * as store from './store.ts';

/**
 * A principal's client credentials, managed by its organization's admins: secrets and public keys, several active at
 * once so that a product rotates without downtime (add the new one, move to it, revoke the old one).
 */

/** Locks the principal and refuses a credential it cannot take: revoked, or already at its bound of active credentials. */
async function assertCanTakeCredential(tx: Sql, principalId: string): Promise<void> {
  const principal = await store.findPrincipalForUpdate(tx, principalId);
  if (!principal) throw new KgateError('not_found', 'The service principal does not exist.');
  if (principal.status !== 'active') throw new KgateError('conflict', 'The service principal is revoked.');
  if ((await store.countActiveCredentials(tx, principalId)) >= MAX_ACTIVE_CREDENTIALS_PER_PRINCIPAL) {
    throw new KgateError('conflict', `A principal holds at most ${MAX_ACTIVE_CREDENTIALS_PER_PRINCIPAL} active credentials: revoke one first.`);
  }
}

/** Client credential use cases. */
export function createClientCredentials(db: Database, clock: Clock) {
  return {
    /** Adds a client secret; the secret is returned once and never stored. */
    async addClientSecret(actorAccountId: string, principalId: string): Promise<IssuedClientSecret> {
      return db.transaction(async (tx) => {
        await assertPrincipalAdmin(tx, actorAccountId, principalId);
        await assertCanTakeCredential(tx, principalId);
        const now = clock.now();
        const generated = generateClientSecret();
        const credentialId = newId(now.getTime());
        await store.insertClientSecret(tx, { id: credentialId, principalId, secretHash: generated.hash, lastFour: generated.lastFour, now });
        return { credentialId, secret: generated.secret };
      });
    },

    /** Registers a public key for private_key_jwt; its key id must be unique among the principal's active keys. */
    async addPublicKey(actorAccountId: string, principalId: string, input: AddPublicKeyInput): Promise<CredentialInfo> {
      const key = await registrablePublicKey(input);
      return db.transaction(async (tx) => {
        await assertPrincipalAdmin(tx, actorAccountId, principalId);
        await assertCanTakeCredential(tx, principalId);
        if (await store.activeKeyIdExists(tx, principalId, key.keyId)) {
          throw new KgateError('conflict', 'An active key of this principal already has this key id.', { field: 'keyId' });
        }
        const now = clock.now();
        return store.insertPublicKey(tx, { id: newId(now.getTime()), principalId, jwk: key.jwk, keyId: key.keyId, now }, CLIENT_SECRET_PREFIX);
      });
    },

    /** A principal's credentials, revoked ones included, newest first; never a secret. */
    async listCredentials(actorAccountId: string, principalId: string): Promise<CredentialInfo[]> {
      await assertPrincipalAdmin(db, actorAccountId, principalId);
      return store.listCredentials(db, principalId, CLIENT_SECRET_PREFIX);
    },

    /** Revokes a credential and deletes the tokens issued from it; revoking twice is harmless. */
    async revokeCredential(actorAccountId: string, credentialId: string): Promise<CredentialInfo> {
      const unknown = () => new KgateError('not_found', 'The credential does not exist.');
      if (!isUuid(credentialId)) throw unknown();
      return db.transaction(async (tx) => {
        const current = await store.findCredentialForUpdate(tx, credentialId, CLIENT_SECRET_PREFIX);
        if (!current) throw unknown();
        await assertPrincipalAdmin(tx, actorAccountId, current.principalId, 'The credential does not exist.');
        const now = clock.now();
        await store.revokeCredential(tx, credentialId, now);
        return current.status === 'revoked' ? current : { ...current, status: 'revoked', revokedAt: now };
      });
    },
  };
}
