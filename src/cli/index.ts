import { ConfigError, loadConfig } from '../config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { isKgateError } from '../kernel/errors.ts';
import type { StandbyDatabaseThread } from '../app/database.ts';
import { err, gatewayRuntime, out } from './console.ts';
import { runThroughGateway } from './control-channel.ts';
import { OperatorError } from './operator-error.ts';
import { UsageError } from './usage-error.ts';

// The command line's entry. Each command's code is imported when that command runs (the build makes it a chunk of
// its own): help answers at once, and `kgate serve` loads the gateway while its database opens.

/** Usage of each command, keyed by what `kgate COMMAND --help` names; the whole text is `kgate --help`. */
const COMMAND_USAGE: Record<string, string> = {
  serve: '  kgate serve                                   run the gateway (what npm start runs)',
  'admin bootstrap': `  kgate admin bootstrap [--email E] [--password P | --password-stdin] [--empty] [--json]
                                                create the owner, a workspace, a demo vault and a token`,
  'admin account': `  kgate admin account --email E [--suspend | --reactivate] [--plan free|developer|team]
                      [--rest-per-minute N] [--rest-per-month N] [--mcp-per-minute N] [--mcp-per-month N]
                      [--plan-allowances]`,
  'admin mapping': `  kgate admin mapping --id ID [--read-only true|false] [--pull-only true|false]
                      [--allow-mcp-note-changes true|false] [--device-encrypted true|false]`,
  token: '  kgate token list|create|rotate|revoke [--email E] [--name N] [--id ID] [--json]',
  scopes: `  kgate scopes list|create|update|delete --mapping ID [--id SCOPE] [--name N] [--prefix P]... [--tag T]...
                      [--minimum-role owner|admin|editor|viewer] [--agents | --no-agents]
                      [--clear-prefixes] [--clear-tags] [--dry-run] [--json]
                                                manage a mapping's context scopes as its owner`,
  'runtime org': `  kgate runtime org create --slug S --name N --admin EMAIL
  kgate runtime org settings S [--api-operations-per-month N|blank] [--intelligence-budget-microdollars N|blank]
                      [--max-concurrent-intelligence N|blank] [--media-storage-bytes N|blank]
  kgate runtime org suspend|resume S
  kgate runtime org admin add|remove S EMAIL
  kgate runtime org list                        Product Runtime organizations (each takes --json)`,
  'runtime product': `  kgate runtime product create --org S --slug P --name N [--domain-pack education] [--return-origin URL]...
  kgate runtime product retire P                Product Runtime products (each takes --json)`,
  'runtime principal': `  kgate runtime principal create --installation ID --name N --scope S [--scope S]... --as EMAIL
  kgate runtime principal list --installation ID --as EMAIL
  kgate runtime principal revoke PRINCIPAL_ID --as EMAIL
                                                service principals, as an admin of their organization (each takes --json)`,
  'runtime secret': `  kgate runtime secret add PRINCIPAL_ID --as EMAIL
                                                a client secret, shown once (client id and secret)
  kgate runtime secret revoke CREDENTIAL_ID --as EMAIL`,
  'runtime key': `  kgate runtime key add PRINCIPAL_ID --jwk FILE [--kid KID] --as EMAIL
                                                a public JWK for private_key_jwt (at most 16 KiB)
  kgate runtime key revoke CREDENTIAL_ID --as EMAIL`,
  'runtime credentials': `  kgate runtime credentials list PRINCIPAL_ID --as EMAIL
                                                a principal's credentials, never a secret (each takes --json)`,
  'packs publish': `  kgate packs publish DIR [--as EMAIL] [--json]
                                                publish a pack folder (docs/packs.md) as the operator, or as an
                                                admin of the product's organization`,
  import: '  kgate import DIR --mapping ID [--dry-run] [--json]',
  export: '  kgate export --mapping ID DIR [--force] [--json]',
};

const CONFIGURATION = 'Configuration comes from the environment: PORT, KGATE_BASE_URL, KGATE_DATA_DIR, DATABASE_URL, ... (see README).\n';

const USAGE = `kgate: hosted knowledge gateway

Usage:
${Object.values(COMMAND_USAGE).join('\n')}

${CONFIGURATION}`;

