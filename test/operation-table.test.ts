/**
 * One operation, every surface: the operation table (src/surfaces/operations/table.ts) is the single source of what
 * the REST API routes and documents and of what the MCP gateway lists and calls.
 *
 * - Every REST route of the running router, every operation of the served OpenAPI document and every tool of
 *   tools/list comes from exactly one operation of the table, and every binding of the table is served.
 * - Every operation declares its credential kinds, its scope, its allowance, its idempotency rule and its errors.
 * - An output field that is not in an operation's output schema never reaches the wire, on either surface: a probe
 *   operation added to the real table returns extra fields at every depth, and neither surface shows them.
 */
import { AUTOMATION_OPERATIONS } from '../src/surfaces/operations/automation-table.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../src/logger.ts';
import { httpDependenciesOf } from '../src/app/gateway.ts';
import { ERROR_CODES } from '../src/kernel/error-codes.ts';
import { createHttpApp } from '../src/surfaces/gateway/http-app.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation, type AnyOperation } from '../src/surfaces/operations/operation.ts';
import { BUILT_CAPABILITIES, isCapabilityId } from '../src/domains/runtime/presentation/index.ts';
import { runtimeCatalogueOf } from '../src/surfaces/product/routes.ts';
import { OPERATIONS } from '../src/surfaces/operations/table.ts';
import { OTHER_NOTE_DEPTHS } from '../src/surfaces/rest/dev-api.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { connectMcpClient } from './support/mcp-client.ts';
import { mcpRequest } from './support/mcp-bearer-requests.ts';
import { restClient } from './support/rest-client.ts';

const SECRET = 'never-on-the-wire';

/** A read operation whose run returns more than its output schema declares, at the top, in an object and in a list. */
const leakProbe = defineOperation({
  id: 'leakProbe',
  summary: 'Probe: output stripping',
  description: 'Returns fields its output schema does not declare; only the declared ones may reach the wire.',
  tags: ['probe'],
  input: z.strictObject({}),
  output: z.object({ shown: z.string(), nested: z.object({ kept: z.number() }), list: z.array(z.object({ a: z.number() })) }),
  errors: [],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  rest: [{ method: 'GET', path: '/probe/leak' }],
  mcp: { name: 'probe_leak', title: 'Probe', annotations: READ_ONLY_TOOL },
  run: () => {
    const leaked = { shown: 'yes', secret: SECRET, nested: { kept: 1, secret: SECRET }, list: [{ a: 1, secret: SECRET }] };
    return Promise.resolve(leaked);
  },
});

const API_PREFIX = '/api/dev';

/** `METHOD /path` of every binding of the table, with its operation. */
function restBindings(operations: readonly AnyOperation[]): Map<string, string[]> {
  const bindings = new Map<string, string[]>();
  for (const operation of operations) {
    for (const binding of operation.rest ?? []) {
      const key = `${binding.method} ${binding.path}`;
      bindings.set(key, [...(bindings.get(key) ?? []), operation.id]);
    }
  }
  return bindings;
}

describe('the operation table', () => {
  it('declares, for every operation, credential kinds, a scope, an allowance, an idempotency rule, known errors and a binding', () => {
    const ids = OPERATIONS.map((operation) => operation.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of OPERATIONS) {
      const declared = {
        id: operation.id,
        credentials: operation.credentials.length > 0,
        // `runtime`: served only by the Product Runtime, to service principals, whose scopes its bindings name.
        scope:
          ['mcp:read', 'mcp:write'].includes(operation.scope) ||
          (operation.scope === 'runtime' && operation.credentials.every((kind) => kind === 'service_principal') && (operation.product ?? []).length > 0),
        allowance: operation.allowance,
        idempotency: ['none', 'when-applying', 'always', 'metered'].includes(operation.idempotency),
        errors: Array.isArray(operation.errors) && operation.errors.every((code) => code in ERROR_CODES),
        bound: (operation.rest ?? []).length > 0 || operation.mcp !== undefined || (operation.product ?? []).length > 0,
        summary: operation.summary.length > 0 && operation.description.length > 0,
      };
      expect(declared).toEqual({ ...declared, credentials: true, scope: true, allowance: 'operation', idempotency: true, errors: true, bound: true, summary: true });
      // A change needs the write scope; a read never takes an idempotency key.
      if (operation.idempotency !== 'none' && operation.scope !== 'runtime') {
        expect({ id: operation.id, scope: operation.scope }).toEqual({ id: operation.id, scope: 'mcp:write' });
      }
      // A Product Runtime route is served only to service principals, which the operation must accept.
      if ((operation.product ?? []).length > 0) expect({ id: operation.id, accepts: operation.credentials.includes('service_principal') }).toEqual({ id: operation.id, accepts: true });
      // Inputs are strict: an undocumented field is refused, never ignored.
      expect({ id: operation.id, strict: operation.input.safeParse({ undocumented: 1 }).error?.issues.some((i) => i.code === 'unrecognized_keys') }).toEqual({
        id: operation.id,
        strict: true,
      });
    }
  });

  it('marks every operation that changes notes heavy, so that such calls take turns on the request thread', () => {
    // Scope management changes no note and plans nothing: a light call, though it needs the write scope.
    const changing = OPERATIONS.filter((op) => op.scope === 'mcp:write' && !op.tags.includes('scopes'));
    expect(changing.length).toBeGreaterThanOrEqual(8);
    for (const op of changing) expect(op.cost, op.id).toBe('heavy');
    for (const op of OPERATIONS.filter((o) => o.scope === 'mcp:read')) expect(op.cost, op.id).toBeUndefined();
  });

  it('serves on the Product Runtime exactly the capabilities the catalogue calls built, each a catalogue id', () => {
    const served = runtimeCatalogueOf(OPERATIONS, { chat: false, image: false }).built;
    for (const capability of served) expect({ capability, known: isCapabilityId(capability) }).toEqual({ capability, known: true });
    expect([...served].sort()).toEqual([...BUILT_CAPABILITIES].sort());
  });

  it('binds every REST route and MCP tool name to exactly one operation', () => {
    for (const [route, operations] of restBindings(OPERATIONS)) expect({ route, operations: operations.length }).toEqual({ route, operations: 1 });
    const productRoutes = OPERATIONS.flatMap((operation) => (operation.product ?? []).map((b) => `${b.method} ${b.path}`));
    expect(new Set(productRoutes).size).toBe(productRoutes.length);
    const tools = OPERATIONS.flatMap((operation) => (operation.mcp ? [operation.mcp.name] : []));
    expect(new Set(tools).size).toBe(tools.length);
  });
});

