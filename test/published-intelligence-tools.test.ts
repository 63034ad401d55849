/**
 * The six published-intelligence tools end to end (spec 4.2, 4.4; docs/packs.md): on the MCP gateway and on the
 * product-only endpoint, with entitlement from server records on every call (an unentitled caller is answered as
 * for an unknown product), required cutoffs, pinned pack versions, and no vault tool answering at
 * `/api/intelligence/mcp`. Every refusal is followed by a check that nothing changed.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack, type ParsedPack } from '../src/domains/packs/index.ts';
import { newId } from '../src/kernel/ids.ts';
import { TOOL_OPERATIONS } from '../src/surfaces/mcp/tool-list.ts';
import { INTELLIGENCE_OPERATIONS } from '../src/surfaces/operations/intelligence-operations.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { mcpRequest, type McpReply } from './support/mcp-bearer-requests.ts';
import { EXAMPLE_PACK_DIR } from './support/pack-fixtures.ts';

/** The ids of a list of items of an answer. */
const ids = (items: unknown) => (items as { id: string }[]).map((item) => item.id);

const SIX = INTELLIGENCE_OPERATIONS.map((operation) => operation.mcp!.name);

describe('published intelligence tools', () => {
  let gateway: TestGateway;
  let example: ParsedPack;
  let customer: Owner;
  let admin: Owner;
  let stranger: Owner;
  let uninstalled: Owner;
  let productId: string;

  const endpoint = (path: '/api/mcp' | '/api/intelligence/mcp') => new URL(path, gateway.url);
  const call = (who: Owner, name: string, args: Record<string, unknown>, path: '/api/mcp' | '/api/intelligence/mcp' = '/api/intelligence/mcp') =>
    mcpRequest(endpoint(path), who.token, 'tools/call', { name, arguments: args });
  const result = (reply: McpReply) => {
    expect(reply.status).toBe(200);
    expect(reply.body?.result?.isError, JSON.stringify(reply.body)).toBeFalsy();
    return reply.body!.result.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tool answers of six shapes
  };
  const failure = (reply: McpReply) => {
    expect(reply.status).toBe(200);
    expect(reply.body?.result?.isError, JSON.stringify(reply.body)).toBe(true);
    return reply.body!.result.structuredContent as { code: string; message: string };
  };
  const packRows = async () =>
    JSON.stringify(
      await Promise.all(
        ['intelligence_packs', 'intelligence_pack_versions', 'intelligence_pack_assertions', 'intelligence_pack_insights'].map((table) =>
          gateway.db.query(`SELECT * FROM ${table} ORDER BY 1, 2`),
        ),
      ),
    );

  beforeAll(async () => {
    gateway = await startTestGateway();
    const loaded = await loadPack(EXAMPLE_PACK_DIR);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    example = loaded.pack;
    customer = await createOwner(gateway.services, 'customer');
    admin = await createOwner(gateway.services, 'admin');
    stranger = await createOwner(gateway.services, 'stranger');
    uninstalled = await createOwner(gateway.services, 'uninstalled');
    const organizationId = newId();
    productId = newId();
    await gateway.db.query(`INSERT INTO runtime_organizations (id, slug, name) VALUES ($1, $2, 'Riverton Learning')`, [organizationId, `riverton-${randomBytes(3).toString('hex')}`]);
    await gateway.db.query(`INSERT INTO runtime_organization_admins (organization_id, account_id) VALUES ($1, $2)`, [organizationId, admin.accountId]);
    await gateway.db.query(`INSERT INTO runtime_products (id, organization_id, slug, name) VALUES ($1, $2, 'tutor', 'Tutor')`, [productId, organizationId]);
    await gateway.db.query(`INSERT INTO runtime_installations (id, product_id, customer_account_id) VALUES ($1, $2, $3)`, [newId(), productId, customer.accountId]);
    await gateway.db.query(`INSERT INTO runtime_installations (id, product_id, customer_account_id, status, uninstalled_at) VALUES ($1, $2, $3, 'uninstalled', now())`, [
      newId(),
      productId,
      uninstalled.accountId,
    ]);
    const published = await gateway.services.packs.publish(example, { kind: 'operator' });
    expect(published).toMatchObject({ created: true, info: { version: 1, productSlug: 'tutor', packSlug: 'k8-math' } });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('lists exactly the six tools at the product-only endpoint, and them among the rest at /api/mcp', async () => {
    const only = await mcpRequest(endpoint('/api/intelligence/mcp'), stranger.token, 'tools/list');
    expect((only.body!.result.tools as { name: string }[]).map((tool) => tool.name)).toEqual(SIX);
    const all = (await mcpRequest(endpoint('/api/mcp'), stranger.token, 'tools/list')).body!.result.tools as { name: string; inputSchema: Record<string, any> }[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON Schema
    for (const name of SIX) {
      const tool = all.find((t) => t.name === name)!;
      expect(tool.inputSchema.required).toEqual(expect.arrayContaining(['product', 'asOf']));
      // No operation selector (spec 4.2 rule 1), and no vault: product entitlement instead of a mapping.
      expect(Object.keys(tool.inputSchema.properties)).not.toContain('operation');
      expect(Object.keys(tool.inputSchema.properties)).not.toContain('mappingId');
    }
  });

  it('answers a customer on both endpoints, with cited evidence available at the cutoff', async () => {
    const args = { product: 'tutor', asOf: '2024-03-01', question: 'fraction number line' };
    const answer = result(await call(customer, 'search_published_intelligence', args));
    expect(answer.pack).toMatchObject({ product: 'tutor', pack: 'k8-math', version: 1 });
    expect(answer.results.length).toBeGreaterThan(0);
    for (const hit of answer.results) {
      expect(hit.availableFrom <= '2024-03-01').toBe(true);
      for (const evidence of hit.evidence) {
        expect(evidence.citation).toMatch(/^https:\/\//);
        expect(evidence.version).not.toBe('2023'); // reported 2024-08-20, after the cutoff
      }
    }
    expect(result(await call(customer, 'search_published_intelligence', args, '/api/mcp'))).toEqual(answer);
  });

  it('answers an organization admin, and each of the six tools', async () => {
    const base = { product: 'tutor', asOf: '2024-09-01' };
    expect(ids(result(await call(admin, 'get_published_intelligence_state', base)).assertions)).not.toContain('calculators-g6-8');
    expect(ids(result(await call(admin, 'get_published_intelligence_changes', { ...base, from: '2024-08-01' })).retracted)).toContain('calculators-g6-8');
    expect(result(await call(admin, 'get_published_intelligence_timeline', base)).events.length).toBeGreaterThan(0);
    const sources = result(await call(admin, 'list_published_intelligence_sources', base));
    expect((sources.sources as { id: string }[]).find((s) => s.id === 'state-math-standards')).toMatchObject({ current: '2023' });
    expect(ids(result(await call(admin, 'get_published_intelligence_insights', base)).insights)).toContain('fractions-above-one');
  });

  it('answers a stranger, an uninstalled customer and an unknown product the same not_found, changing nothing', async () => {
    const before = await packRows();
    const unknown = failure(await call(customer, 'get_published_intelligence_state', { product: 'no-such-product', asOf: '2024-09-01' }));
    expect(unknown.code).toBe('not_found');
    for (const who of [stranger, uninstalled]) {
      for (const name of SIX) {
        const args = { product: 'tutor', asOf: '2024-09-01', ...(name === 'search_published_intelligence' ? { question: 'fractions' } : {}), ...(name === 'get_published_intelligence_changes' ? { from: '2024-01-01' } : {}) };
        expect(failure(await call(who, name, args))).toEqual(unknown);
      }
    }
    expect(await packRows()).toBe(before);
  });

  it('requires asOf, refuses impossible dates, an operation selector and a from after asOf', async () => {
    const refusals: [string, Record<string, unknown>][] = [
      ['get_published_intelligence_state', { product: 'tutor' }],
      ['get_published_intelligence_state', { product: 'tutor', asOf: '2024-02-30' }],
      ['get_published_intelligence_state', { product: 'tutor', asOf: '2024-09-01T00:00:00Z' }],
      ['get_published_intelligence_state', { product: 'tutor', asOf: '2024-09-01', operation: 'state' }],
      ['search_published_intelligence', { product: 'tutor', asOf: '2024-09-01' }],
      ['search_published_intelligence', { product: 'tutor', asOf: '2024-09-01', question: '   ' }],
      ['get_published_intelligence_changes', { product: 'tutor', asOf: '2024-09-01' }],
      ['get_published_intelligence_changes', { product: 'tutor', asOf: '2024-01-01', from: '2024-09-01' }],
      ['get_published_intelligence_state', { product: 'Tutor!', asOf: '2024-09-01' }],
    ];
    for (const [name, args] of refusals) expect(failure(await call(customer, name, args)).code, `${name} ${JSON.stringify(args)}`).toBe('invalid_request');
  });

  it('answers the latest pack version and a pinned earlier one; a new version rewrites nothing', async () => {
    const v1State = result(await call(customer, 'get_published_intelligence_state', { product: 'tutor', asOf: '2025-01-01' }));
    const changed = { ...example, title: `${example.title} (revised)`, assertions: example.assertions.filter((a) => a.id !== 'explain-before-rule') };
    expect(example.assertions.some((a) => a.id === 'explain-before-rule')).toBe(true);
    const outcome = await gateway.services.packs.publish(changed, { kind: 'account', accountId: admin.accountId });
    expect(outcome).toMatchObject({ created: true, info: { version: 2 } });
    const latest = result(await call(customer, 'get_published_intelligence_state', { product: 'tutor', asOf: '2025-01-01' }));
    expect(latest.pack.version).toBe(2);
    expect(ids(latest.assertions)).not.toContain('explain-before-rule');
    const pinned = result(await call(customer, 'get_published_intelligence_state', { product: 'tutor', asOf: '2025-01-01', packVersion: 1 }));
    expect(pinned).toEqual(v1State);
    expect(failure(await call(customer, 'get_published_intelligence_state', { product: 'tutor', asOf: '2025-01-01', packVersion: 9 })).code).toBe('not_found');
    expect(failure(await call(customer, 'get_published_intelligence_state', { product: 'tutor', pack: 'other-pack', asOf: '2025-01-01' })).code).toBe('not_found');
  });

  it('refuses to publish a parsed pack whose references name nothing, storing nothing', async () => {
    const before = await packRows();
    const broken = { ...example, assertions: example.assertions.filter((a) => a.id !== 'ratio-language-g6') };
    await expect(gateway.services.packs.publish(broken, { kind: 'operator' })).rejects.toMatchObject({ code: 'pack_invalid' });
    expect(await packRows()).toBe(before);
  });

  it('permits no vault tool at the product-only endpoint: each is an unknown tool there, and nothing changes', async () => {
    const before = JSON.stringify(await gateway.db.query('SELECT * FROM notes ORDER BY 1'));
    const vaultTools = TOOL_OPERATIONS.map((operation) => operation.mcp.name).filter((name) => !SIX.includes(name));
    expect(vaultTools.length).toBeGreaterThan(20);
    for (const name of vaultTools) {
      const refused = failure(await call(customer, name, { mappingId: customer.mapping.id, path: 'a.md', content: 'x', notes: [{ path: 'a.md', content: 'x' }], dryRun: false, idempotencyKey: `k-${name}` }));
      expect(refused.code, name).toBe('not_found');
      expect(refused.message).toContain(`Unknown tool: ${name}`);
    }
    expect(JSON.stringify(await gateway.db.query('SELECT * FROM notes ORDER BY 1'))).toBe(before);
  });
});