/** The usage of one command (`admin` alone: its three subcommands), or all of it for an unknown one. */
function usageFor(command: string | undefined, sub: string | undefined): string {
  const exact = sub !== undefined && !sub.startsWith('-') ? COMMAND_USAGE[`${command} ${sub}`] : undefined;
  const lines = exact
    ? [exact]
    : Object.entries(COMMAND_USAGE)
        .filter(([key]) => key === command || key.startsWith(`${command} `))
        .map(([, usage]) => usage);
  return lines.length === 0 ? USAGE : `Usage:\n${lines.join('\n')}\n\n${CONFIGURATION}`;
}

/** For the build script (scripts/build.js): makes the embedded database's template at install. */
export { prepareEmbeddedTemplate } from '../app/database.ts';

/** What bin/kgate.js hands to the command line besides its arguments. */
export interface CliStart {
  /** The embedded database's thread, started before the code loaded (pglite-standby.js); `serve` takes it over. */
  standbyDatabase?: StandbyDatabaseThread;
}

/** Runs the `kgate` command line; resolves with the process exit code. */
export async function runCli(argv: string[], start: CliStart = {}): Promise<number> {
  const [command, sub, ...rest] = argv;
  // Help never opens the database or starts anything, wherever the flag stands.
  if (command !== undefined && command !== 'help' && argv.some((arg) => arg === '--help' || arg === '-h')) {
    out(usageFor(command, sub));
    return 0;
  }
  try {
    switch (command) {
      case 'serve':
        return await (await import('./serve-command.ts')).serveCommand(runCli, start.standbyDatabase);
      case 'admin':
        if (sub === 'bootstrap') return await (await import('./commands.ts')).bootstrapCommand(rest);
        if (sub === 'account') return await (await import('./account-commands.ts')).accountCommand(rest);
        if (sub === 'mapping') return await (await import('./account-commands.ts')).mappingCommand(rest);
        throw new UsageError(`unknown admin command: ${sub ?? '(none)'}`);
      case 'token':
        return await (await import('./account-commands.ts')).tokenCommand(sub, rest);
      case 'scopes':
        return await (await import('./scope-commands.ts')).scopesCommand(sub, rest);
      case 'runtime':
        return await (await import('./runtime-commands.ts')).runtimeCommand(sub, rest);
      case 'packs':
        return await (await import('./packs-commands.ts')).packsCommand(sub, rest);
      case 'import':
        return await (await import('./commands.ts')).importCommand(argv.slice(1));
      case 'export':
        return await (await import('./commands.ts')).exportCommand(argv.slice(1));
      case 'help':
        out(sub === undefined ? USAGE : usageFor(sub, rest[0]));
        return 0;
      case undefined:
        out(USAGE);
        return 2;
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } catch (error) {
    // The embedded data directory is held by a running gateway: send the command to it instead.
    if (error instanceof DataDirLockedError && command !== 'serve' && !gatewayRuntime()) {
      const dataDir = embeddedDataDir();
      const code = dataDir === undefined ? undefined : await runThroughGateway(dataDir, argv, (await import('./commands.ts')).stdinTaken());
      if (code !== undefined) return code;
    }
    return reportFailure(error);
  }
}

function embeddedDataDir(): string | undefined {
  const database = loadConfig().database;
  return database.kind === 'pglite' ? database.dataDir : undefined;
}

function reportFailure(error: unknown): number {
  if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
    err(`kgate: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (error instanceof ConfigError) {
    err(`kgate: ${error.message}\n`);
    return 78;
  }
  if (error instanceof DataDirLockedError) {
    err(`kgate: ${error.message}\n`);
    return 75;
  }
  if (isKgateError(error)) {
    err(`kgate: ${error.message} (${error.code})\n`);
    return 1;
  }
  if (error instanceof OperatorError) {
    err(`kgate: ${error.message}\n`);
    return 1;
  }
  const systemCode = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof systemCode === 'string' && /^E[A-Z]+$/.test(systemCode)) {
    // ECONNREFUSED, ENOTFOUND, EACCES...: the environment, not a bug. Messages of these never hold credentials.
    err(`kgate: ${(error as Error).message}\n`);
    return 1;
  }
  err(`kgate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
}
