/**
 * The usage reservation on its own: how many `usage.reserve` calls per second complete with 50 callers at once, all
 * for one account (they update the same two counter rows) or spread over 50 accounts (each its own rows). Run in
 * this process over the benchmark's database, after the server has stopped, to tell a per-account ceiling (row
 * locks held until COMMIT) from a machine-wide one.
 */
import type { Database } from '../../src/db/port.ts';
import { createServices } from '../../src/app/services.ts';

/** Reservations per second, one account against many. */
export interface ReservationRates {
  callers: number;
  oneAccount: number;
  manyAccounts: number;
}

async function rate(reserve: (caller: number) => Promise<unknown>, callers: number, total: number): Promise<number> {
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      while (issued < total) {
        issued++;
        await reserve(caller);
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/**
 * Measures both rates with one caller per account of `accounts` (the first one is the "one account"), `total`
 * reservations per rate, after a warm-up.
 */
export async function measureReservations(db: Database, accounts: readonly string[], total: number): Promise<ReservationRates> {
  const services = createServices(db);
  const callers = accounts.length;
  const firstAccountId = accounts[0]!;
  const allowance = { perMinute: 1_000_000_000, perMonth: 1_000_000_000 };
  const reserve = (accountId: string) => services.usage.reserve(accountId, 'rest', allowance);
  await rate(() => reserve(firstAccountId), callers, Math.min(500, total));
  const oneAccount = await rate(() => reserve(firstAccountId), callers, total);
  const manyAccounts = await rate((caller) => reserve(accounts[caller]!), callers, total);
  return { callers, oneAccount, manyAccounts };
}
