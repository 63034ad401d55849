import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../kernel/error-codes.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import type { AnyOperation } from '../operations/operation.ts';
import { publishedJsonSchema, type JsonSchema } from '../operations/json-schema.ts';
import { MAPPING_HEADER } from './bind.ts';
import type { RestRoute } from './routes.ts';


/** What names one REST API in its OpenAPI document: the Developer REST API, or the automation gateway. */
export interface RestApiIdentity {
  title: string;
  description: string;
  /** Where it is served, below the base URL. */
  basePath: string;
}

/** The Developer REST API's identity. */
export const DEVELOPER_API_IDENTITY: RestApiIdentity = {
  title: 'kgate Developer REST API',
  description:
    'Governed access to hosted Markdown vaults. Writes preview by default; applying needs dryRun false, an ' +
    'Idempotency-Key and the current hash of every existing note touched. Errors are RFC 9457 problem documents with a stable code.',
  basePath: '/api/dev',
};

/** Errors every authenticated operation can answer, besides its own. */
const COMMON_ERRORS: readonly ErrorCode[] = [
  'unauthenticated',
  'account_inactive',
  'plan_required',
  'rate_limited',
  'monthly_limit_reached',
  'payload_too_large',
  'internal',
];

const schemaOf = publishedJsonSchema;

function fieldSchema(operation: AnyOperation, field: string): JsonSchema {
  const shape = operation.input.shape as Record<string, z.ZodType>;
  const type = shape[field];
  if (!type) throw new Error(`${operation.id}: the route names ${field}, which the operation's input does not have`);
  return schemaOf(type, 'input');
}

function isRequired(operation: AnyOperation, field: string): boolean {
  const shape = operation.input.shape as Record<string, z.ZodType>;
  return !shape[field]!.safeParse(undefined).success;
}

