import { parseArgs } from 'node:util';
import { PlanSchema, type AllowanceOverrides } from '../domains/accounts/index.ts';
import { DEFAULT_OWNER_EMAIL } from '../domains/onboarding/index.ts';
import type { Services } from '../app/services.ts';
import { KgateError } from '../kernel/errors.ts';
import { withRuntime } from './runtime.ts';
import { out } from './console.ts';

async function accountIdByEmail(services: Services, email: string): Promise<string> {
  const account = await services.accounts.findByEmail(email);
  if (!account) throw new KgateError('not_found', `No account has the email ${email}.`);
  return account.id;
}

/** `kgate admin account --email E [--suspend | --reactivate] [--plan P]`: shows or changes an account. */
export async function accountCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      suspend: { type: 'boolean' },
      reactivate: { type: 'boolean' },
      plan: { type: 'string' },
      'rest-per-minute': { type: 'string' },
      'rest-per-month': { type: 'string' },
      'mcp-per-minute': { type: 'string' },
      'mcp-per-month': { type: 'string' },
      'plan-allowances': { type: 'boolean' },
    },
  });
  const overrides = allowanceOverrides(values);
  if (values.suspend && values.reactivate) throw new KgateError('invalid_request', 'Choose --suspend or --reactivate.');
  const plan = values.plan === undefined ? undefined : PlanSchema.parse(values.plan);
  const account = await withRuntime('kgate admin account', async ({ services }) => {
    const id = await accountIdByEmail(services, values.email ?? DEFAULT_OWNER_EMAIL);
    if (values.suspend) await services.accounts.setStatus(id, 'suspended');
    if (values.reactivate) await services.accounts.setStatus(id, 'active');
    if (plan) await services.accounts.setPlan(id, plan);
    if (overrides) await services.accounts.setAllowanceOverrides(id, overrides);
    return services.accounts.getAccount(id);
  });
  out(`${JSON.stringify(account)}\n`);
  return 0;
}

const ALLOWANCE_FLAGS = {
  'rest-per-minute': 'restOperationsPerMinute',
  'rest-per-month': 'restOperationsPerMonth',
  'mcp-per-minute': 'mcpOperationsPerMinute',
  'mcp-per-month': 'mcpOperationsPerMonth',
} as const;

/** The overrides the flags ask for: `--plan-allowances` clears them, numeric flags set them; undefined: no change. */
function allowanceOverrides(values: Record<string, string | boolean | undefined>): AllowanceOverrides | undefined {
  if (values['plan-allowances']) return {};
  const entries = Object.entries(ALLOWANCE_FLAGS).flatMap(([flag, field]) => {
    const raw = values[flag];
    if (typeof raw !== 'string') return [];
    if (!/^\d{1,10}$/.test(raw)) throw new KgateError('invalid_request', `--${flag} takes a non-negative integer.`);
    return [[field, Number(raw)] as const];
  });
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

function parseSwitch(flag: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new KgateError('invalid_request', `--${flag} takes true or false.`);
}

/** `kgate admin mapping --id ID [--read-only B] [--pull-only B] [--allow-mcp-note-changes B] [--device-encrypted B]`. */
export async function mappingCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      id: { type: 'string' },
      'read-only': { type: 'string' },
      'pull-only': { type: 'string' },
      'allow-mcp-note-changes': { type: 'string' },
      'device-encrypted': { type: 'string' },
    },
  });
  const flags = {
    readOnly: parseSwitch('read-only', values['read-only']),
    pullOnly: parseSwitch('pull-only', values['pull-only']),
    allowMcpNoteChanges: parseSwitch('allow-mcp-note-changes', values['allow-mcp-note-changes']),
    deviceEncrypted: parseSwitch('device-encrypted', values['device-encrypted']),
  };
  const mapping = await withRuntime('kgate admin mapping', ({ services }) =>
    services.vaults.updateMappingFlags(values.id ?? '', Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined))),
  );
  out(`${JSON.stringify(mapping)}\n`);
  return 0;
}

/** `kgate token list|create|rotate|revoke`: manages an account's personal access tokens. */
export async function tokenCommand(action: string | undefined, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { email: { type: 'string' }, name: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean' } },
  });
  const output = await withRuntime('kgate token', async ({ services }) => {
    const accountId = await accountIdByEmail(services, values.email ?? DEFAULT_OWNER_EMAIL);
    switch (action) {
      case 'list':
        return services.tokens.listTokens(accountId);
      case 'create':
        return services.tokens.issueToken({ accountId, name: values.name ?? 'cli' });
      case 'rotate':
        return services.tokens.rotateToken(accountId, values.id ?? '');
      case 'revoke':
        return services.tokens.revokeToken(accountId, values.id ?? '');
      default:
        throw new KgateError('invalid_request', 'usage: kgate token list|create|rotate|revoke [--email E] [--name N] [--id ID]');
    }
  });
  out(`${JSON.stringify(output, null, values.json ? undefined : 2)}\n`);
  return 0;
}
