/**
 * The published contract of the automation gateway is its operation table (DESIGN.md principle 5): the OpenAPI
 * document derived from AUTOMATION_OPERATIONS is a valid OpenAPI 3.1 document whose every schema is valid JSON
 * Schema 2020-12, it lists exactly the gateway's routes, and none of those operations is an MCP tool or a Developer
 * REST API operation.
 */
import { createRequire } from 'node:module';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTOMATION_API_IDENTITY, AUTOMATION_OPERATIONS } from '../src/surfaces/operations/automation-table.ts';
import { OPERATIONS } from '../src/surfaces/operations/table.ts';
import { restApiDocument } from '../src/surfaces/rest/dev-api.ts';
import { startAutomationGateway, type AutomationGateway } from './support/automation-gateway.ts';

type Json = Record<string, unknown>;

/** The part of Ajv 8 (JSON Schema 2020-12) this test uses. */
interface JsonSchemaValidator {
  validateSchema(schema: unknown): boolean;
  errors?: unknown;
}

/** Ajv for JSON Schema 2020-12, resolved from the OpenAPI validator's own location (see test/openapi.test.ts). */
function jsonSchemaValidator(): JsonSchemaValidator {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('@seriousme/openapi-schema-validator'));
  const Ajv2020 = (fromValidator('ajv/dist/2020') as { default: new (options: object) => JsonSchemaValidator }).default;
  const addFormats = (fromValidator('ajv-formats') as { default: (ajv: JsonSchemaValidator) => void }).default;
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** The gateway's routes, relative to /api/dev/automation, with their operation ids: the brief's list, written out. */
const ROUTES = [
  'GET /catalog getAutomationCatalog',
  'GET /adapters/{bridge} getAutomationAdapter',
  'GET /templates listAutomationTemplates',
  'GET /templates/{id} getAutomationTemplate',
  'GET /templates/{id}/download downloadAutomationTemplate',
  'POST /events ingestAutomationEvent',
  'POST /proposals proposeAutomationAction',
  'GET /proposals listAutomationProposals',
  'GET /triggers listAutomationTriggers',
  'POST /triggers createAutomationTrigger',
  'PATCH /triggers/{id} updateAutomationTrigger',
  'DELETE /triggers/{id} deleteAutomationTrigger',
  'GET /runs listAutomationRuns',
  'GET /runs/{id} getAutomationRun',
  'GET /endpoints listWebhookEndpoints',
  'POST /endpoints createWebhookEndpoint',
  'POST /endpoints/{id}/rotate-secret rotateWebhookSecret',
  'DELETE /endpoints/{id} deleteWebhookEndpoint',
  'GET /executions listAutomationExecutions',
  'POST /process processAutomation',
];
/** The document's own route, which every REST API of the table factory publishes (public, no token). */
const DOCUMENT_ROUTE = 'GET /openapi.json getOpenApiDocument';

const doc = JSON.parse(restApiDocument({ operations: AUTOMATION_OPERATIONS, baseUrl: 'http://localhost', version: '1', identity: AUTOMATION_API_IDENTITY })) as Json;

/** Every operation of the document as `METHOD /path operationId`. */
function documented(document: Json): string[] {
  const found: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) found.push(`${method.toUpperCase()} ${path} ${String((op as Json).operationId)}`);
  }
  return found;
}

/** Every schema object of the document: parameters, request bodies, responses, components. */
function allSchemas(document: Json): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, value] of Object.entries(item)) {
      const op = value as Json;
      const where = `${method} ${path}`;
      for (const param of (op.parameters ?? []) as Json[]) found.push([`${where} parameter ${String(param.name)}`, param.schema]);
      const body = op.requestBody as { content: Record<string, { schema: unknown }> } | undefined;
      for (const [type, media] of Object.entries(body?.content ?? {})) found.push([`${where} request ${type}`, media.schema]);
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, { schema: unknown }>)) found.push([`${where} ${status} ${type}`, media.schema]);
      }
    }
  }
  for (const [name, schema] of Object.entries(((doc.components as Json | undefined)?.schemas ?? {}) as Json)) found.push([`components ${name}`, schema]);
  return found;
}

describe('the OpenAPI document of the automation gateway', () => {
  it('is a valid OpenAPI 3.1 document, served under /api/dev/automation', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.info).toMatchObject({ title: 'kgate Automation Gateway', version: '1' });
    expect(doc.servers).toEqual([{ url: 'http://localhost/api/dev/automation' }]);
  });

  it('every schema in it is valid JSON Schema 2020-12', () => {
    const ajv = jsonSchemaValidator();
    const schemas = allSchemas(doc);
    expect(schemas.length).toBeGreaterThan(20);
    const invalid = schemas.filter(([, schema]) => !ajv.validateSchema(schema)).map(([where]) => where);
    expect(invalid).toEqual([]);
  });

  it('lists exactly the gateway’s routes, in the table’s order', () => {
    expect(documented(doc).sort()).toEqual([...ROUTES, DOCUMENT_ROUTE].sort());
    expect(AUTOMATION_OPERATIONS.flatMap((op) => (op.rest ?? []).map((b) => `${b.method} ${b.path} ${b.operationId ?? op.id}`))).toEqual(ROUTES);
  });

  it('no automation operation is an MCP tool or a Developer REST API operation, and each declares the gateway’s rules', () => {
    const developer = new Set(OPERATIONS);
    const developerIds = new Set(OPERATIONS.map((op) => op.id));
    for (const op of AUTOMATION_OPERATIONS) {
      expect({ id: op.id, mcp: op.mcp, product: op.product }).toEqual({ id: op.id, mcp: undefined, product: undefined });
      expect(developer.has(op)).toBe(false);
      expect(developerIds.has(op.id)).toBe(false);
      expect(op.credentials).toEqual(['personal_access_token', 'session']);
      expect(op.allowance).toBe('operation');
      expect(op.tags).toEqual(['automation']);
      const method = op.rest?.[0]?.method;
      expect({ id: op.id, scope: op.scope }).toEqual({ id: op.id, scope: method === 'GET' ? 'mcp:read' : 'mcp:write' });
      const always = op.id === 'ingestAutomationEvent' || op.id === 'proposeAutomationAction';
      expect({ id: op.id, idempotency: op.idempotency }).toEqual({ id: op.id, idempotency: always ? 'always' : 'none' });
    }
  });
});

describe('the automation gateway serves that document', () => {
  let started: AutomationGateway;
  beforeAll(async () => {
    started = await startAutomationGateway();
  });
  afterAll(() => started.stop());

  it('at /api/dev/automation/openapi.json and /openapi/automation.json, without a token, with exactly its paths', async () => {
    for (const path of ['/api/dev/automation/openapi.json', '/openapi/automation.json']) {
      const response = await fetch(new URL(path, started.gateway.url));
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      const served = (await response.json()) as Json;
      expect(served.paths).toEqual(doc.paths);
      expect(documented(served).sort()).toEqual([...ROUTES, DOCUMENT_ROUTE].sort());
    }
  });
});