function parameters(route: RestRoute): JsonSchema[] {
  const { operation, binding } = route;
  const params: JsonSchema[] = [];
  const mappingElsewhere = route.body.includes('mappingId');
  for (const name of Object.keys(route.query)) {
    // mappingId may come from the query, the body or the header, so no single place is required.
    const required = name !== 'mappingId' && isRequired(operation, name);
    params.push({ name, in: 'query', required, schema: fieldSchema(operation, name) });
  }
  for (const name of route.pathFields) {
    params.push({ name, in: 'path', required: true, schema: fieldSchema(operation, name) });
  }
  if (binding.notePathFromSegments) {
    params.push(
      { name: 'category', in: 'path', required: true, description: 'The folder of the note (one segment)', schema: { type: 'string' } },
      { name: 'filename', in: 'path', required: true, description: 'The file name of the note, ending in .md', schema: { type: 'string' } },
    );
  }
  if (mappingElsewhere) {
    params.push({ name: 'mappingId', in: 'query', required: false, description: 'The mapping, instead of mappingId in the body', schema: { type: 'string', format: 'uuid' } });
  }
  if (route.mappingAnywhere) {
    params.push({
      name: MAPPING_HEADER,
      in: 'header',
      required: false,
      description: `The mapping, instead of mappingId in the ${mappingElsewhere ? 'body' : 'query'}`,
      schema: { type: 'string', format: 'uuid' },
    });
  }
  if (route.ifMatch) {
    params.push({ name: 'If-Match', in: 'header', required: false, description: 'The current revision, in place of expectedHash', schema: { type: 'string' } });
  }
  if (operation.idempotency !== 'none') {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Required to apply (dryRun false). A retry with the same key and request replays the stored answer.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  if (binding.representation === 'note') {
    params.push({ name: 'If-None-Match', in: 'header', required: false, description: 'A revision (ETag); 304 when it is current', schema: { type: 'string' } });
  }
  return params;
}

function requestBody(route: RestRoute): JsonSchema | undefined {
  if (route.body.length === 0) return undefined;
  const shape = route.operation.input.shape as Record<string, z.ZodType>;
  // mappingId may also come from the query or X-Service-Mapping, so the body need not carry it.
  const picked = z
    .object(Object.fromEntries(route.body.map((field) => [field, field === 'mappingId' ? shape[field]!.optional() : shape[field]!])))
    .strict();
  return { required: true, content: { 'application/json': { schema: schemaOf(picked, 'input') } } };
}

const RATE_HEADERS = {
  'RateLimit-Limit': { description: 'Operations allowed per minute', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Operations left this minute', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the minute renews', schema: { type: 'integer' } },
  'X-Monthly-Limit': { description: 'Operations allowed per calendar month (UTC)', schema: { type: 'integer' } },
  'X-Monthly-Remaining': { description: 'Operations left this month', schema: { type: 'integer' } },
};

function responses(route: RestRoute): JsonSchema {
  const { operation } = route;
  const changes = operation.idempotency !== 'none';
  const note = route.binding.representation === 'note';
  const success: JsonSchema = {
    description: changes ? 'The preview, or the applied result' : 'OK',
    headers: {
      ...RATE_HEADERS,
      ...(changes ? { 'Idempotent-Replayed': { description: 'true on a replayed answer', schema: { type: 'string' } } } : {}),
      ...(note ? { ETag: { description: 'The revision', schema: { type: 'string' } } } : {}),
    },
    content: {
      'application/json': { schema: schemaOf(operation.output, 'output') },
      ...(note ? { 'text/markdown': { schema: { type: 'string' } } } : {}),
    },
  };
  const result: JsonSchema = { '200': success };
  if (note) result['304'] = { description: 'Not modified: If-None-Match names the current revision' };
  const byStatus = new Map<number, ErrorCode[]>();
  // A route with a JSON body can also be refused for bytes that are not UTF-8.
  const bodyErrors: readonly ErrorCode[] = route.body.length > 0 ? ['invalid_encoding'] : [];
  for (const code of new Set([...operation.errors, ...COMMON_ERRORS, ...bodyErrors])) {
    const status = HTTP_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    result[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code]}`).join(' '),
      ...(status === 401 ? { headers: { 'WWW-Authenticate': { schema: { type: 'string' } } } } : {}),
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } } : {}),
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return result;
}

/**
 * The OpenAPI 3.1 document of the Developer REST API, generated from the same routes and operation schemas that
 * serve requests. Input schemas are shown as accepted (defaults make fields optional), outputs as produced.
 */
export function openApiDocument(routes: readonly RestRoute[], options: { baseUrl: string; version: string; api?: RestApiIdentity }): JsonSchema {
  const api = options.api ?? DEVELOPER_API_IDENTITY;
  const paths: Record<string, Record<string, JsonSchema>> = {
    '/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        tags: ['meta'],
        security: [],
        responses: { '200': { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  };
  for (const route of routes) {
    const { operation, binding } = route;
    const body = requestBody(route);
    (paths[binding.path] ??= {})[binding.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: operation.summary,
      description: operation.description,
      tags: [...operation.tags],
      security: [{ personalAccessToken: [] }],
      parameters: parameters(route),
      ...(body ? { requestBody: body } : {}),
      responses: responses(route),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: api.title, version: options.version, description: api.description },
    servers: [{ url: `${options.baseUrl}${api.basePath}` }],
    paths,
    components: {
      securitySchemes: {
        personalAccessToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A personal access token (kgp_...) of an account on the Developer & Agent or Team plan.',
        },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'code', 'detail'],
          properties: {
            type: { type: 'string', description: 'urn:kgate:problem:<code>' },
            title: { type: 'string' },
            status: { type: 'integer' },
            code: { type: 'string', enum: Object.keys(ERROR_CODES) },
            detail: { type: 'string' },
            requestId: { type: 'string' },
          },
          additionalProperties: true,
        },
      },
    },
  };
}
