import { parseArgs } from 'node:util';
import { PlanSchema } from '../domains/accounts/index.ts';
import { DEFAULT_OWNER_EMAIL } from '../domains/onboarding/index.ts';
import type { Services } from '../main.ts';
import { KgateError } from '../kernel/errors.ts';
import { withRuntime } from './runtime.ts';

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
    },
  });
  if (values.suspend && values.reactivate) throw new KgateError('invalid_request', 'Choose --suspend or --reactivate.');
  const plan = values.plan === undefined ? undefined : PlanSchema.parse(values.plan);
  const account = await withRuntime('kgate admin account', async ({ services }) => {
    const id = await accountIdByEmail(services, values.email ?? DEFAULT_OWNER_EMAIL);
    if (values.suspend) await services.accounts.setStatus(id, 'suspended');
    if (values.reactivate) await services.accounts.setStatus(id, 'active');
    if (plan) await services.accounts.setPlan(id, plan);
    return services.accounts.getAccount(id);
  });
  process.stdout.write(`${JSON.stringify(account)}\n`);
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
  process.stdout.write(`${JSON.stringify(output, null, values.json ? undefined : 2)}\n`);
  return 0;
}
