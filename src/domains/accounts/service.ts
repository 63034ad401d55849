import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { AccountStatus, Plan } from '../../kernel/principal.ts';
import { AllowanceOverridesSchema, EmailSchema, type Account, type AllowanceOverrides } from './contract.ts';
import { MIN_PASSWORD_LENGTH, UNMATCHABLE_PASSWORD_HASH, hashPassword, verifyPassword } from './password.ts';
import * as store from './store.ts';

/** Input of `ensureAccount`. */
export interface EnsureAccountInput {
  /** The sign-in address; compared case-insensitively. */
  email: string;
  /** Plan for a new account; an existing account keeps its plan. */
  plan: Plan;
  /** When given, sets the password (also on an existing account: this is the operator's recovery path). */
  password?: string;
  displayName?: string;
}

/** Account use cases. */
export interface AccountsService {
  /** Returns the account with this email, creating it when absent. `created` tells which happened. */
  ensureAccount(input: EnsureAccountInput, sql?: Sql): Promise<{ account: Account; created: boolean }>;
  getAccount(id: string): Promise<Account>;
  findByEmail(email: string): Promise<Account | undefined>;
  /**
   * The account whose email and password these are, whatever its status (the caller decides what a suspended
   * account may do); undefined when either is wrong. Takes as long for an unknown email or an account without a
   * password as for a wrong password, so the answer time does not tell whether an account exists.
   */
  checkPassword(email: string, password: string): Promise<Account | undefined>;
  /**
   * True when this is the account's password. Costs one scrypt verification whether or not the account has a
   * password. Callers throttle it (the sessions domain counts it as a sign-in attempt).
   */
  checkPasswordOf(id: string, password: string): Promise<boolean>;
  /**
   * The account holder sets a new password (the same rules as at sign-up). The hash is computed first; then, in one
   * transaction, the hash and `password_changed_at` are written and `alsoInTransaction` runs (ending other
   * sessions), so either both happen or neither. Throws `invalid_request` (details.reason `password_too_short`).
   */
  setPassword(id: string, password: string, at: Date, alsoInTransaction?: (tx: Sql) => Promise<void>): Promise<void>;
  setStatus(id: string, status: AccountStatus): Promise<Account>;
  setPlan(id: string, plan: Plan): Promise<Account>;
  countAccounts(): Promise<number>;
  /** Replaces the account's allowance overrides (operator only); `{}` returns it to its plan's numbers. */
  setAllowanceOverrides(id: string, overrides: AllowanceOverrides): Promise<void>;
}

/** Calls the accounts service makes to the rest of the process. */
export interface AccountsHooks {
  /**
   * After a change of status, plan or allowances has committed: caches of resolved credentials must forget the
   * account before the change is reported done (other processes learn of it through database notifications).
   */
  onAccessChanged?: (accountId: string) => void;
}

function parseEmail(email: string): string {
  const parsed = EmailSchema.safeParse(email);
  if (!parsed.success) throw new KgateError('invalid_request', 'The email address is not valid.', { field: 'email' });
  return parsed.data;
}

async function passwordHashOf(password: string | undefined): Promise<string | null> {
  if (password === undefined) return null;
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new KgateError('invalid_request', `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`, {
      field: 'password',
      reason: 'password_too_short',
    });
  }
  return hashPassword(password);
}

/** Builds the accounts service over a database. */
export function createAccountsService(db: Database, hooks: AccountsHooks = {}): AccountsService {
  const notFound = () => new KgateError('not_found', 'The account does not exist.');
  const changed = <T>(id: string, result: T): T => {
    hooks.onAccessChanged?.(id);
    return result;
  };
  return {
    async ensureAccount(input, sql = db) {
      const email = parseEmail(input.email);
      const passwordHash = await passwordHashOf(input.password);
      const inserted = await store.insertAccount(sql, {
        id: newId(),
        email,
        displayName: input.displayName ?? null,
        plan: input.plan,
        passwordHash,
      });
      if (inserted) return { account: inserted, created: true };
      const existing = await store.findAccountByEmail(sql, email);
      if (!existing) throw new KgateError('conflict', 'The account changed while it was being created; try again.');
      if (passwordHash !== null) await store.updateAccount(sql, existing.id, { passwordHash });
      return { account: existing, created: false };
    },
    async getAccount(id) {
      return (await store.findAccountById(db, id)) ?? Promise.reject(notFound());
    },
    findByEmail: (email) => store.findAccountByEmail(db, email.trim()),
    async checkPassword(email, password) {
      const parsed = EmailSchema.safeParse(email);
      const found = parsed.success ? await store.findCredentialsByEmail(db, parsed.data) : undefined;
      const matches = await verifyPassword(password, found?.passwordHash ?? UNMATCHABLE_PASSWORD_HASH);
      return matches && found?.passwordHash ? found.account : undefined;
    },
    async checkPasswordOf(id, password) {
      const stored = await store.findPasswordHashById(db, id);
      const matches = await verifyPassword(password, stored ?? UNMATCHABLE_PASSWORD_HASH);
      return matches && typeof stored === 'string';
    },
    async setPassword(id, password, at, alsoInTransaction) {
      const passwordHash = (await passwordHashOf(password))!;
      await db.transaction(async (tx) => {
        if (!(await store.setPasswordHash(tx, { id, passwordHash, at }))) throw notFound();
        await alsoInTransaction?.(tx);
      });
    },
    async setStatus(id, status) {
      return changed(id, (await store.updateAccount(db, id, { status })) ?? (await Promise.reject(notFound())));
    },
    async setPlan(id, plan) {
      return changed(id, (await store.updateAccount(db, id, { plan })) ?? (await Promise.reject(notFound())));
    },
    countAccounts: () => store.countAccounts(db),
    async setAllowanceOverrides(id, overrides) {
      const parsed = AllowanceOverridesSchema.safeParse(overrides);
      if (!parsed.success) throw new KgateError('invalid_request', 'Allowance overrides are non-negative integers.');
      if (!(await store.setAllowanceOverrides(db, id, parsed.data))) throw notFound();
      changed(id, undefined);
    },
  };
}
