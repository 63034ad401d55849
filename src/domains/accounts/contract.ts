import { z } from 'zod';

/** The plans an account can be on. */
export const PlanSchema = z.enum(['free', 'developer', 'team']);
/** Account status: a suspended account is refused everywhere with `account_inactive`. */
export const AccountStatusSchema = z.enum(['active', 'suspended']);

/** What a plan includes. Allowances are operations per period; `null` means no cap. */
export const EntitlementsSchema = z.object({
  hostedMcp: z.boolean().describe('May use the hosted MCP gateway.'),
  developerApi: z.boolean().describe('May use the Developer REST API with a personal access token.'),
  mcpOperationsPerMinute: z.number().int().nonnegative(),
  mcpOperationsPerMonth: z.number().int().nonnegative(),
  restOperationsPerMinute: z.number().int().nonnegative(),
  restOperationsPerMonth: z.number().int().nonnegative(),
  maxHostedVaults: z.number().int().positive(),
  maxWorkspaceMembers: z.number().int().positive(),
});
/** See EntitlementsSchema. */
export type Entitlements = z.infer<typeof EntitlementsSchema>;

/**
 * Operator-set allowances that replace a plan's numbers for one account (a negotiated contract, a load test).
 * Only allowances can be overridden; capabilities come from the plan.
 */
export const AllowanceOverridesSchema = z
  .object({
    mcpOperationsPerMinute: z.number().int().nonnegative(),
    mcpOperationsPerMonth: z.number().int().nonnegative(),
    restOperationsPerMinute: z.number().int().nonnegative(),
    restOperationsPerMonth: z.number().int().nonnegative(),
  })
  .partial()
  .strict();
/** See AllowanceOverridesSchema. */
export type AllowanceOverrides = z.infer<typeof AllowanceOverridesSchema>;

/** An account as the domain sees it (never includes the password hash). */
export const AccountSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  displayName: z.string().nullable(),
  status: AccountStatusSchema,
  plan: PlanSchema,
  createdAt: z.date(),
});
/** See AccountSchema. */
export type Account = z.infer<typeof AccountSchema>;

/** A deliberately loose email check: one "@", something on each side, no spaces; delivery proves the rest. */
export const EmailSchema = z
  .string()
  .trim()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address');
