import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/app/version.ts';
import { productRoutesOf } from '../src/surfaces/product/routes.ts';
import { OPERATIONS } from '../src/surfaces/operations/table.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { expectRuntimeProblem } from './support/runtime-checks.ts';
import { callRuntime } from './support/runtime-gateway.ts';

// docs/runtime.md: the machine-readable form of the Product Runtime's wire is the OpenAPI 3.1 document at
// GET /api/product/v1/openapi.json, generated from the same operation table that serves requests.

type Json = Record<string, unknown>;

/** The SDK operations of spec 4.7, and the two hosted vault routes of its table (trash, transactions). */
const SDK_OPERATIONS = [
  'getRuntimeContext',
  'getCapabilities',
  'getWorkspace',
  'getDomainComposition',
  'listNotes',
  'readNote',
  'publishNote',
  'bindHostedVault',
  'listAvailableScopes',
  'getScopeContext',
  'getEffectiveScopePolicy',
  'getScopeIntelligence',
  'getScopeMemory',
  'createSharedMemoryCandidate',
  'projectEducation',
  'recommendArtifacts',
  'crosswalkStandards',
  'storeAudio',
  'readAudio',
  'startGoogleConnection',
  'listConnections',
  'getConnection',
  'disconnectConnection',
  'createDriveFile',
  'updateDriveFile',
  'importDriveFolder',
  'listClassroomCourses',
  'listClassroomStudents',
  'createClassroomAssignment',
  'listClassroomSubmissions',
  // Issue 21: the model-backed education operations, named as the SDK's methods.
  'reviewPractice',
  'draftAssessment',
  'reviewQuality',
  'draftRubric',
  'listRubrics',
  'getRubric',
  'generateImage',
  'studentGuidance',
  'generateEducationContent',
];
const HOSTED_VAULT_OPERATIONS = ['listTrash', 'applyTransaction'];

/** Ajv for JSON Schema 2020-12, the engine the OpenAPI validator itself runs on (as test/openapi.test.ts finds it). */
function jsonSchemaValidator(): { validateSchema(schema: unknown): boolean } {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('@seriousme/openapi-schema-validator'));
  const Ajv2020 = (fromValidator('ajv/dist/2020') as { default: new (options: object) => { validateSchema(schema: unknown): boolean } }).default;
  const addFormats = (fromValidator('ajv-formats') as { default: (ajv: unknown) => void }).default;
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** Every operation of the document as [METHOD, path, operation object]. */
function documentedOperations(doc: Json): Array<[string, string, Json]> {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, string, Json] => [method.toUpperCase(), path, operation as Json]),
  );
}

describe('the OpenAPI document of the Product Runtime', () => {
  let gateway: TestGateway;
  let doc: Json;

  beforeAll(async () => {
    gateway = await startTestGateway();
    // Served without a token or a version header: it is the contract a product reads before it has either.
    const response = await fetch(`${gateway.url}/api/product/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    doc = (await response.json()) as Json;
  });
  afterAll(() => gateway.stop());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: VERSION });
  });

  it('every schema in it is valid JSON Schema 2020-12, and every $ref resolves', () => {
    const ajv = jsonSchemaValidator();
    const schemas: Array<[string, unknown]> = [];
    for (const [method, path, op] of documentedOperations(doc)) {
      for (const param of (op.parameters ?? []) as Json[]) schemas.push([`${method} ${path} ${String(param.name)}`, param.schema]);
      for (const media of Object.values(((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>)) schemas.push([`${method} ${path} body`, media.schema]);
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) schemas.push([`${method} ${path} ${status}`, media.schema]);
      }
    }
    for (const [name, schema] of Object.entries(((doc.components as Json).schemas ?? {}) as Json)) schemas.push([`components ${name}`, schema]);
    expect(schemas.length).toBeGreaterThan(40);
    expect(schemas.filter(([, schema]) => !ajv.validateSchema(schema)).map(([where]) => where)).toEqual([]);
    const refs = new Set([...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!));
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\/\w+$/);
      expect((doc.components as { schemas: Json }).schemas[ref.split('/').pop()!]).toBeDefined();
    }
  });

  it('lists exactly the product routes of the operation table', () => {
    const routes = productRoutesOf(OPERATIONS).map((r) => `${r.binding.method} ${r.binding.path}`);
    const documented = documentedOperations(doc).map(([method, path]) => `${method} ${path}`);
    expect(new Set(routes).size).toBe(routes.length);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...routes].sort());
    expect(documented).toEqual(expect.arrayContaining(['GET /api/product/v1/context', 'POST /workspaces/{workspaceId}/vaults/{vaultId}/notes/publish']));
  });

  it('names each operation by its SDK name (spec 4.7), once, and serves every SDK operation', () => {
    const ids = documentedOperations(doc).map(([, , op]) => op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect([...SDK_OPERATIONS, ...HOSTED_VAULT_OPERATIONS]).toContain(id);
    expect(ids).toEqual(expect.arrayContaining([...SDK_OPERATIONS, ...HOSTED_VAULT_OPERATIONS]));
  });

  it('every operation takes the X-Service-Runtime-Version header, answers with it, and documents its refusals as error envelopes', () => {
    for (const [method, path, op] of documentedOperations(doc)) {
      const where = `${method} ${path}`;
      const version = (op.parameters as Json[]).find((p) => p.in === 'header' && p.name === 'X-Service-Runtime-Version');
      expect(version, where).toMatchObject({ required: true, schema: { const: '1' } });
      const responses = op.responses as Record<string, Json>;
      expect(responses['200']?.headers, where).toHaveProperty('X-Service-Runtime-Version');
      for (const [status, response] of Object.entries(responses)) {
        if (status === '200' || (status === '206' && path.includes('/media/'))) continue;
        expect((response.content as Record<string, { schema: unknown }>)['application/json']!.schema, `${where} ${status}`).toEqual({
          $ref: '#/components/schemas/ErrorEnvelope',
        });
      }
      for (const code of ['runtime_version_required', 'unauthenticated', 'organization_suspended', 'runtime_operations_exhausted']) {
        expect(JSON.stringify(responses), `${where} ${code}`).toContain(`\`${code}\``);
      }
      if (path.startsWith('/workspaces/')) expect(JSON.stringify(responses), where).toContain('`vault_not_granted`');
      if (path.includes('{scopeId}')) expect(JSON.stringify(responses), where).toContain('`scope_not_found`');
    }
  });

  it('the server dispatches every documented route: without a token each answers unauthenticated, not not_found', async () => {
    for (const [method, path] of documentedOperations(doc)) {
      const concrete = path.replace(/\{(\w+)\}/g, () => randomUUID());
      const answer = await callRuntime(gateway, null, method as 'GET' | 'POST', concrete, method === 'POST' ? { json: {} } : {});
      expectRuntimeProblem(answer, 401, 'unauthenticated');
    }
  });
});
