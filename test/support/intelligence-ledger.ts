import { randomBytes } from 'node:crypto';
import type { Sql } from '../../src/db/port.ts';
import { createOpenAiCompatibleModel } from '../../src/domains/models/client/index.ts';
import type { MeteredCaller, ModelPort } from '../../src/domains/models/index.ts';
import { isPublicAddress } from '../../src/net/guarded-fetch.ts';
import type { ModelFake } from '../fakes/model/server.ts';
import { newId } from '../../src/kernel/ids.ts';
import { insertRuntimeAccount, insertRuntimeChain, type RuntimeChain } from './runtime-records.ts';

/** An organization's chain with a service principal, and the metered caller it makes. */
export interface LedgerFixture extends RuntimeChain {
  principalId: string;
  caller: MeteredCaller;
}

/** The Product Runtime settings a ledger test sets (spec 2.6). */
export interface LedgerSettings {
  intelligenceBudgetMicrodollarsMonthly?: number;
  maxConcurrentIntelligence?: number;
}

async function insertPrincipal(sql: Sql, installationId: string): Promise<string> {
  const id = newId();
  await sql.query(`INSERT INTO runtime_service_principals (id, installation_id, name, scopes) VALUES ($1, $2, 'ledger test', '{intelligence.execute}')`, [
    id,
    installationId,
  ]);
  return id;
}

/** A new organization (with these settings), product, installation and principal. */
export async function insertLedgerFixture(sql: Sql, settings: LedgerSettings, sublimitMicrodollars: number | null = null): Promise<LedgerFixture> {
  const chain = await insertRuntimeChain(sql, { organizationSettings: { productRuntime: settings } });
  const principalId = await insertPrincipal(sql, chain.installationId);
  return {
    ...chain,
    principalId,
    caller: {
      organizationId: chain.organizationId,
      installationId: chain.installationId,
      principalId,
      budgetMicrodollars: settings.intelligenceBudgetMicrodollarsMonthly,
      sublimitMicrodollars: sublimitMicrodollars,
      maxConcurrent: settings.maxConcurrentIntelligence,
    },
  };
}

/** Another installation (of another customer) of the fixture's product, with its own principal and sublimit. */
export async function insertSecondInstallation(sql: Sql, fixture: LedgerFixture, sublimitMicrodollars: number | null): Promise<MeteredCaller> {
  const customer = await insertRuntimeAccount(sql, `customer-${randomBytes(3).toString('hex')}`);
  const installationId = newId();
  await sql.query(`INSERT INTO runtime_installations (id, product_id, customer_account_id, configuration) VALUES ($1, $2, $3, $4)`, [
    installationId,
    fixture.productId,
    customer,
    JSON.stringify(sublimitMicrodollars === null ? {} : { productRuntime: { intelligenceBudgetMicrodollarsMonthly: sublimitMicrodollars } }),
  ]);
  const principalId = await insertPrincipal(sql, installationId);
  return { ...fixture.caller, installationId, principalId, sublimitMicrodollars };
}

/** Every ledger row and counter of an organization, for "nothing changed" assertions. */
export async function ledgerSnapshot(sql: Sql, organizationId: string): Promise<string> {
  const rows = await sql.query(`SELECT * FROM intelligence_ledger WHERE organization_id = $1 ORDER BY id`, [organizationId]);
  const months = await sql.query(`SELECT * FROM intelligence_organization_months WHERE organization_id = $1 ORDER BY month_start`, [organizationId]);
  const installations = await sql.query(
    `SELECT m.* FROM intelligence_installation_months m JOIN runtime_installations i ON i.id = m.installation_id
       JOIN runtime_products p ON p.id = i.product_id WHERE p.organization_id = $1 ORDER BY m.installation_id, m.month_start`,
    [organizationId],
  );
  const running = await sql.query(`SELECT * FROM intelligence_running WHERE organization_id = $1`, [organizationId]);
  return JSON.stringify({ rows, months, installations, running });
}

/** The counters of an organization against what its rows hold: they must be equal at every quiet moment. */
export interface LedgerBalance {
  organizationHeld: number;
  rowsHeld: number;
  installations: Array<{ installationId: string; held: number; rowsHeld: number }>;
  running: number;
  runningRows: number;
}

/** Sums the rows (running rows hold their reservation, finished ones their charge) beside the counters. */
export async function ledgerBalance(sql: Sql, organizationId: string): Promise<LedgerBalance> {
  const organization = await sql.query<{ held: string }>(
    `SELECT coalesce(sum(held_microdollars), 0)::text AS held FROM intelligence_organization_months WHERE organization_id = $1`,
    [organizationId],
  );
  const holding = `CASE WHEN state IN ('reserved', 'dispatched') THEN reserved_microdollars ELSE charged_microdollars END`;
  const rows = await sql.query<{ held: string; running: number }>(
    `SELECT coalesce(sum(${holding}), 0)::text AS held, count(*) FILTER (WHERE state IN ('reserved', 'dispatched'))::int AS running
       FROM intelligence_ledger WHERE organization_id = $1`,
    [organizationId],
  );
  const installations = await sql.query<{ installation_id: string; held: string; rows_held: string }>(
    `SELECT m.installation_id, sum(m.held_microdollars)::text AS held,
            (SELECT coalesce(sum(${holding}), 0) FROM intelligence_ledger l WHERE l.installation_id = m.installation_id)::text AS rows_held
       FROM intelligence_installation_months m WHERE m.installation_id IN (SELECT DISTINCT installation_id FROM intelligence_ledger WHERE organization_id = $1)
      GROUP BY m.installation_id ORDER BY m.installation_id`,
    [organizationId],
  );
  const running = await sql.query<{ running: number }>(`SELECT running FROM intelligence_running WHERE organization_id = $1`, [organizationId]);
  return {
    organizationHeld: Number(organization[0]!.held),
    rowsHeld: Number(rows[0]!.held),
    installations: installations.map((row) => ({ installationId: row.installation_id, held: Number(row.held), rowsHeld: Number(row.rows_held) })),
    running: running[0]?.running ?? 0,
    runningRows: rows[0]!.running,
  };
}

/** Prices of the ledger tests: 1 µ$ an input token, 2 an output token, 1,000 an image. */
export const LEDGER_TEST_PRICES = { inputMicrodollarsPerToken: 1, outputMicrodollarsPerToken: 2, imageMicrodollars: 1_000 };

/** The real model client pointed at a fake model server, without retries (each fake behaviour is one attempt). */
export function ledgerTestModel(fake: Pick<ModelFake, 'baseUrl' | 'apiKey' | 'chatModel' | 'imageModel'>, timeoutMs = 10_000): ModelPort {
  return createOpenAiCompatibleModel({
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    chatModel: fake.chatModel,
    imageModel: fake.imageModel,
    prices: LEDGER_TEST_PRICES,
    timeoutMs,
    connectTimeoutMs: 5_000,
    allowPrivateAddresses: true,
    isPublicAddress,
    limits: { maxRetries: 0 },
  });
}
