import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/app/services.ts';
import type { Actor } from '../../src/kernel/principal.ts';
import type { HostedMapping } from '../../src/domains/vaults/index.ts';

/** An owner with a workspace, a hosted vault and a token, made through the real onboarding service. */
export interface Owner {
  email: string;
  accountId: string;
  workspaceId: string;
  mapping: HostedMapping;
  token: string;
  /** The owner acting as themselves through their token. */
  actor: Actor;
}

/** Creates a new owner with a unique email. */
export async function createOwner(services: Services, label = 'owner'): Promise<Owner> {
  const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
  const result = await services.onboarding.bootstrapOwner({ email });
  const principal = await services.tokens.authenticate(result.token);
  return {
    email,
    accountId: result.accountId,
    workspaceId: result.workspaceId,
    mapping: result.mapping,
    token: result.token,
    actor: principal.actor,
  };
}

/** Every row of the tables a write may touch, for "nothing changed" assertions. */
export async function snapshotTables(services: { query: (sql: string) => Promise<unknown[]> }): Promise<string> {
  const tables = ['notes', 'trash_entries', 'provenance_events'];
  const parts: unknown[] = [];
  for (const table of tables) parts.push(await services.query(`SELECT * FROM ${table} ORDER BY 1`));
  return JSON.stringify(parts);
}
