/**
 * Published intelligence through kgate's in-page WebMCP adapter, in real Chromium (spec 4.4, 4.5; docs/packs.md,
 * "Surfaces"). The example pack k8-math is published for the product `tutor`, which the signed-in person has
 * installed. The page registers the six published-intelligence tools with the hosted tools' names and argument
 * schemas; an in-page agent (document.modelContext) and a product page (window.kgateAdapter.run with the
 * productIntelligence.* operation names) get exactly the hosted tool's answer, with its cited evidence, over the
 * session bridge at POST /api/intelligence/mcp. With a local vault selected that holds a note of the same words, the
 * answer is still the hosted pack's and the page opens no IndexedDB database. A person without entitlement gets
 * not_found; an unknown operation name, an operation selector, a vaultId or an unknown argument is refused in the page
 * before anything is sent.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack } from '../src/domains/packs/index.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { EXAMPLE_PACK_DIR } from './support/pack-fixtures.ts';

const PASSWORD = 'a long intelligence password';
const ENDPOINT = '/api/intelligence/mcp';
const INTELLIGENCE_TOOLS = [
  'get_published_intelligence_changes',
  'get_published_intelligence_insights',
  'get_published_intelligence_state',
  'get_published_intelligence_timeline',
  'list_published_intelligence_sources',
  'search_published_intelligence',
];
const STANDARDS_CITATION = 'https://standards.riverton.example/mathematics/k-8';
const PACK_TABLES = ['intelligence_packs', 'intelligence_pack_versions', 'intelligence_pack_assertions', 'intelligence_pack_evidence', 'intelligence_pack_insights'];

/** A tool result as the page answers it. */
interface ToolResult {
  isError?: boolean;
  structuredContent: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tool results of many shapes
}

/** One request the page sent to an MCP endpoint: where, its WebMCP and Authorization headers, its tools/call params. */
interface SentCall {
  path: string;
  webmcp: string | undefined;
  authorization: string | undefined;
  name: string;
  arguments: Record<string, unknown>;
}