describe('the surfaces, derived from the table', () => {
  let gateway: TestGateway;
  let owner: Owner;
  const table = [...OPERATIONS, leakProbe];

  beforeAll(async () => {
    gateway = await startTestGateway({ operations: table });
    owner = await createOwner(gateway.services, 'table');
  });
  afterAll(() => gateway.stop());

  it('routes, documents and lists exactly the bindings of the table, each from one operation', async () => {
    const bindings = restBindings(table);
    // The router of the real application.
    const app = createHttpApp(httpDependenciesOf(gateway.services, gateway.db, { logger: createLogger('silent'), baseUrl: '', operations: table }));
    const all = app.routes
      .filter((r) => r.method !== 'ALL' && r.path.startsWith(`${API_PREFIX}/`) && r.path !== `${API_PREFIX}/openapi.json`)
      .map((r) => `${r.method} ${r.path.slice(API_PREFIX.length)}`)
      .filter((route) => !route.endsWith(OTHER_NOTE_DEPTHS))
      .map((route) => route.replace(/:(\w+)/g, '{$1}'));
    // The automation gateway shares the prefix and serves its own table, with its own document.
    const automation = `/automation`;
    const routed = all.filter((route) => !route.split(' ')[1]!.startsWith(`${automation}/`));
    expect(new Set(routed).size).toBe(routed.length);
    expect([...routed].sort()).toEqual([...bindings.keys()].sort());
    const automationRouted = all
      .filter((route) => route.split(' ')[1]!.startsWith(`${automation}/`) && route !== `GET ${automation}/openapi.json`)
      .map((route) => route.replace(` ${automation}/`, ' /'));
    expect([...automationRouted].sort()).toEqual([...restBindings(AUTOMATION_OPERATIONS).keys()].sort());

    // The served OpenAPI document: one operation object per binding, with the binding's (or operation's) id.
    const doc = (await (await fetch(`${gateway.url}${API_PREFIX}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op.operationId] as const),
    );
    const expected = table.flatMap((operation) =>
      (operation.rest ?? []).map((binding) => [`${binding.method} ${binding.path}`, binding.operationId ?? operation.id] as const),
    );
    expect(documented.filter(([route]) => route !== 'GET /openapi.json').sort()).toEqual([...expected].sort());

    // tools/list of the running gateway: one tool per MCP binding, with the operation's schemas and description.
    const listed = await mcpRequest(gateway, owner.token, 'tools/list');
    const tools = (listed.body!.result as { tools: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> }).tools;
    const withTools = table.filter((operation) => operation.mcp);
    expect(tools.map((tool) => tool.name)).toEqual(withTools.map((operation) => operation.mcp!.name));
    for (const [k, operation] of withTools.entries()) {
      expect(tools[k]!.description.startsWith(operation.description)).toBe(true);
      const properties = Object.keys(tools[k]!.inputSchema.properties ?? {});
      const withKey = operation.mcp!.idempotencyKey ? [...Object.keys(operation.input.shape), 'idempotencyKey'] : Object.keys(operation.input.shape);
      expect({ tool: tools[k]!.name, properties: properties.sort() }).toEqual({ tool: tools[k]!.name, properties: withKey.sort() });
    }
  });

  it('never lets an output field outside the schema reach the wire, on REST or MCP', async () => {
    const rest = await restClient(gateway, owner.token).get('/probe/leak');
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toEqual({ shown: 'yes', nested: { kept: 1 }, list: [{ a: 1 }] });
    expect(rest.text).not.toContain(SECRET);

    const raw = await mcpRequest(gateway, owner.token, 'tools/call', { name: 'probe_leak', arguments: {} });
    expect(raw.body!.result.structuredContent).toEqual({ shown: 'yes', nested: { kept: 1 }, list: [{ a: 1 }] });
    expect(JSON.stringify(raw.body)).not.toContain(SECRET);

    // The SDK client validates what it gets against the listed output schema, and sees the same.
    const client = await connectMcpClient(gateway.url, owner.token);
    try {
      const called = await client.callTool({ name: 'probe_leak', arguments: {} });
      expect(called.structuredContent).toEqual({ shown: 'yes', nested: { kept: 1 }, list: [{ a: 1 }] });
    } finally {
      await client.close();
    }
  });
});
