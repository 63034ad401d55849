import { Hono } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import { hasBody, readBody } from '../http/body.ts';
import type { HttpEnv } from '../http/context.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import { MAX_REST_BODY_BYTES } from './bind.ts';
import { restHandler } from './handler.ts';
import { DEVELOPER_API_IDENTITY, openApiDocument, type RestApiIdentity } from './openapi.ts';
import { honoPath, restRoutesOf } from './routes.ts';
import type { AnyOperation } from '../operations/operation.ts';

/**
 * The Hono path that catches a note path (ending in `.md`) of any other depth than the two segments of spec 4.6.
 * Anything else under /notes that no route serves (`/notes/`, `DELETE /notes/trash`) stays "no route".
 */
export const OTHER_NOTE_DEPTHS = '/notes/:rest{.+\\.md}';

/**
 * The Developer REST API at /api/dev: the REST routes of an operation table (the gateway's is OPERATIONS) and their
 * OpenAPI 3.1 document, built from the same table so that the two cannot disagree.
 */
export function developerApi(deps: { pipeline: Pipeline; operations: readonly AnyOperation[]; baseUrl: string; version: string }): Hono<HttpEnv> {
  return restApi({ ...deps, identity: DEVELOPER_API_IDENTITY, maxBodyBytes: MAX_REST_BODY_BYTES, noteDepths: true });
}

/** What a REST API of the REST surface is built from (the Developer REST API, the automation gateway). */
export interface RestApiDependencies {
  pipeline: Pipeline;
  operations: readonly AnyOperation[];
  baseUrl: string;
  version: string;
  identity: RestApiIdentity;
  /** Largest request body, refused before authentication. */
  maxBodyBytes: number;
  /** Serve a note path of another depth than two segments through the same operation (the Developer REST API). */
  noteDepths?: boolean;
}

/**
 * A REST API of the REST surface: the routes of an operation table, served through the one pipeline, and their
 * OpenAPI 3.1 document at `/openapi.json` (public: it describes, it grants nothing). Also answers the document as
 * `document` for a public copy elsewhere.
 */
export function restApi(deps: RestApiDependencies): Hono<HttpEnv> {
  const api = new Hono<HttpEnv>();
  const routes = restRoutesOf(deps.operations);
  const document = JSON.stringify(openApiDocument(routes, { baseUrl: deps.baseUrl, version: deps.version, api: deps.identity }));
  api.use('*', async (c, next) => {
    // The bytes of a body (of any method) are read, bounded, before anything else, so that a body over the bound is
    // refused without consuming anything, whether it declares its length or comes chunked. Parsing them is the route's input
    // binding, after admission: a malformed body counts as a call (spec 7.3). The rest of a refused body is never
    // read, so the connection cannot carry another request.
    const contentLength = c.req.header('content-length');
    // Already read by an API mounted under this one's prefix that served no route (the automation gateway under
    // /api/dev): the stream is consumed, so reading again would wait for ever.
    if (c.get('body') === undefined && hasBody(contentLength, c.req.header('transfer-encoding'))) {
      try {
        // Node's own request when served by Node: reading Hono's web body would first build a whole web Request.
        c.set('body', await readBody(c.env?.incoming ?? c.req.raw.body, contentLength, deps.maxBodyBytes));
      } catch (error) {
        if (error instanceof KgateError && error.code === 'payload_too_large') c.header('Connection', 'close');
        throw error;
      }
    }
    await next();
  });
  api.get('/openapi.json', (c) => c.body(document, 200, { 'Content-Type': 'application/json' }));
  for (const route of routes) {
    const handler = restHandler(route, deps.pipeline);
    api.on(route.binding.method, honoPath(route.binding.path), handler);
  }
  // A note at another depth than the two segments of spec 4.6 reaches the same operation, whose input binding refuses
  // it with invalid_path, the rule and the route that takes any depth, instead of a bare "no route".
  if (deps.noteDepths) {
    for (const route of routes.filter((r) => r.binding.notePathFromSegments)) {
      api.on(route.binding.method, OTHER_NOTE_DEPTHS, restHandler(route, deps.pipeline));
    }
  }
  return api;
}

/** The OpenAPI document of an operation table's REST routes, as `restApi` serves it (for a public copy). */
export function restApiDocument(deps: Pick<RestApiDependencies, 'operations' | 'baseUrl' | 'version' | 'identity'>): string {
  return JSON.stringify(openApiDocument(restRoutesOf(deps.operations), { baseUrl: deps.baseUrl, version: deps.version, api: deps.identity }));
}
