import { z } from 'zod';
import type { Database } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { hasControlCharacters } from '../../../kernel/control-characters.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { MAX_RUNTIME_NAME_LENGTH, RUNTIME_SCOPES, RuntimeScopeSchema, type RuntimeScope } from '../contract.ts';
import { assertInstallationAdmin, assertPrincipalAdmin } from './admin-access.ts';
import type { CreatePrincipalInput, PrincipalInfo } from './contract.ts';
import * as store from './store.ts';

const ScopeListSchema = z.array(RuntimeScopeSchema).min(1).max(RUNTIME_SCOPES.length);

/** A principal's name: 1 to MAX_RUNTIME_NAME_LENGTH characters once trimmed, no control characters (it is shown). */
function validName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed.length === 0 || trimmed.length > MAX_RUNTIME_NAME_LENGTH || hasControlCharacters(trimmed)) {
    throw new KgateError('invalid_request', `A principal name has 1 to ${MAX_RUNTIME_NAME_LENGTH} characters and no control characters.`, {
      field: 'name',
    });
  }
  return trimmed;
}

/** At least one known scope, none twice; answered in the spec's order, so equal sets look equal. */
export function validScopes(scopes: unknown): RuntimeScope[] {
  const parsed = ScopeListSchema.safeParse(scopes);
  if (!parsed.success) {
    throw new KgateError('invalid_request', `Scopes are one or more of: ${RUNTIME_SCOPES.join(', ')}.`, { field: 'scopes' });
  }
  if (new Set(parsed.data).size !== parsed.data.length) {
    throw new KgateError('invalid_request', 'A scope is listed twice.', { field: 'scopes' });
  }
  return RUNTIME_SCOPES.filter((scope) => parsed.data.includes(scope));
}

/** Creating, listing and revoking an installation's service principals, by its organization's admins. */
export function createPrincipals(db: Database, clock: Clock) {
  return {
    /** Creates an active principal for an active installation. */
    async createPrincipal(actorAccountId: string, installationId: string, input: CreatePrincipalInput): Promise<PrincipalInfo> {
      const name = validName(input.name);
      const scopes = validScopes(input.scopes);
      return db.transaction(async (tx) => {
        const installation = await assertInstallationAdmin(tx, actorAccountId, installationId);
        // An uninstalled installation never comes back (a new installation is a new record): its principals could never work.
        if (installation.status !== 'active') throw new KgateError('conflict', 'The installation is uninstalled.');
        const now = clock.now();
        return store.insertPrincipal(tx, { id: newId(now.getTime()), installationId, name, scopes, now });
      });
    },

    /** An installation's principals, revoked ones included, newest first. */
    async listPrincipals(actorAccountId: string, installationId: string): Promise<PrincipalInfo[]> {
      await assertInstallationAdmin(db, actorAccountId, installationId);
      return store.listPrincipals(db, installationId);
    },

    /** Revokes a principal, which stops its tokens at once (principal_revoked); revoking twice is harmless. */
    async revokePrincipal(actorAccountId: string, principalId: string): Promise<PrincipalInfo> {
      return db.transaction(async (tx) => {
        await assertPrincipalAdmin(tx, actorAccountId, principalId);
        const current = await store.findPrincipalForUpdate(tx, principalId);
        if (!current) throw new KgateError('not_found', 'The service principal does not exist.');
        const now = clock.now();
        await store.revokePrincipal(tx, principalId, now);
        return current.status === 'revoked' ? current : { ...current, status: 'revoked', revokedAt: now };
      });
    },
  };
}
