/**
 * The published contract of the Developer REST API is the enforced one (DESIGN.md principle 5):
 *
 * - GET /api/dev/openapi.json, served by a real gateway, is a valid OpenAPI 3.1 document (checked by an OpenAPI
 *   schema validator) whose every schema is valid JSON Schema 2020-12 (checked by Ajv, the validator's own engine).
 * - The document and the router of the real HTTP app list exactly the same operations, and each documented
 *   operation is dispatched by the running server.
 * - Each POST body the document publishes is what the server enforces: a JSON Schema validator reading only the
 *   document and the server give the same verdict on valid bodies and on mutations of them (an undocumented field,
 *   a missing field, a field of the wrong type), and nothing changes when the server rejects.
 */
import { createRequire } from 'node:module';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { VERSION } from '../src/app/version.ts';
import { httpDependenciesOf } from '../src/app/gateway.ts';
import { createHttpApp } from '../src/surfaces/gateway/http-app.ts';
import { OTHER_NOTE_DEPTHS } from '../src/surfaces/rest/dev-api.ts';
import { DEVELOPER_ROUTES } from '../src/surfaces/rest/routes.ts';
import { createOwner, snapshotTables, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient, snapshotOf, type RestClient } from './support/rest-client.ts';

type Json = Record<string, unknown>;

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const API_PREFIX = '/api/dev';

/** The part of Ajv 8 (JSON Schema 2020-12) this test uses. */
interface JsonSchemaValidator {
  validateSchema(schema: unknown): boolean;
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: unknown };
  errors?: unknown;
}

/**
 * Ajv for JSON Schema 2020-12, resolved from the OpenAPI validator's own location: it is the engine that validator
 * runs on (Ajv 8), whereas a bare `ajv` import here would find ESLint's Ajv 6, which predates 2020-12.
 */
function jsonSchemaValidator(): JsonSchemaValidator {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('@seriousme/openapi-schema-validator'));
  const Ajv2020 = (fromValidator('ajv/dist/2020') as { default: new (options: object) => JsonSchemaValidator }).default;
  const addFormats = (fromValidator('ajv-formats') as { default: (ajv: JsonSchemaValidator) => void }).default;
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** `METHOD /path` with OpenAPI `{param}` templates, relative to /api/dev. */
function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** Every operation of the document as [method, path, operation object]. */
function documentedOperations(doc: Json): Array<[string, string, Json]> {
  const ops: Array<[string, string, Json]> = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) ops.push([method, path, operation as Json]);
  }
  return ops;
}

/** Every schema object in the document: parameters, request bodies, responses, components. */
function allSchemas(doc: Json): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  for (const [method, path, op] of documentedOperations(doc)) {
    const where = operationKey(method, path);
    for (const param of (op.parameters ?? []) as Json[]) found.push([`${where} parameter ${String(param.name)}`, param.schema]);
    const body = op.requestBody as { content: Record<string, { schema: unknown }> } | undefined;
    for (const [type, media] of Object.entries(body?.content ?? {})) found.push([`${where} request ${type}`, media.schema]);
    for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
      for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, { schema: unknown }>)) {
        found.push([`${where} ${status} ${type}`, media.schema]);
      }
      for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, { schema: unknown }>)) {
        found.push([`${where} ${status} header ${name}`, header.schema]);
      }
    }
  }
  for (const [name, schema] of Object.entries(((doc.components as Json).schemas ?? {}) as Json)) found.push([`components ${name}`, schema]);
  return found;
}

/** Every object schema (one with `properties`) inside `schema`, with where it sits. */
function objectSchemas(schema: unknown, where = '(body)'): Array<[string, Json]> {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Json;
  const found: Array<[string, Json]> = s.properties ? [[where, s]] : [];
  for (const [name, child] of Object.entries((s.properties ?? {}) as Json)) found.push(...objectSchemas(child, `${where}.${name}`));
  if (s.items) found.push(...objectSchemas(s.items, `${where}[]`));
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    ((s[key] ?? []) as unknown[]).forEach((variant, k) => found.push(...objectSchemas(variant, `${where}(${key} ${k})`)));
  }
  return found;
}

