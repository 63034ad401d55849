import { parseArgs } from 'node:util';
import { DEFAULT_OWNER_EMAIL } from '../domains/onboarding/index.ts';
import { bootstrap } from './bootstrap-command.ts';
import { cliConsole, commandPath, out } from './console.ts';
import { describeExport, exportFolder } from './export-folder.ts';
import { describeImport, importFolder } from './import-folder.ts';
import { operatorFor, withRuntime } from './runtime.ts';
import { UsageError } from './usage-error.ts';
import { assertVaultFolder } from './vault-folder.ts';

// The commands that open the database themselves (or run in a gateway that has it): loaded by index.ts only when
// one of them runs, so that `kgate serve` and `kgate --help` do not load their code.

function print(json: boolean, value: unknown, human: string): void {
  out(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** `kgate import DIR --mapping ID`. */
export async function importCommand(args: string[]): Promise<number> {
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
  const report = await withRuntime('kgate import', async ({ services, ownDatabase }) =>
    importFolder(services.notes, await operatorFor(services, values.mapping!), values.mapping!, folder, {
      dryRun: values['dry-run'] ?? false,
      progress: !values.json,
      ownDatabase,
      files: services.files,
    }),
  );
  print(values.json ?? false, report, describeImport(report).join('\n'));
  return report.rejected.length > 0 ? 1 : 0;
}

/** `kgate export --mapping ID DIR`. */
export async function exportCommand(args: string[]): Promise<number> {
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
      files: services.files,
    }),
  );
  print(values.json ?? false, result, describeExport(result, dir));
  return 0;
}

// What this process read from its standard input, so that a command sent to a running gateway can take it along.
let stdinRead: string | undefined;

/** What a command of this process read from standard input, if one did: a command sent on to a gateway takes it along. */
export function stdinTaken(): string | undefined {
  return stdinRead;
}

async function readStdin(): Promise<string> {
  const given = cliConsole().stdin;
  if (given !== undefined) return given;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  stdinRead = Buffer.concat(chunks).toString('utf8');
  return stdinRead;
}

/** `kgate admin bootstrap`. */
export async function bootstrapCommand(args: string[]): Promise<number> {
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
