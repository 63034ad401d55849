import type { ErrorCode } from '../../../kernel/error-codes.ts';
import { ProductRuntimeSettingsSchema, type ProductRuntimeSettings } from '../contract.ts';
import type { ChainRow } from './store.ts';

/**
 * Links 2 and 4 to 8 of the chain (docs/runtime.md) as read from one ChainRow: the principal, the installation, the
 * product, the organization, its allowance and the customer account. The token (1) and credential (3) are checked by
 * whoever holds them.
 */

/** The first link of the chain that is not active, with its stable code and a message for the caller. */
export interface InactiveLink {
  code: Extract<ErrorCode, 'principal_revoked' | 'installation_inactive' | 'product_retired' | 'organization_suspended' | 'runtime_paused' | 'account_inactive'>;
  message: string;
}

/**
 * The organization's Product Runtime settings, or undefined when the stored value is not valid. An invalid stored
 * value fails closed: it pauses access (runtime_paused) rather than guessing a ceiling.
 */
export function runtimeSettingsOf(settings: unknown): ProductRuntimeSettings | undefined {
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) return undefined;
  const parsed = ProductRuntimeSettingsSchema.safeParse((settings as { productRuntime?: unknown }).productRuntime ?? {});
  return parsed.success ? parsed.data : undefined;
}

/** Links 2, 4, 5, 6, 7 and 8 in that order; undefined when all of them are active. */
export function firstInactiveLink(row: ChainRow, settings: ProductRuntimeSettings | undefined): InactiveLink | undefined {
  if (row.principal_status !== 'active') return { code: 'principal_revoked', message: 'The service principal is revoked.' };
  if (row.installation_status !== 'active') return { code: 'installation_inactive', message: 'The product is uninstalled from the customer account.' };
  if (row.product_status !== 'active') return { code: 'product_retired', message: 'The product is retired.' };
  if (row.organization_status !== 'active') return { code: 'organization_suspended', message: 'The product organization is suspended.' };
  if (!settings) {
    return { code: 'runtime_paused', message: "The organization's Product Runtime settings are not valid: access is paused until an operator corrects them." };
  }
  if (settings.apiOperationsPerMonth === 0) return { code: 'runtime_paused', message: "The organization's Product Runtime access is paused." };
  if (row.account_status !== 'active') return { code: 'account_inactive', message: "The customer's account is suspended." };
  return undefined;
}