describe.skipIf(!chromiumAvailable)('published intelligence through the in-page adapter', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  let strangerPage: Page;
  let personToken: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    const suffix = randomBytes(4).toString('hex');
    const personEmail = `learner-${suffix}@example.test`;
    const strangerEmail = `stranger-${suffix}@example.test`;
    const person = await gateway.services.onboarding.bootstrapOwner({ email: personEmail, password: PASSWORD });
    personToken = person.token;
    await gateway.services.onboarding.bootstrapOwner({ email: strangerEmail, password: PASSWORD });
    const orgAdmin = await gateway.services.onboarding.bootstrapOwner({ email: `publisher-${suffix}@example.test`, password: PASSWORD });
    const admin = gateway.services.runtimeAdmin;
    const organization = await admin.createOrganization({ slug: `riverton-${suffix}`, name: 'Riverton Learning', adminEmail: `publisher-${suffix}@example.test` });
    await admin.createProduct(orgAdmin.accountId, organization.id, { slug: 'tutor', name: 'Riverton Tutor', domainPack: 'education' });
    await admin.install(person.accountId, 'tutor');
    const loaded = await loadPack(EXAMPLE_PACK_DIR);
    if (!loaded.ok) throw new Error(`the example pack does not load: ${JSON.stringify(loaded.problems)}`);
    expect((await gateway.services.packs.publish(loaded.pack, { kind: 'operator' })).created).toBe(true);
    browser = await launchChromium();
    page = await signedInPage(browser, gateway.baseUrl, personEmail, PASSWORD);
    strangerPage = await signedInPage(browser, gateway.baseUrl, strangerEmail, PASSWORD);
    for (const p of [page, strangerPage]) await ready(p);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  async function ready(p: Page): Promise<void> {
    await p.goto(`${gateway.baseUrl}/workspace`);
    await p.waitForFunction("document.documentElement.dataset.webmcp === 'ready'");
    // Counts the IndexedDB databases the page opens from now on: the adapter's local vaults are its only use of it.
    await p.evaluate(`(() => {
      const open = indexedDB.open.bind(indexedDB);
      window.__kgateIdbOpens = 0;
      indexedDB.open = (...args) => { window.__kgateIdbOpens += 1; return open(...args); };
    })()`);
  }

  const idbOpens = (p: Page) => p.evaluate<number>('window.__kgateIdbOpens');

  /** Evaluates an async expression in the page and answers its JSON value. */
  async function inPage(p: Page, expression: string): Promise<ToolResult> {
    return JSON.parse(await p.evaluate<string>(`(async () => JSON.stringify(await ${expression}))()`)) as ToolResult;
  }

  /** Runs a tool of the page as an in-page agent would: found with getTools, run with executeTool. */
  const tool = (p: Page, name: string, input: Record<string, unknown>) =>
    inPage(
      p,
      `(async () => { const t = (await document.modelContext.getTools()).find((x) => x.name === ${JSON.stringify(name)}); const r = await document.modelContext.executeTool(t, ${JSON.stringify(JSON.stringify(input))}); return typeof r === 'string' ? JSON.parse(r) : r; })()`,
    );

  /** Runs an operation of a first-party page through window.kgateAdapter.run. */
  const operation = (p: Page, name: string, input: unknown) => inPage(p, `window.kgateAdapter.run(${JSON.stringify(name)}, ${JSON.stringify(input)})`);

  /** The hosted tool's own answer at the product-only endpoint, with the person's personal access token. */
  async function hosted(method: string, params: Record<string, unknown>): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC results of many shapes
    const response = await fetch(`${gateway.url}${ENDPOINT}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${personToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { result: Record<string, unknown> }).result;
  }
  const hostedCall = (name: string, args: Record<string, unknown>) => hosted('tools/call', { name, arguments: args });

  /** Records the MCP calls the page sends while `work` runs. */
  async function recording<T>(p: Page, work: () => Promise<T>): Promise<{ result: T; sent: SentCall[]; bodies: string[] }> {
    const sent: SentCall[] = [];
    const bodies: string[] = [];
    const record = (request: Request) => {
      bodies.push(`${request.url()} ${request.postData() ?? ''}`);
      const path = new URL(request.url()).pathname;
      if (path !== '/api/mcp' && path !== ENDPOINT) return;
      const headers = request.headers();
      const params = (JSON.parse(request.postData() ?? '{}') as { params: { name: string; arguments: Record<string, unknown> } }).params;
      sent.push({ path, webmcp: headers['kgate-webmcp'], authorization: headers.authorization, name: params.name, arguments: params.arguments });
    };
    p.on('request', record);
    try {
      return { result: await work(), sent, bodies };
    } finally {
      p.off('request', record);
    }
  }

  const packRows = async () => JSON.stringify(await Promise.all(PACK_TABLES.map((table) => gateway.db.query(`SELECT * FROM ${table} ORDER BY 1`))));

  it("registers the six tools with the hosted tools' names, titles and argument schemas, none taking a vaultId", async () => {
    const listed = (await hosted('tools/list', {})).tools as Array<{ name: string; title: string; inputSchema: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON Schema
    expect(listed.map((t) => t.name).sort()).toEqual(INTELLIGENCE_TOOLS);
    const inPageTools = await page.evaluate<Array<{ name: string; title: string; inputSchema: Record<string, any> }>>( // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON Schema
      'document.modelContext.getTools().then((tools) => tools.map(({ name, title, inputSchema }) => ({ name, title, inputSchema })))',
    );
    const registered = inPageTools.filter((t) => INTELLIGENCE_TOOLS.includes(t.name));
    expect(registered.map((t) => t.name).sort()).toEqual(INTELLIGENCE_TOOLS);
    for (const hostedTool of listed) {
      const own = registered.find((t) => t.name === hostedTool.name)!;
      expect(own.title).toBe(hostedTool.title);
      expect(own.inputSchema).toEqual(hostedTool.inputSchema);
      expect(Object.keys(own.inputSchema.properties)).not.toContain('vaultId');
      expect(own.inputSchema.required).toContain('asOf');
    }
  });

  it("answers search and the pack's sources with the hosted tools' answers and cited evidence, as a tool and by a product page's operation name", async () => {
    const question = { product: 'tutor', asOf: '2025-01-01', question: 'fractions on a number line' };
    const { result, sent } = await recording(page, async () => ({
      search: await tool(page, 'search_published_intelligence', question),
      sources: await tool(page, 'list_published_intelligence_sources', { product: 'tutor', asOf: '2025-01-01' }),
      byName: await operation(page, 'productIntelligence.search', question),
      insights: await operation(page, 'productIntelligence.insights', { product: 'tutor', asOf: '2024-03-01' }),
    }));
    const expected = await hostedCall('search_published_intelligence', question);
    expect(expected.isError).toBeFalsy();
    expect(result.search.isError).toBeFalsy();
    expect(result.search.structuredContent).toEqual(expected.structuredContent);
    expect(result.byName.structuredContent).toEqual(expected.structuredContent);
    // The answer is the pack's: the 2023 number-line standard, quoted from its source version with its citation.
    const results = result.search.structuredContent.results as Array<{ id: string; evidence: Array<{ citation: string; version: string; quote: string }> }>;
    expect(results.map((r) => r.id)).toContain('number-line-g3-2023');
    expect(results.find((r) => r.id === 'number-line-g3-2023')!.evidence).toEqual([
      expect.objectContaining({ citation: STANDARDS_CITATION, version: '2023', quote: expect.stringContaining('number line') }),
    ]);
    expect(result.search.structuredContent.pack).toMatchObject({ product: 'tutor', pack: 'k8-math', version: 1 });

    expect(result.sources.structuredContent).toEqual((await hostedCall('list_published_intelligence_sources', { product: 'tutor', asOf: '2025-01-01' })).structuredContent);
    expect((result.sources.structuredContent.sources as Array<{ citation: string }>).map((s) => s.citation)).toContain(STANDARDS_CITATION);
    // At 2024-03-01 only the first insight is available (the second needs the 2023 standards, reported 2024-08-20).
    expect(result.insights.structuredContent).toEqual((await hostedCall('get_published_intelligence_insights', { product: 'tutor', asOf: '2024-03-01' })).structuredContent);
    expect((result.insights.structuredContent.insights as Array<{ id: string }>).map((i) => i.id)).toEqual(['number-line-strand']);

    // Each went to the product-only endpoint over the session bridge, with exactly the tool's own arguments.
    expect(sent).toEqual([
      { path: ENDPOINT, webmcp: '1', authorization: undefined, name: 'search_published_intelligence', arguments: question },
      { path: ENDPOINT, webmcp: '1', authorization: undefined, name: 'list_published_intelligence_sources', arguments: { product: 'tutor', asOf: '2025-01-01' } },
      { path: ENDPOINT, webmcp: '1', authorization: undefined, name: 'search_published_intelligence', arguments: question },
      { path: ENDPOINT, webmcp: '1', authorization: undefined, name: 'get_published_intelligence_insights', arguments: { product: 'tutor', asOf: '2024-03-01' } },
    ]);
  });

  it('answers the hosted pack, never the selected local vault, even when a local note holds the same words', async () => {
    const marker = `LOCAL-ONLY-${randomBytes(6).toString('hex')}`;
    const content = `# Number line\n\nGrade 3 students place fractions on a number line. ${marker}\n`;
    const written = await tool(page, 'apply_note_writes', { notes: [{ path: 'Lessons/number-line.md', content }], idempotencyKey: `local-${marker}` });
    expect(written.structuredContent).toMatchObject({ vaultId: 'local:default', applied: true });
    const vaults = (await tool(page, 'list_vaults', {})).structuredContent.vaults as Array<{ vaultId: string; selected: boolean }>;
    expect(vaults).toContainEqual(expect.objectContaining({ vaultId: 'local:default', selected: true }));
    // The probe sees the local vault being read: a local search opens IndexedDB and finds the note.
    const opensBefore = await idbOpens(page);
    expect((await tool(page, 'search_notes', { query: 'fractions number line' })).structuredContent.results).toEqual([expect.objectContaining({ path: 'Lessons/number-line.md' })]);
    expect(await idbOpens(page)).toBeGreaterThan(opensBefore);

    const question = { product: 'tutor', asOf: '2025-01-01', question: 'Grade 3 students place fractions on a number line' };
    const opens = await idbOpens(page);
    const { result, sent, bodies } = await recording(page, async () => [
      await tool(page, 'search_published_intelligence', question),
      await operation(page, 'productIntelligence.search', question),
      await operation(page, 'productIntelligence.state', { product: 'tutor', asOf: '2025-01-01', limit: 3 }),
    ]);
    expect(await idbOpens(page)).toBe(opens);
    const expected = (await hostedCall('search_published_intelligence', question)).structuredContent;
    for (const answer of result.slice(0, 2)) {
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toEqual(expected);
      expect(JSON.stringify(answer)).not.toContain(marker);
      expect(JSON.stringify(answer)).not.toContain('Lessons/number-line.md');
    }
    expect(result[2]!.structuredContent).toEqual((await hostedCall('get_published_intelligence_state', { product: 'tutor', asOf: '2025-01-01', limit: 3 })).structuredContent);
    expect(sent.map((s) => [s.path, s.name])).toEqual([
      [ENDPOINT, 'search_published_intelligence'],
      [ENDPOINT, 'search_published_intelligence'],
      [ENDPOINT, 'get_published_intelligence_state'],
    ]);
    expect(bodies.filter((line) => line.includes(marker))).toEqual([]);
  });

  it('answers not_found to a person without entitlement, as for an unknown product, with nothing changed', async () => {
    const before = await packRows();
    const question = { product: 'tutor', asOf: '2025-01-01', question: 'fractions on a number line' };
    const { result, sent } = await recording(strangerPage, async () => [
      await tool(strangerPage, 'search_published_intelligence', question),
      await operation(strangerPage, 'productIntelligence.timeline', { product: 'tutor', asOf: '2025-01-01' }),
    ]);
    for (const answer of result) expect(answer).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
    expect(sent.map((s) => s.path)).toEqual([ENDPOINT, ENDPOINT]);
    const unknown = await tool(page, 'search_published_intelligence', { ...question, product: 'no-such-product' });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
    expect(unknown.structuredContent.message).toBe(result[0]!.structuredContent.message);
    expect(await packRows()).toBe(before);
  });

  it('refuses in the page, sending nothing, an unknown operation name, an operation selector, a vaultId and an unknown argument', async () => {
    const refusals: Array<[string, () => Promise<ToolResult>]> = [
      ['an unknown operation name', () => operation(page, 'productIntelligence.publish', { product: 'tutor', asOf: '2025-01-01' })],
      ['a bare operation selector', () => operation(page, 'operation', { operation: 'search_published_intelligence', product: 'tutor', asOf: '2025-01-01' })],
      ['a hosted tool name as an operation', () => operation(page, 'search_published_intelligence', { product: 'tutor', asOf: '2025-01-01', question: 'ratio' })],
      ['a selector beside a known name', () => operation(page, 'productIntelligence.search', { operation: 'state', product: 'tutor', asOf: '2025-01-01', question: 'ratio' })],
      ['a local vaultId', () => tool(page, 'search_published_intelligence', { vaultId: 'local:default', product: 'tutor', asOf: '2025-01-01', question: 'ratio' })],
      ['a hosted vaultId', () => tool(page, 'get_published_intelligence_state', { vaultId: 'hosted:00000000-0000-7000-8000-000000000000', product: 'tutor', asOf: '2025-01-01' })],
      ['an argument of another tool', () => tool(page, 'get_published_intelligence_timeline', { product: 'tutor', asOf: '2025-01-01', question: 'ratio' })],
      ['arguments that are not an object', () => operation(page, 'productIntelligence.sources', ['tutor', '2025-01-01'])],
    ];
    const before = await packRows();
    const opens = await idbOpens(page);
    for (const [label, refuse] of refusals) {
      const { result, sent } = await recording(page, refuse);
      expect(result, label).toMatchObject({ isError: true, structuredContent: { code: 'invalid_request' } });
      expect(sent, label).toEqual([]);
    }
    expect(await idbOpens(page)).toBe(opens);
    expect(await packRows()).toBe(before);
    // A malformed argument the page does not judge is the hosted tool's to refuse, and its refusal comes back as is.
    const { result, sent } = await recording(page, () => tool(page, 'search_published_intelligence', { product: 'tutor', question: 'ratio' }));
    expect(result).toMatchObject({ isError: true, structuredContent: { code: 'invalid_request' } });
    expect(sent.map((s) => s.path)).toEqual([ENDPOINT]);
  });
});