/** A value that the property schema certainly does not accept, chosen from its declared type. */
function wrongTypeFor(schema: Json): unknown {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('string')) return 12345;
  if (types.includes('boolean') || types.includes('integer') || types.includes('number')) return 'not-a-boolean-or-number';
  if (types.includes('array')) return { not: 'an array' };
  if (types.includes('object')) return ['not', 'an', 'object'];
  // A union of objects (a write's target): an array is none of them.
  const branches = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
  if (branches?.every((branch) => branch.type === 'object')) return ['not', 'an', 'object'];
  throw new Error(`no wrong-type value for ${JSON.stringify(schema)}`);
}

describe('the OpenAPI document of the Developer REST API', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let doc: Json;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'openapi');
    api = restClient(gateway, owner.token);
    const response = await api.get('/openapi.json', { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    doc = response.body;
  });
  afterAll(() => gateway.stop());

  describe('validity', () => {
    it('is a valid OpenAPI 3.1 document, served without a token', async () => {
      const validator = new Validator();
      const result = await validator.validate(doc);
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
      expect(doc.info).toMatchObject({ title: expect.any(String), version: VERSION });
      expect(doc.servers).toEqual([{ url: expect.stringMatching(/\/api\/dev$/) }]);
    });

    it('every schema in it is valid JSON Schema 2020-12 (the OpenAPI schema leaves schema objects unchecked)', () => {
      const ajv = jsonSchemaValidator();
      const schemas = allSchemas(doc);
      expect(schemas.length).toBeGreaterThan(50);
      const invalid = schemas
        .filter(([, schema]) => !ajv.validateSchema(schema))
        .map(([where]) => where);
      expect(invalid).toEqual([]);
    });

    it('the only $ref targets exist', () => {
      const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of new Set(refs)) {
        expect(ref).toMatch(/^#\/components\/schemas\/\w+$/);
        expect((doc.components as { schemas: Json }).schemas[ref.split('/').pop()!]).toBeDefined();
      }
    });
  });

  describe('the document and the router list the same operations', () => {
    function routerOperations(): string[] {
      // The app as src/app/gateway.ts builds it, over the gateway's own services and database.
      const { services } = gateway;
      const app = createHttpApp(httpDependenciesOf(services, gateway.db, { logger: createLogger('silent'), baseUrl: '' }));
      // Middleware (the body bound, the request log) is registered with method ALL; every handler has a real method.
      // The automation gateway shares the prefix and has its own document (test/automation-openapi.test.ts).
      return app.routes
        .filter((r) => r.method !== 'ALL' && r.path.startsWith(`${API_PREFIX}/`) && !r.path.startsWith(`${API_PREFIX}/automation/`))
        .map((r) => operationKey(r.method, r.path.slice(API_PREFIX.length).replace(/:(\w+)/g, '{$1}')));
    }

    // The catch-all of other note depths is the two-segment operation answering invalid_path, not an operation of its own.
    const otherDepths = (method: string) => operationKey(method, OTHER_NOTE_DEPTHS.replace(/:(\w+)/g, '{$1}'));

    it('routes other depths of a two-segment note route to that documented operation only', () => {
      const routed = routerOperations();
      const documented = documentedOperations(doc).map(([method, path]) => operationKey(method, path));
      const catchAll = routed.filter((op) => op.includes('{rest}'));
      expect(catchAll.sort()).toEqual([otherDepths('delete'), otherDepths('get')]);
      for (const method of ['get', 'delete']) expect(documented).toContain(operationKey(method, '/notes/{category}/{filename}'));
    });

    it('has the same set of METHOD /path as the Hono router under /api/dev, with no duplicates', () => {
      const routed = routerOperations().filter((op) => !op.includes('{rest}'));
      const documented = documentedOperations(doc).map(([method, path]) => operationKey(method, path));
      expect(new Set(routed).size).toBe(routed.length);
      expect(new Set(documented).size).toBe(documented.length);
      expect([...new Set(documented)].sort()).toEqual([...new Set(routed)].sort());
      // Sanity: the comparison is over the real API, not two empty sets.
      expect(documented).toEqual(expect.arrayContaining(['GET /notes/{category}/{filename}', 'POST /transactions', 'GET /openapi.json']));
    });

    it('path items hold operations only (nothing hidden in path-level fields)', () => {
      for (const item of Object.values(doc.paths as Record<string, Json>)) {
        for (const key of Object.keys(item)) expect(HTTP_METHODS).toContain(key);
      }
    });

    it('the running server dispatches every documented operation, and no undocumented method on its paths', async () => {
      for (const [method, path] of documentedOperations(doc)) {
        const concrete = path.replace('{category}', 'folder').replace('{filename}', 'note.md');
        const response = await api.request(method.toUpperCase(), concrete, { token: null });
        if (path === '/openapi.json') {
          expect(response.status).toBe(200);
        } else {
          // Authentication runs first: a routed operation answers 401, an unrouted one 404 "No route".
          expect({ op: operationKey(method, path), status: response.status }).toEqual({ op: operationKey(method, path), status: 401 });
        }
      }
      for (const path of Object.keys(doc.paths as Json)) {
        const documented = Object.keys((doc.paths as Record<string, Json>)[path]!);
        const concrete = path.replace('{category}', 'folder').replace('{filename}', 'note.md');
        for (const method of ['put', 'patch', 'post', 'delete'].filter((m) => !documented.includes(m))) {
          const response = await api.request(method.toUpperCase(), concrete, { token: null });
          expect({ op: operationKey(method, path), status: response.status, code: response.body.code }).toEqual({
            op: operationKey(method, path),
            status: 404,
            code: 'not_found',
          });
        }
      }
    });
  });

  describe('every operation', () => {
    const isMeta = (path: string) => path === '/openapi.json';

    it('has a unique operationId and a 200 response with a JSON schema', () => {
      const ids = documentedOperations(doc).map(([, , op]) => op.operationId);
      expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(id))).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      for (const [method, path, op] of documentedOperations(doc)) {
        const ok = (op.responses as Record<string, { content?: Record<string, { schema?: Json }> }>)['200'];
        const schema = ok?.content?.['application/json']?.schema;
        expect({ op: operationKey(method, path), type: schema?.type }).toEqual({ op: operationKey(method, path), type: 'object' });
      }
    });

    it('documents problem responses for 401, and 400 and 404 for every operation with input, and the bearer challenge on 401', () => {
      for (const [method, path, op] of documentedOperations(doc)) {
        if (isMeta(path)) continue; // takes no input and no credential
        const responses = op.responses as Record<string, { content?: Json; headers?: Json }>;
        // An operation that takes no input at all (the mapping list) can be refused only for who asks.
        const takesInput = ((op.parameters ?? []) as Json[]).length > 0 || op.requestBody !== undefined;
        for (const status of takesInput ? ['400', '401', '404'] : ['401']) {
          expect({ op: operationKey(method, path), status, content: responses[status]?.content }).toEqual({
            op: operationKey(method, path),
            status,
            content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
          });
        }
        expect(responses['401']?.headers).toHaveProperty('WWW-Authenticate');
        // Every documented error status is an error status with a problem body.
        for (const [status, response] of Object.entries(responses)) {
          if (Number(status) >= 400) expect(Object.keys(response.content ?? {})).toEqual(['application/problem+json']);
        }
      }
    });

    it('requires the personal access token, except openapi.json itself', () => {
      const schemes = (doc.components as { securitySchemes: Json }).securitySchemes;
      expect(schemes.personalAccessToken).toMatchObject({ type: 'http', scheme: 'bearer' });
      for (const [method, path, op] of documentedOperations(doc)) {
        const expected = isMeta(path) ? [] : [{ personalAccessToken: [] }];
        expect({ op: operationKey(method, path), security: op.security }).toEqual({ op: operationKey(method, path), security: expected });
      }
    });

    it('documents the Idempotency-Key header on exactly the write operations', () => {
      const writes = new Set(DEVELOPER_ROUTES.filter((r) => r.operation.idempotency !== 'none').map((r) => r.operationId));
      expect(writes.size).toBeGreaterThan(0);
      // Proposing changes no note and is idempotent by content: the same change, by the same credential, against the
      // same revisions answers the proposal already waiting (docs/proposals.md). It takes no key.
      const idempotentByContent = new Set(['proposeAction', 'proposeKnowledgeChange']);
      for (const [method, path, op] of documentedOperations(doc)) {
        const header = ((op.parameters ?? []) as Json[]).find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
        const isWrite = writes.has(op.operationId as string);
        // Writes are exactly the non-GET operations.
        expect({ op: operationKey(method, path), isWrite }).toEqual({
          op: operationKey(method, path),
          isWrite: method !== 'get' && !idempotentByContent.has(op.operationId as string),
        });
        if (isWrite) {
          expect(header).toMatchObject({ required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } });
          expect(String(header!.description)).toMatch(/dryRun false/);
          const ok = (op.responses as Record<string, { headers?: Json }>)['200'];
          expect(ok?.headers).toHaveProperty('Idempotent-Replayed');
        } else {
          expect({ op: operationKey(method, path), header }).toEqual({ op: operationKey(method, path), header: undefined });
        }
      }
    });

    it('declares every path template parameter as a required path parameter, and no other path parameter', () => {
      for (const [method, path, op] of documentedOperations(doc)) {
        const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
        const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'path');
        expect({ op: operationKey(method, path), params: declared.map((p) => p.name).sort() }).toEqual({
          op: operationKey(method, path),
          params: inTemplate,
        });
        for (const p of declared) expect(p.required).toBe(true);
      }
    });
  });

  describe('published request bodies are the enforced ones', () => {
    // One valid body per POST operation, using every documented field. The test below fails when a POST route
    // is added without an example here, so that no body goes unchecked.
    let examples: Record<string, Json>;
    let postOperations: Array<{ path: string; operationId: string; schema: Json }>;

    beforeAll(async () => {
      const mappingId = owner.mapping.id;
      const created = await api.post<{ actions: Array<{ afterRevision: string }> }>('/notes', {
        json: { mappingId, path: 'probe/existing.md', content: '# Existing\n', dryRun: false },
        headers: { 'Idempotency-Key': 'openapi-probe-existing' },
      });
      expect(created.status).toBe(200);
      const expectedHash = created.body.actions[0]!.afterRevision;
      expect(expectedHash).toMatch(/^sha256:[0-9a-f]{64}$/);
      const scope = await gateway.services.scopes.create(owner.actor, mappingId, {
        name: 'Probe scope',
        pathPrefixes: [],
        tags: [],
        audience: { minimumRole: 'viewer', agents: true },
      });
      const audience = { minimumRole: 'editor', agents: false };
      const view = await gateway.services.views.create(owner.actor, await gateway.services.scopes.authorize(owner.actor, mappingId, scope.id), {
        name: 'Probe view',
        definition: { kinds: ['commitment'] },
      });
      // A canvas or attachment to replace and delete, and a trashed one to restore (previews only, below).
      const fileHash = async (path: string) => {
        const written = await api.post<{ results: Array<{ afterHash: string }> }>('/files', {
          json: { mappingId, path, contentBase64: Buffer.from(path).toString('base64'), dryRun: false },
          headers: { 'Idempotency-Key': `openapi-probe-${path}` },
        });
        expect(written.status).toBe(200);
        return written.body.results[0]!.afterHash;
      };
      const fileExpectedHash = await fileHash('probe/file.bin');
      const trashedHash = await fileHash('probe/trashed.bin');
      const trashed = await api.delete<{ results: Array<{ trashId: string }> }>('/files', {
        query: { mappingId, path: 'probe/trashed.bin', dryRun: false },
        headers: { 'Idempotency-Key': 'openapi-probe-trash', 'If-Match': `"${trashedHash}"` },
      });
      expect(trashed.status).toBe(200);
      const trashId = trashed.body.results[0]!.trashId;
      const viewDefinition = {
        kinds: ['commitment', 'decision'],
        statuses: ['open', 'candidate'],
        text: 'probe',
        owner: 'Ana',
        dueAfter: '2026-01-01',
        dueBefore: '2026-12-31',
        entityType: 'project',
        relationTypes: ['contradicts'],
        sort: 'due',
        limit: 20,
      };
      examples = {
        writeVaultFile: { mappingId, path: 'probe/file.bin', contentBase64: 'AAEC', expectedHash: fileExpectedHash, dryRun: true },
        restoreVaultFile: { mappingId, trashId, dryRun: true },
        changeVaultFiles: {
          mappingId,
          dryRun: true,
          changes: [
            { type: 'write-file', path: 'probe/new.bin', contentBase64: 'AAEC' },
            { type: 'delete-file', path: 'probe/file.bin', expectedHash: fileExpectedHash },
            { type: 'restore-file', trashId },
          ],
        },
        createSavedView: { mappingId, contextScopeId: scope.id, name: 'New probe view', definition: viewDefinition, dryRun: true },
        reviseSavedView: { mappingId, contextScopeId: scope.id, viewId: view.view.id, name: 'Probe view, again', definition: viewDefinition, dryRun: true },
        createWatch: { mappingId, contextScopeId: scope.id, viewId: view.view.id, version: 1, dryRun: true },
        createScope: { mappingId, name: 'New probe scope', pathPrefixes: ['probe/'], tags: ['probe'], audience, dryRun: true },
        updateScope: { mappingId, scopeId: scope.id, name: 'Probe scope', pathPrefixes: ['probe/'], tags: ['probe'], audience, dryRun: true },
        writeNote: {
          mappingId,
          path: 'probe/existing.md',
          content: 'changed\n',
          dryRun: true,
          expectedHash,
          target: { type: 'heading', heading: 'Existing', mode: 'replace' },
        },
        publishTraceSession: {
          mappingId,
          contextScopeId: scope.id,
          sessionId: 'probe-session',
          title: 'Probe session',
          agent: 'probe',
          startedAt: '2026-11-25T09:00:00Z',
          endedAt: '2026-11-25T10:00:00Z',
          steps: [{ summary: 'Read a note', at: '2026-11-25T09:30:00Z', references: [{ kind: 'note', path: 'probe/existing.md', revision: expectedHash }] }],
          dryRun: true,
        },
        proposeAction: {
          mappingId,
          contextScopeId: scope.id,
          title: 'Probe proposal',
          rationale: 'A probe of the published body',
          notes: [{ path: 'probe/proposed.md', content: '# Proposed\n' }],
          deletions: [{ path: 'probe/existing.md', expectedHash }],
        },
        proposeKnowledgeChange: {
          mappingId,
          contextScopeId: scope.id,
          title: 'Probe knowledge change',
          rationale: 'A probe of the published body',
          notes: [{ path: 'probe/knowledge.md', content: '# Knowledge\n' }],
          deletions: [{ path: 'probe/existing.md', expectedHash }],
        },
        runNoteTransaction: {
          mappingId,
          dryRun: true,
          actions: [
            { type: 'write-note', path: 'probe/new.md', content: '# New\n' },
            { type: 'delete-note', path: 'probe/existing.md', expectedHash },
            { type: 'move-note', path: 'probe/missing.md', newPath: 'probe/moved.md', rewriteLinks: true },
          ],
        },
      };
      postOperations = documentedOperations(doc)
        .filter(([method]) => method === 'post')
        .map(([, path, op]) => ({
          path,
          operationId: op.operationId as string,
          schema: (op.requestBody as { content: Record<string, { schema: Json }> }).content['application/json']!.schema,
        }));
    });

    async function post(path: string, body: unknown) {
      return api.post<Json>(path, { json: body });
    }

    it('every POST operation has a required JSON body, and an example here that uses every documented field', () => {
      expect(postOperations.map((p) => p.operationId).sort()).toEqual(Object.keys(examples).sort());
      for (const { path, operationId, schema } of postOperations) {
        const op = (doc.paths as Record<string, Record<string, Json>>)[path]!.post!;
        expect((op.requestBody as Json).required).toBe(true);
        expect(Object.keys(examples[operationId]!).sort()).toEqual(Object.keys(schema.properties as Json).sort());
      }
    });

    it('marks additionalProperties: false on every object of every request body', () => {
      for (const { operationId, schema } of postOperations) {
        const objects = objectSchemas(schema);
        expect(objects.length).toBeGreaterThan(0);
        for (const [where, object] of objects) {
          expect({ operationId, where, additionalProperties: object.additionalProperties }).toEqual({
            operationId,
            where,
            additionalProperties: false,
          });
        }
      }
    });

    it('a valid body is valid by the document and accepted by the server, and the 200 matches the documented schema', async () => {
      const ajv = jsonSchemaValidator();
      for (const { path, operationId, schema } of postOperations) {
        const validBody = ajv.compile(schema);
        const body = examples[operationId]!;
        expect({ operationId, valid: validBody(body), errors: validBody.errors ?? null }).toEqual({ operationId, valid: true, errors: null });
        const response = await post(path, body);
        expect({ operationId, status: response.status, body: response.body }).toMatchObject({ operationId, status: 200 });
        const okSchema = (doc.paths as Record<string, Record<string, Json>>)[path]!.post!.responses as Record<
          string,
          { content: Record<string, { schema: Json }> }
        >;
        const validResponse = ajv.compile(okSchema['200']!.content['application/json']!.schema);
        expect({ operationId, valid: validResponse(response.body), errors: validResponse.errors ?? null }).toEqual({
          operationId,
          valid: true,
          errors: null,
        });
      }
    });

    it('an undocumented top-level field is rejected with 400 naming it, and nothing changes', async () => {
      const ajv = jsonSchemaValidator();
      const before = await snapshotOf(gateway);
      for (const { path, operationId, schema } of postOperations) {
        const extra = 'undocumentedField';
        expect(Object.keys(schema.properties as Json)).not.toContain(extra);
        const body = { ...examples[operationId]!, [extra]: true };
        expect(ajv.compile(schema)(body)).toBe(false);
        const response = await post(path, body);
        expect({ operationId, status: response.status, code: response.body.code, fields: response.body.fields }).toEqual({
          operationId,
          status: 400,
          code: 'invalid_request',
          fields: [extra],
        });
        expect(response.headers.get('content-type')).toBe('application/problem+json');
      }
      expect(await snapshotOf(gateway)).toBe(before);
    });

    it('an undocumented field inside a nested object (a transaction action) is rejected with 400', async () => {
      const ajv = jsonSchemaValidator();
      const before = await snapshotOf(gateway);
      let checked = 0;
      for (const { path, operationId, schema } of postOperations) {
        for (const [name, property] of Object.entries(schema.properties as Record<string, Json>)) {
          if (property.type !== 'array') continue;
          const example = examples[operationId]!;
          const items = example[name] as Json[];
          for (let k = 0; k < items.length; k++) {
            const body = { ...example, [name]: items.map((item, j) => (j === k ? { ...item, undocumentedField: 1 } : item)) };
            expect(ajv.compile(schema)(body)).toBe(false);
            const response = await post(path, body);
            expect({ operationId, k, status: response.status, code: response.body.code }).toEqual({ operationId, k, status: 400, code: 'invalid_request' });
            expect(JSON.stringify(response.body.issues)).toContain(`${name}.${k}`);
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(0);
      expect(await snapshotOf(gateway)).toBe(before);
    });

    it('dropping a field: the document and the server agree on which fields are required', async () => {
      const ajv = jsonSchemaValidator();
      // Every example but the proposals' previews: an accepted proposal body stores a proposal and its
      // proposal.created event, as it should; notes, trash and every other event stay as they were.
      const snapshot = () =>
        snapshotTables({ query: (sql) => gateway.db.query(sql.replace('FROM provenance_events', "FROM provenance_events WHERE kind NOT LIKE 'proposal.%'")) });
      const before = await snapshot();
      for (const { path, operationId, schema } of postOperations) {
        const validate = ajv.compile(schema);
        for (const field of Object.keys(schema.properties as Json)) {
          const body: Json = { ...examples[operationId]! };
          delete body[field];
          const documentedValid = validate(body);
          expect(documentedValid).toBe(((schema.required ?? []) as string[]).includes(field) ? false : true);
          // The body may leave mappingId out only because the documented X-Service-Mapping header can carry it.
          const response =
            field === 'mappingId'
              ? await api.post<Json>(path, { json: body, headers: { 'X-Service-Mapping': String(examples[operationId]!.mappingId) } })
              : await post(path, body);
          expect({ operationId, field, status: response.status }).toEqual({ operationId, field, status: documentedValid ? 200 : 400 });
        }
      }
      expect(await snapshot()).toBe(before);
    });

    it('a field of the wrong type is invalid by the document and rejected by the server with 400', async () => {
      const ajv = jsonSchemaValidator();
      const before = await snapshotOf(gateway);
      for (const { path, operationId, schema } of postOperations) {
        const validate = ajv.compile(schema);
        for (const [field, property] of Object.entries(schema.properties as Record<string, Json>)) {
          const body = { ...examples[operationId]!, [field]: wrongTypeFor(property) };
          expect({ operationId, field, valid: validate(body) }).toEqual({ operationId, field, valid: false });
          const response = await post(path, body);
          expect({ operationId, field, status: response.status, code: response.body.code }).toEqual({
            operationId,
            field,
            status: 400,
            code: 'invalid_request',
          });
        }
      }
      expect(await snapshotOf(gateway)).toBe(before);
    });
  });
});
