/**
 * What the rubric-draft tests share: an installation whose customer signs in with a password (for the page), an
 * organization with an intelligence budget, a request, the model's answer to it, and snapshots for "nothing changed".
 */
import { randomUUID } from 'node:crypto';
import type { Sql } from '../../src/db/port.ts';
import type { RuntimeScope } from '../../src/domains/runtime/index.ts';
import type { TestGateway } from './gateway.ts';
import { newAccount, type TestAccount } from './oauth-flow.ts';
import { callRuntime, runtimeToken, type RuntimeAnswer } from './runtime-gateway.ts';

/** Where the rubric routes live. */
export const RUBRICS = '/api/product/v1/intelligence/education';

/** An installation of a product whose organization has a budget, its principal's token, and its customer. */
export interface RubricChain {
  customer: TestAccount;
  organizationId: string;
  installationId: string;
  principalId: string;
  token: string;
}

/** Makes the chain; the principal holds `scopes` (intelligence.execute); the budget is 50 US dollars a month. */
export async function createRubricChain(gateway: TestGateway, label: string, scopes: RuntimeScope[] = ['intelligence.execute']): Promise<RubricChain> {
  const { runtimeAdmin: admin, runtimeCredentials: credentials } = gateway.services;
  const suffix = randomUUID().slice(0, 8);
  const customer = await newAccount(gateway, `${label}-customer`);
  const orgAdmin = await newAccount(gateway, `${label}-org-admin`);
  const organization = await admin.createOrganization({ slug: `org-${label}-${suffix}`, name: `Org ${label}`, adminEmail: orgAdmin.email });
  await admin.setOrganizationSettings(organization.slug, { intelligenceBudgetMicrodollarsMonthly: 50_000_000 });
  const product = await admin.createProduct(orgAdmin.accountId, organization.id, { slug: `rubrics-${label}-${suffix}`, name: `Planner ${label}`, domainPack: 'education' });
  const installation = await admin.install(customer.accountId, product.slug);
  const principal = await credentials.createPrincipal(orgAdmin.accountId, installation.id, { name: `${label} backend`, scopes });
  const secret = await credentials.addClientSecret(orgAdmin.accountId, principal.id);
  const token = await runtimeToken(gateway, { principalId: principal.id, clientSecret: secret.secret });
  return { customer, organizationId: organization.id, installationId: installation.id, principalId: principal.id, token };
}

/** A rubric-draft request of two criteria and three levels. */
export function rubricRequest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    course: { name: 'Grade 7 English', subject: 'ELA', gradeBand: '7' },
    task: 'An argument essay on school start times.',
    standards: [
      { code: 'W.7.1', statement: 'Write arguments to support claims with clear reasons and relevant evidence.' },
      { code: 'W.7.1b', statement: 'Support claims with logical reasoning and relevant evidence.' },
    ],
    learningTargets: ['I can state a claim.', 'I can support my claim with evidence.'],
    criterionCount: 2,
    levelLabels: ['Exceeds', 'Meets', 'Approaching'],
    accessibility: ['Descriptors readable at a grade 5 level'],
    ...extra,
  };
}

/** The model's answer to rubricRequest: valid unless changed. */
export function modelRubric(title = 'Argument essay'): { title: string; criteria: Array<Record<string, unknown> & { weight: number; descriptors: Array<{ level: string; text: string }> }> } {
  return {
    title,
    criteria: [
      {
        name: 'Claim',
        weight: 40,
        standards: ['W.7.1'],
        descriptors: [
          { level: 'Exceeds', text: 'States a precise claim in the first paragraph and names a counterclaim.' },
          { level: 'Meets', text: 'States a clear claim in the first paragraph.' },
          { level: 'Approaching', text: 'The claim is implied but never stated.' },
        ],
      },
      {
        name: 'Evidence',
        weight: 60,
        standards: ['W.7.1b'],
        descriptors: [
          { level: 'Exceeds', text: 'Cites three or more relevant facts, each with its source.' },
          { level: 'Meets', text: 'Cites two relevant facts.' },
          { level: 'Approaching', text: 'Cites one fact or none.' },
        ],
      },
    ],
  };
}

/** Posts a draft with an Idempotency-Key (none when `key` is null). */
export function draftRubric(gateway: TestGateway, token: string, json: unknown, key: string | null): Promise<RuntimeAnswer> {
  return callRuntime(gateway, token, 'POST', `${RUBRICS}/rubric-draft`, { json, headers: { 'Idempotency-Key': key } });
}

/** Every rubric row, version row and ledger row, for "nothing changed" assertions. */
export async function rubricState(sql: Sql): Promise<string> {
  return JSON.stringify([
    await sql.query('SELECT * FROM education_rubrics ORDER BY id'),
    await sql.query('SELECT * FROM education_rubric_versions ORDER BY rubric_id, version'),
    await sql.query('SELECT id, state, charged_microdollars FROM intelligence_ledger ORDER BY id'),
    await sql.query('SELECT * FROM intelligence_organization_months ORDER BY organization_id'),
  ]);
}
