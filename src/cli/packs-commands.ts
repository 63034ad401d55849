import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Services } from '../app/services.ts';
import { loadPack, type PackPublisher, type ParsedPack, type PublishOutcome } from '../domains/packs/index.ts';
import { KgateError } from '../kernel/errors.ts';
import { commandPath, err, out } from './console.ts';
import { OperatorError } from './operator-error.ts';
import { exactly, json } from './runtime-command-plan.ts';
import { withRuntime } from './runtime.ts';
import { UsageError } from './usage-error.ts';

// `kgate packs publish DIR [--as EMAIL]` (docs/packs.md): reads and validates a pack folder before any database
// opens, then publishes it as the operator, or as an admin of the product's organization named by `--as`. A folder
// with problems is refused with each problem as `FILE:LINE: message` and the code pack_invalid, and nothing is stored.

const USAGE = 'kgate packs publish DIR [--as EMAIL] [--json]';

/** Fails with a one-line message unless `path` is a folder. */
async function assertFolder(path: string, shown: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) throw new OperatorError(`${shown} is not a folder`);
}

/** Loads the pack folder; on problems, writes each to stderr and refuses with pack_invalid. */
async function loadValidPack(dir: string): Promise<ParsedPack> {
  const folder = commandPath(dir);
  await assertFolder(folder, dir);
  const loaded = await loadPack(folder);
  if (loaded.ok) return loaded.pack;
  // Paths as the operator named the folder, so that an editor or terminal opens them from where the command ran.
  for (const problem of loaded.problems) err(`${join(dir, problem.file)}:${problem.line}: ${problem.message}\n`);
  const count = loaded.problems.length;
  throw new KgateError('pack_invalid', `The pack folder ${dir} has ${count} problem${count === 1 ? '' : 's'}; nothing was stored.`, { problems: count });
}

/** Who publishes: the operator, or the account `--as` names (which the publication then checks is an admin). */
async function publisherFor(services: Services, email: string | undefined): Promise<PackPublisher> {
  if (email === undefined) return { kind: 'operator' };
  const account = await services.accounts.findByEmail(email);
  if (!account) throw new KgateError('not_found', `No account has the email ${email}.`);
  return { kind: 'account', accountId: account.id };
}

function outcomeText(outcome: PublishOutcome): string {
  const { info, counts } = outcome;
  const name = `${info.productSlug}/${info.packSlug}`;
  if (!outcome.created) return `unchanged: ${name} version ${info.version} already holds this content`;
  return `published ${name} version ${info.version} (${counts.sources} sources, ${counts.assertions} assertions, ${counts.insights} insights)`;
}

/** `kgate packs ACTION ...`: published intelligence packs. */
export async function packsCommand(action: string | undefined, args: string[]): Promise<number> {
  if (action !== 'publish') throw new UsageError(`unknown packs command: ${action ?? '(none)'}; use publish (${USAGE})`);
  const { values, positionals } = exactly(USAGE, 1, parseArgs({ args, allowPositionals: true, options: { as: { type: 'string' }, json } }));
  if (values.as !== undefined && values.as.trim() === '') throw new UsageError(`usage: ${USAGE}`);
  const pack = await loadValidPack(positionals[0]!);
  const outcome = await withRuntime('kgate packs publish', async ({ services }) => services.packs.publish(pack, await publisherFor(services, values.as)));
  out(values.json ? `${JSON.stringify(outcome)}\n` : `${outcomeText(outcome)}\n`);
  return 0;
}
