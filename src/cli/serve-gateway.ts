import { randomBytes } from 'node:crypto';
import { publicBaseUrl, type Config } from '../config.ts';
import type { OpenedDatabase } from '../app/database.ts';
import { startGateway, type Gateway } from '../app/gateway.ts';
import { createLogger } from '../logger.ts';
import { DEFAULT_OWNER_EMAIL } from '../domains/onboarding/index.ts';
import { bootstrap, firstStartBanner } from './bootstrap-command.ts';
import { startControlChannel, type ControlChannel } from './control-channel.ts';

/** What serve-command.ts runs as soon as this module has loaded, while the database may still be opening. */
export { prepareGateway } from '../app/gateway.ts';

/**
 * The part of `kgate serve` after its database is open (serve-command.ts loads this module meanwhile): starts the
 * gateway, bootstraps an empty embedded installation (printing its token once), opens the control channel, and
 * stops gracefully on SIGTERM or SIGINT. Resolves with the exit code when the server has stopped.
 */
export async function runGateway(
  config: Config,
  opened: OpenedDatabase,
  runCommand: (argv: string[]) => Promise<number>,
): Promise<number> {
  const logger = createLogger(config.logLevel);
  const gateway: Gateway = await startGateway(config, opened, { logger }).catch(async (error: unknown) => {
    // Release the database (and the data directory lock) before reporting, e.g. when the port is taken.
    await opened.close();
    throw error;
  });
  let banner: string | undefined;
  try {
    // Only the embedded quick start bootstraps itself; a server database is set up with `kgate admin bootstrap`,
    // so that a token is never printed into a production log.
    if (config.database.kind === 'pglite' && (await gateway.services.accounts.countAccounts()) === 0) {
      // A random password, printed once like the token, lets the owner sign in to the account pages and approve
      // OAuth connections of MCP clients right away.
      const password = randomBytes(12).toString('base64url');
      const output = await bootstrap(publicBaseUrl(config, gateway.url), gateway.services, { password });
      banner = firstStartBanner(output, DEFAULT_OWNER_EMAIL, password);
    }
  } catch (error) {
    await gateway.stop();
    throw error;
  }
  // The command line beside the gateway: import, export, token, admin, scopes, runtime and packs run through it (control-channel.ts).
  let channel: ControlChannel | undefined;
  if (opened.dataDir !== undefined) {
    channel = await startControlChannel(opened.dataDir, { config, services: gateway.services }, runCommand, (command) =>
      logger.info({ command: `kgate ${command}` }, 'command from the control channel'),
    ).catch((error: unknown) => {
      logger.warn({ err: error }, 'no control channel: kgate import, export, token, admin, scopes, runtime and packs wait until the gateway stops');
      return undefined;
    });
  }
  logger.info({ url: gateway.url, baseUrl: publicBaseUrl(config, gateway.url), database: config.database.kind }, 'kgate listening');
  if (banner) process.stdout.write(`${banner}\n`);

  return new Promise<number>((resolve) => {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        // A second Ctrl-C means "now": skip the grace period. Repeated SIGTERMs from supervisors are ignored.
        if (signal === 'SIGINT') process.exit(130);
        return;
      }
      signalled = true;
      logger.info({ signal }, 'shutting down');
      void (channel?.close() ?? Promise.resolve()).then(() => gateway.stop()).then(
        () => resolve(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
