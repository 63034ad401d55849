import { z } from 'zod';
import type { Actor, AccountStatus, Plan } from '../../kernel/principal.ts';
import type { Entitlements } from '../accounts/index.ts';
import type { RuntimePrincipal } from '../runtime/index.ts';

/** A token as listed: never the secret, only its prefix and last four characters. */
export const TokenInfoSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  lastFour: z.string(),
  /** How the token is shown: prefix, an ellipsis and the last four characters. */
  display: z.string(),
  createdAt: z.date(),
  expiresAt: z.date().nullable(),
  lastUsedAt: z.date().nullable(),
  revokedAt: z.date().nullable(),
});
/** See TokenInfoSchema. */
export type TokenInfo = z.infer<typeof TokenInfoSchema>;

/** A freshly issued token: the only time the secret exists outside the caller. */
export interface IssuedToken {
  token: string;
  info: TokenInfo;
}

/** Longest token name. */
export const MAX_TOKEN_NAME_LENGTH = 100;

/**
 * The result of authenticating a request, resolved from server records on every request: who acts, with which
 * credential, and the account's current status and plan.
 */
export interface AuthenticatedPrincipal {
  actor: Actor;
  accountId: string;
  status: AccountStatus;
  plan: Plan;
  /** The plan's entitlements with the account's allowance overrides applied. */
  entitlements: Entitlements;
  /**
   * Present for an OAuth access token: its client, grant and scopes. Such a principal is valid only at the MCP
   * resource, and only for what its scopes allow. Absent for a personal access token, which carries no scopes.
   */
  oauth?: { clientId: string; grantId: string; scopes: readonly string[] };
  /**
   * Present for a Product Runtime access token: the service principal with its chain resolved (docs/runtime.md).
   * `accountId` is then the installation's customer, on whose behalf the product acts.
   */
  runtime?: RuntimePrincipal;
}
