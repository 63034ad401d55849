import type { Plan } from '../../kernel/principal.ts';
import { AllowanceOverridesSchema, type AllowanceOverrides, type Entitlements } from './contract.ts';

/**
 * What each plan includes. The spec fixes the shape (spec 5 rule 2: the Developer REST API needs the Developer
 * & Agent or Team plan; spec 8 rule 2: MCP has its own per-minute and monthly allowance) and leaves the numbers
 * to us; `docs/plans.md` publishes them. Plans are code, not rows: changing an allowance is a reviewed change.
 */
export const PLAN_ENTITLEMENTS: Readonly<Record<Plan, Entitlements>> = {
  free: {
    hostedMcp: true,
    developerApi: false,
    mcpOperationsPerMinute: 30,
    mcpOperationsPerMonth: 3_000,
    restOperationsPerMinute: 0,
    restOperationsPerMonth: 0,
    maxHostedVaults: 1,
    maxWorkspaceMembers: 1,
  },
  developer: {
    hostedMcp: true,
    developerApi: true,
    mcpOperationsPerMinute: 120,
    mcpOperationsPerMonth: 100_000,
    restOperationsPerMinute: 300,
    restOperationsPerMonth: 250_000,
    maxHostedVaults: 10,
    maxWorkspaceMembers: 3,
  },
  team: {
    hostedMcp: true,
    developerApi: true,
    mcpOperationsPerMinute: 600,
    mcpOperationsPerMonth: 1_000_000,
    restOperationsPerMinute: 1_200,
    restOperationsPerMonth: 2_500_000,
    maxHostedVaults: 100,
    maxWorkspaceMembers: 50,
  },
};

/**
 * The entitlements of a plan, with the account's allowance overrides applied. Overrides that fail validation are
 * ignored rather than trusted: they come from a jsonb column an operator may have edited by hand.
 */
export function entitlementsOf(plan: Plan, overrides: unknown = {}): Entitlements {
  return { ...PLAN_ENTITLEMENTS[plan], ...validOverrides(overrides) };
}

// Validated overrides by the object they were read as: a cached credential row hands the same object to every
// request it authenticates, so its overrides are checked once, not on each request.
const checkedOverrides = new WeakMap<object, AllowanceOverrides>();

/** The overrides if they pass validation, else none. */
function validOverrides(overrides: unknown): AllowanceOverrides {
  if (typeof overrides !== 'object' || overrides === null) return checkOverrides(overrides);
  let checked = checkedOverrides.get(overrides);
  if (checked === undefined) {
    checked = checkOverrides(overrides);
    checkedOverrides.set(overrides, checked);
  }
  return checked;
}

function checkOverrides(overrides: unknown): AllowanceOverrides {
  const parsed = AllowanceOverridesSchema.safeParse(overrides);
  return parsed.success ? parsed.data : {};
}
