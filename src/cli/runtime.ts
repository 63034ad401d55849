import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../config.ts';
import { createServices, type Services } from '../app/services.ts';
import { openDatabase, type OpenedDatabase } from '../app/database.ts';
import type { Actor } from '../kernel/principal.ts';

/** The example vault that bootstrap seeds. */
export const EXAMPLE_VAULT_DIR = fileURLToPath(new URL('../../examples/vault/', import.meta.url));

/** A command's view of the process: config, an open database and the services over it. */
export interface CommandRuntime {
  config: Config;
  opened: OpenedDatabase;
  services: Services;
}

/** Opens config, database and services for one CLI command, runs `work`, and always closes the database. */
export async function withRuntime<T>(command: string, work: (runtime: CommandRuntime) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const opened = await openDatabase(config, command);
  try {
    return await work({ config, opened, services: createServices(opened.db) });
  } finally {
    await opened.close();
  }
}

/** The operator at the command line acts as the owner of the mapping named on the command line. */
export async function operatorFor(services: Services, mappingId: string): Promise<Actor> {
  const mapping = await services.vaults.findMappingAsOperator(mappingId);
  return { accountId: mapping.ownerAccountId, credentialKind: 'operator', client: 'kgate-cli' };
}
