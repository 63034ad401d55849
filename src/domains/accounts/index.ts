/** Accounts: people who sign in, their status and plan, and what the plan includes. */
export {
  AccountSchema,
  AccountStatusSchema,
  AllowanceOverridesSchema,
  EmailSchema,
  EntitlementsSchema,
  PlanSchema,
} from './contract.ts';
export type { Account, AllowanceOverrides, Entitlements } from './contract.ts';
export { PLAN_ENTITLEMENTS, entitlementsOf } from './plans.ts';
export { MIN_PASSWORD_LENGTH, verifyPassword } from './password.ts';
export { createAccountsService } from './service.ts';
export type { AccountsHooks, AccountsService, EnsureAccountInput } from './service.ts';
