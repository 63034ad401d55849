import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { DEFAULT_OWNER_EMAIL } from '../domains/onboarding/index.ts';
import { isKgateError } from '../kernel/errors.ts';
import { bootstrap } from './bootstrap-command.ts';
import { cliConsole, commandPath, err, gatewayRuntime, out } from './console.ts';
import { runThroughGateway } from './control-channel.ts';
import { exportFolder } from './export-folder.ts';
import { importFolder } from './import-folder.ts';
import { operatorFor, withRuntime } from './runtime.ts';
import { OperatorError } from './operator-error.ts';
import { serveCommand } from './serve-command.ts';
import { assertVaultFolder } from './vault-folder.ts';
import { accountCommand, mappingCommand, tokenCommand } from './account-commands.ts';

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

/** Thrown for wrong command-line usage; exits 2. */
export class UsageError extends Error {}

function print(json: boolean, value: unknown, human: string): void {
  out(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

async function importCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { mapping: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
  });
  const dir = positionals[0];
  if (!dir || !values.mapping || positionals.length > 1) throw new UsageError('usage: kgate import DIR --mapping ID');
  // Check the folder before opening (and perhaps creating) a database.
  const folder = commandPath(dir);
  await assertVaultFolder(folder);
  const report = await withRuntime('kgate import', async ({ services }) =>
    importFolder(services.notes, await operatorFor(services, values.mapping!), values.mapping!, folder, {
      dryRun: values['dry-run'] ?? false,
      progress: !values.json,
    }),
  );
  const lines = [
    `${report.dryRun ? 'Would import' : 'Imported'} ${report.notes} notes: ${report.created} created, ` +
      `${report.updated} updated, ${report.unchanged} unchanged, ${report.rejected.length} rejected.`,
    `Not imported: ${report.canvases} canvases, ${report.attachments} attachments, ` +
      `${report.hidden} hidden entries, ${report.symlinks} symbolic links.`,
    ...report.rejected.map((r) => `  rejected ${r.path}: ${r.reason} (${r.code})`),
  ];
  print(values.json ?? false, report, lines.join('\n'));
  return report.rejected.length > 0 ? 1 : 0;
}

async function exportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { mapping: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } },
  });
  const dir = positionals[0];
  if (!dir || !values.mapping || positionals.length > 1) throw new UsageError('usage: kgate export --mapping ID DIR');
  const result = await withRuntime('kgate export', async ({ services }) =>
    exportFolder(services.notes, await operatorFor(services, values.mapping!), values.mapping!, commandPath(dir), {
      force: values.force ?? false,
      progress: !values.json,
    }),
  );
  print(values.json ?? false, result, `Exported ${result.notes} notes (${result.bytes} bytes) to ${dir}.`);
  return 0;
}

// What this process read from its standard input, so that a command sent to a running gateway can take it along.
let stdinRead: string | undefined;

async function readStdin(): Promise<string> {
  const given = cliConsole().stdin;
  if (given !== undefined) return given;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  stdinRead = Buffer.concat(chunks).toString('utf8');
  return stdinRead;
}

async function bootstrapCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      empty: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  // --password-stdin keeps the password out of the process list, where --password is visible to local users.
  const password = values['password-stdin'] ? (await readStdin()).replace(/\r?\n$/, '') : values.password;
  const output = await withRuntime('kgate admin bootstrap', ({ config, services }) =>
    bootstrap(config.baseUrl ?? 'http://localhost:8787', services, {
      ...(values.email ? { email: values.email } : {}),
      ...(password ? { password } : {}),
      empty: values.empty ?? false,
    }),
  );
  const human = [
    `Account ${values.email ?? DEFAULT_OWNER_EMAIL} (${output.accountId})${output.created.account ? ' created' : ''}`,
    `Workspace ${output.workspaceId}, vault ${output.vaultId}, mapping ${output.mappingId}`,
    `Token (shown once): ${output.token}`,
    `MCP URL: ${output.mcpUrl}`,
  ].join('\n');
  print(values.json ?? false, output, human);
  return 0;
}

/** Runs the `kgate` command line; resolves with the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  // Help never opens the database or starts anything, wherever the flag stands.
  if (command !== undefined && command !== 'help' && argv.some((arg) => arg === '--help' || arg === '-h')) {
    out(usageFor(command, sub));
    return 0;
  }
  try {
    switch (command) {
      case 'serve':
        return await serveCommand(runCli);
      case 'admin':
        if (sub === 'bootstrap') return await bootstrapCommand(rest);
        if (sub === 'account') return await accountCommand(rest);
        if (sub === 'mapping') return await mappingCommand(rest);
        throw new UsageError(`unknown admin command: ${sub ?? '(none)'}`);
      case 'token':
        return await tokenCommand(sub, rest);
      case 'import':
        return await importCommand(argv.slice(1));
      case 'export':
        return await exportCommand(argv.slice(1));
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
      const code = dataDir === undefined ? undefined : await runThroughGateway(dataDir, argv, stdinRead);
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
