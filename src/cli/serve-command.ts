import { loadConfig } from '../config.ts';
import { openDatabase, type StandbyDatabaseThread } from '../app/database.ts';

/**
 * `kgate serve`: opens the database and runs the gateway on it until SIGTERM or SIGINT (serve-gateway.ts).
 * Resolves with the exit code when the server has stopped.
 *
 * Only what opening the database needs is loaded before it opens: the gateway's code (HTTP, MCP, REST, the pages,
 * the domains: most of kgate) loads while the database opens on its own thread (docs/architecture.md, "Starting in
 * under a second").
 */
export async function serveCommand(
  runCommand: (argv: string[]) => Promise<number>,
  standby?: StandbyDatabaseThread,
): Promise<number> {
  const config = loadConfig();
  const opening = openDatabase(config, 'kgate serve', standby ? { standby } : {});
  const gatewayCode = import('./serve-gateway.ts');
  // Once loaded, the gateway makes what does not need the database, usually before the database is open. A failure
  // to load is reported below, once the database is open (or failed to).
  void gatewayCode.then(
    (code) => {
      try {
        code.prepareGateway();
      } catch {
        // startGateway makes the same again and reports what fails.
      }
    },
    () => undefined,
  );
  const opened = await opening;
  const { runGateway } = await gatewayCode.catch(async (error: unknown) => {
    await opened.close();
    throw error;
  });
  return runGateway(config, opened, runCommand);
}
