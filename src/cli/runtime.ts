import { loadConfig, type Config } from '../config.ts';
import { createServices, type Services } from '../app/services.ts';
import { openDatabase } from '../app/database.ts';
import { gatewayRuntime } from './console.ts';
import type { Actor } from '../kernel/principal.ts';
import { packageFile } from '../kernel/package-files.ts';

/** The example vault that bootstrap seeds. */
export const EXAMPLE_VAULT_DIR = packageFile('examples', 'vault');

/** A command's view of the process: config and the services over an open database. */
export interface CommandRuntime {
  config: Config;
  services: Services;
  /** True when the database is the command's own; false inside a gateway, whose requests share it. */
  ownDatabase: boolean;
}

/**
 * Opens config, database and services for one CLI command, runs `work`, and always closes the database. A command
 * that came through a running gateway's control channel (control-channel.ts) uses the gateway's own instead.
 */
export async function withRuntime<T>(command: string, work: (runtime: CommandRuntime) => Promise<T>): Promise<T> {
  const gateway = gatewayRuntime();
  if (gateway) return work({ ...gateway, ownDatabase: false });
  const config = loadConfig();
  const opened = await openDatabase(config, command);
  try {
    // The command stores what a gateway would under the same settings (the vault's ceiling of files, for an import).
    const services = createServices(opened.db, undefined, {
      publicBase: () => config.baseUrl ?? 'http://localhost:8787',
      vaultFileBytes: config.vaultFileBytes,
    });
    return await work({ config, services, ownDatabase: true });
  } finally {
    await opened.close();
  }
}

/** The operator at the command line acts as the owner of the mapping named on the command line. */
export async function operatorFor(services: Services, mappingId: string): Promise<Actor> {
  const mapping = await services.vaults.findMappingAsOperator(mappingId);
  return { accountId: mapping.ownerAccountId, credentialKind: 'operator', client: 'kgate-cli' };
}
