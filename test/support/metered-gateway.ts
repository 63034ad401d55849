/**
 * A started gateway configured with the fake model server and a Product Runtime chain whose organization has an
 * intelligence budget: what every test of a model-backed endpoint starts from. Also the ledger snapshot those tests
 * compare before and after a refusal, to prove it reserved nothing.
 */
import type { RuntimeScope } from '../../src/domains/runtime/index.ts';
import { modelEnvOf, startModelFake, type ModelFake } from '../fakes/model/server.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { createRuntimeChain, runtimeToken, type RuntimeChainSetup } from './runtime-gateway.ts';

/** The budget the tests' organizations get unless they ask for another: far above what they spend. */
export const TEST_BUDGET_MICRODOLLARS = 50_000_000;

/** A gateway and a Product Runtime chain whose organization has an intelligence budget, with a token of its scopes. */
export interface BudgetedGateway {
  gateway: TestGateway;
  chain: RuntimeChainSetup;
  token: string;
  stop(): Promise<void>;
}

/** The fake model besides. */
export interface MeteredGateway extends BudgetedGateway {
  fake: ModelFake;
}

/** What both starts take: model settings (`env`), the principal's scopes, the budget (null: none). */
export interface BudgetedGatewayOptions {
  env?: Record<string, string>;
  scopes?: RuntimeScope[];
  budget?: number | null;
}

/** Starts a gateway (with `env`; without model settings it has no model) and makes the chain, budgeted. */
export async function startBudgetedGateway(label: string, options: BudgetedGatewayOptions = {}): Promise<BudgetedGateway> {
  const gateway = await startTestGateway(options.env ? { env: options.env } : {});
  const chain = await createRuntimeChain(gateway, label, { scopes: options.scopes ?? ['intelligence.execute'] });
  const budget = options.budget === undefined ? TEST_BUDGET_MICRODOLLARS : options.budget;
  if (budget !== null) await gateway.services.runtimeAdmin.setOrganizationSettings(chain.organization.slug, { intelligenceBudgetMicrodollarsMonthly: budget });
  const token = await runtimeToken(gateway, chain);
  return { gateway, chain, token, stop: () => gateway.stop() };
}

/** Starts the fake model and a budgeted gateway configured with it (`env` overrides the model settings). */
export async function startMeteredGateway(label: string, options: BudgetedGatewayOptions = {}): Promise<MeteredGateway> {
  const fake = await startModelFake();
  const started = await startBudgetedGateway(label, { ...options, env: modelEnvOf(fake, options.env) });
  return {
    ...started,
    fake,
    async stop() {
      await started.stop();
      await fake.close();
    },
  };
}

/**
 * Everything a metered call of the chain's organization could change: its ledger rows, its month counters, its
 * installation's and its running count, as one string to compare before and after.
 */
export async function ledgerSnapshot(gateway: Pick<TestGateway, 'db'>, chain: Pick<RuntimeChainSetup, 'organization' | 'installation'>): Promise<string> {
  const organizationId = chain.organization.id;
  const rows = await gateway.db.query('SELECT id, state, charged_microdollars FROM intelligence_ledger WHERE organization_id = $1 ORDER BY id', [organizationId]);
  const months = await gateway.db.query('SELECT month_start, held_microdollars FROM intelligence_organization_months WHERE organization_id = $1', [organizationId]);
  const installations = await gateway.db.query('SELECT month_start, held_microdollars FROM intelligence_installation_months WHERE installation_id = $1', [
    chain.installation.id,
  ]);
  const running = await gateway.db.query('SELECT running FROM intelligence_running WHERE organization_id = $1', [organizationId]);
  return JSON.stringify({ rows, months, installations, running });
}
