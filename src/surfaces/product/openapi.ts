import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../kernel/error-codes.ts';
import { RUNTIME_SCOPES, RUNTIME_VERSION } from '../../domains/runtime/index.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { publishedJsonSchema, type JsonSchema } from '../operations/json-schema.ts';
import { RUNTIME_VERSION_HEADER } from './envelope.ts';
import { binaryParameters, binaryRequestBody, binaryResponses } from './media-openapi.ts';
import { pathParams, type ProductRoute } from './routes.ts';

/** Refusals every Product Runtime route can answer, besides its operation's own (docs/runtime.md, the chain). */
const CHAIN_ERRORS: readonly ErrorCode[] = [
  'runtime_version_required',
  'runtime_version_unsupported',
  'unauthenticated',
  'principal_revoked',
  'installation_inactive',
  'product_retired',
  'organization_suspended',
  'runtime_paused',
  'account_inactive',
  'client_audience_refused',
  'runtime_operations_exhausted',
  'payload_too_large',
  'internal',
];

function routeErrors(route: ProductRoute): ErrorCode[] {
  const { binding } = route;
  const own: ErrorCode[] = [...route.operation.errors];
  if (binding.needs || binding.applyNeeds) own.push('insufficient_scope');
  if (binding.vault) own.push('workspace_not_assigned', 'vault_not_granted');
  if (binding.vault && binding.applyNeeds) own.push('vault_grant_read_only');
  if (binding.scope) own.push('scope_not_found');
  return [...new Set([...CHAIN_ERRORS, ...own])];
}

function envelopeSchema(kind: string, data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['version', 'kind', 'status', 'data', 'receipts', 'problems', 'requestId'],
    properties: {
      version: { const: RUNTIME_VERSION },
      kind: { const: kind },
      status: { enum: ['ok', 'partial', 'unavailable'] },
      data: { anyOf: [data, { type: 'null' }] },
      receipts: { type: 'array', items: { $ref: '#/components/schemas/OperationReceipt' } },
      problems: { type: 'array', items: { $ref: '#/components/schemas/Problem' } },
      requestId: { type: 'string' },
    },
  };
}

function parameters(route: ProductRoute): JsonSchema[] {
  const shape = route.operation.input.shape as Record<string, z.ZodType>;
  const params: JsonSchema[] = [
    { name: RUNTIME_VERSION_HEADER, in: 'header', required: true, description: 'The Product Runtime contract version', schema: { const: String(RUNTIME_VERSION) } },
  ];
  for (const name of pathParams(route.binding.path)) {
    const field = shape[name];
    params.push({ name, in: 'path', required: true, schema: field ? publishedJsonSchema(field, 'input') : { type: 'string', format: 'uuid' } });
  }
  for (const name of Object.keys(route.query)) {
    params.push({ name, in: 'query', required: !shape[name]!.safeParse(undefined).success, schema: publishedJsonSchema(shape[name]!, 'input') });
  }
  if (route.operation.idempotency !== 'none') {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: route.operation.idempotency === 'always' || route.operation.idempotency === 'metered',
      description: 'Required to apply. A retry with the same key and request replays the stored answer.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return params;
}

function requestBody(route: ProductRoute): JsonSchema | undefined {
  if (route.body.length === 0) return undefined;
  const shape = route.operation.input.shape as Record<string, z.ZodType>;
  const picked = z.object(Object.fromEntries(route.body.map((field) => [field, shape[field]!]))).strict();
  return { required: true, content: { 'application/json': { schema: publishedJsonSchema(picked, 'input') } } };
}

function responses(route: ProductRoute): JsonSchema {
  const envelope: JsonSchema = {
    description: 'A V1 envelope: ok, partial or unavailable',
    headers: { [RUNTIME_VERSION_HEADER]: { schema: { type: 'string' } } },
    content: { 'application/json': { schema: envelopeSchema(route.binding.kind, publishedJsonSchema(route.operation.output, 'output')) } },
  };
  if (route.binding.stream === 'ndjson') {
    // With Accept: application/x-ndjson the same 200 is a stream of events (docs/education.md, "Generation").
    (envelope.content as Record<string, unknown>)['application/x-ndjson'] = {
      schema: { type: 'string', description: 'Newline-delimited JSON events: ready (once), delta ({ "type": "delta", "text" }, in order), done ({ "type": "done", "envelope": the V1 envelope of the outcome }).' },
    };
  }
  const result: JsonSchema = route.binding.binary ? binaryResponses(route, envelope) : { '200': envelope };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of routeErrors(route)) byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    result[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code]}`).join(' '),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return result;
}

/**
 * The OpenAPI 3.1 document of the Product Runtime, generated from the same operation table and product bindings that
 * serve requests (docs/runtime.md), as the Developer REST API's is.
 */
export function productOpenApiDocument(routes: readonly ProductRoute[], options: { baseUrl: string; version: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const { operation, binding } = route;
    const body = binding.binary ? binaryRequestBody(route) : requestBody(route);
    const scopes = [binding.needs, binding.applyNeeds].filter((s): s is NonNullable<typeof s> => s !== undefined);
    (paths[binding.path] ??= {})[binding.method.toLowerCase()] = {
      operationId: binding.operationId,
      summary: operation.summary,
      description: operation.description,
      tags: [...operation.tags],
      security: [{ servicePrincipal: scopes }],
      parameters: binding.binary ? [...parameters(route), ...binaryParameters(route)] : parameters(route),
      ...(body ? { requestBody: body } : {}),
      responses: responses(route),
    };
  }
  const problem: JsonSchema = {
    type: 'object',
    required: ['code', 'message'],
    properties: { code: { type: 'string', enum: Object.keys(ERROR_CODES) }, message: { type: 'string' }, details: { type: 'object' } },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'kgate Product Runtime',
      version: options.version,
      description:
        `Product Runtime contract version ${RUNTIME_VERSION} (send ${RUNTIME_VERSION_HEADER}). Every answer is a V1 envelope; ` +
        'authority comes from the chain of server-held records (organization, product, installation, service principal, ' +
        'credential scopes, workspace assignment, vault grant, context scope), never from a hostname, brand or audience.',
    },
    servers: [{ url: options.baseUrl }],
    paths,
    components: {
      securitySchemes: {
        servicePrincipal: {
          type: 'oauth2',
          description: 'A service principal of a product installation, by the client credentials grant (client secret or private_key_jwt).',
          flows: {
            clientCredentials: {
              tokenUrl: `${options.baseUrl}/api/product/v1/oauth/token`,
              scopes: Object.fromEntries(RUNTIME_SCOPES.map((s) => [s, `The ${s} scope`])),
            },
          },
        },
      },
      schemas: {
        Problem: problem,
        OperationReceipt: {
          type: 'object',
          required: ['kind', 'requestId', 'month', 'used', 'limit'],
          properties: {
            kind: { const: 'service.product-runtime-operation' },
            requestId: { type: 'string' },
            month: { type: 'string', description: 'YYYY-MM (UTC)' },
            used: { type: 'integer' },
            limit: { type: ['integer', 'null'], description: 'null: no cap' },
          },
        },
        ErrorEnvelope: {
          type: 'object',
          required: ['version', 'kind', 'status', 'data', 'receipts', 'problems', 'requestId'],
          properties: {
            version: { const: RUNTIME_VERSION },
            kind: { const: 'service.problem' },
            status: { const: 'error' },
            data: { type: 'null' },
            receipts: { type: 'array', items: { $ref: '#/components/schemas/OperationReceipt' } },
            problems: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Problem' } },
            requestId: { type: 'string' },
          },
        },
      },
    },
  };
}
