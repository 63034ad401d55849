import { Hono, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isKgateError, KgateError } from '../../kernel/errors.ts';
import { hasBody, readBody } from '../http/body.ts';
import type { HttpEnv } from '../http/context.ts';
import type { AnyOperation } from '../operations/operation.ts';
import { MAX_REST_BODY_BYTES } from '../rest/bind.ts';
import { honoPath } from '../rest/routes.ts';
import { sendProblem } from './envelope.ts';
import { productHandler, type ProductHandlerDependencies } from './handler.ts';
import { productMediaHandler } from './media-routes.ts';
import { productOpenApiDocument } from './openapi.ts';
import { productRoutesOf } from './routes.ts';
import { productStreamHandler } from './stream-routes.ts';
import { requireRuntimeVersion } from './version.ts';

/** Where the Product Runtime's runtime operations live (spec 4.7). */
export const PRODUCT_API_PREFIX = '/api/product/v1';
/** Where its hosted vault routes live (spec 4.7). */
export const HOSTED_VAULT_PREFIX = '/workspaces';

/** Reads the body's bytes, bounded, before anything else (as the Developer REST API does, and for the same reasons). */
function boundedBody(): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const contentLength = c.req.header('content-length');
    if (hasBody(contentLength, c.req.header('transfer-encoding'))) {
      try {
        c.set('body', await readBody(c.env?.incoming ?? c.req.raw.body, contentLength, MAX_REST_BODY_BYTES));
      } catch (error) {
        if (error instanceof KgateError && error.code === 'payload_too_large') c.header('Connection', 'close');
        throw error;
      }
    }
    await next();
  };
}

/**
 * The Product Runtime (docs/runtime.md): the product routes of an operation table under /api/product/v1 and
 * /workspaces/{workspaceId}/vaults/{vaultId}, and their OpenAPI 3.1 document, built from the same table. Every answer
 * but the document is a V1 envelope, errors and unknown routes included; the version header is checked first.
 */
export function productRuntime(deps: ProductHandlerDependencies & { operations: readonly AnyOperation[]; baseUrl: string; version: string }): Hono<HttpEnv> {
  const api = new Hono<HttpEnv>();
  const routes = productRoutesOf(deps.operations);
  const document = JSON.stringify(productOpenApiDocument(routes, deps));
  api.get(`${PRODUCT_API_PREFIX}/openapi.json`, (c) => c.body(document, 200, { 'Content-Type': 'application/json' }));
  // Routes that carry bytes (private media) read their bodies themselves, bounded by their own limit and streamed:
  // registered before the JSON body reader, they answer before it would run.
  for (const route of routes.filter((r) => r.binding.binary)) {
    api.on(route.binding.method, honoPath(route.binding.path), requireRuntimeVersion(), productMediaHandler(route, deps));
  }
  for (const prefix of [`${PRODUCT_API_PREFIX}/*`, `${HOSTED_VAULT_PREFIX}/*`]) {
    api.use(prefix, requireRuntimeVersion(), boundedBody());
  }
  for (const route of routes.filter((r) => !r.binding.binary)) {
    // A route that may stream (generation) answers NDJSON when asked, else JSON like the rest (stream-routes.ts).
    api.on(route.binding.method, honoPath(route.binding.path), route.binding.stream ? productStreamHandler(route, deps) : productHandler(route, deps));
  }
  // Every family of the contract is served (a model-backed route without a model answers its own `unavailable`
  // envelope); any other path is not found.
  for (const prefix of [`${PRODUCT_API_PREFIX}/*`, `${HOSTED_VAULT_PREFIX}/*`]) {
    api.all(prefix, (c) => sendProblem(c, new KgateError('not_found', `No Product Runtime route for ${c.req.method} ${c.req.path}.`)));
  }
  api.onError((error, c) => {
    if (isKgateError(error)) return sendProblem(c, error);
    if (error instanceof HTTPException && error.status === 413) return sendProblem(c, new KgateError('payload_too_large', 'The request body is too large.'));
    if (error instanceof HTTPException && error.status < 500) return sendProblem(c, new KgateError('invalid_request', error.message || 'The request is malformed.'));
    // Logged without the request: it may hold tokens or note content.
    c.get('log')?.().error({ err: { name: error.name, message: error.message, stack: error.stack } }, 'unhandled error');
    return sendProblem(c, new KgateError('internal', 'An unexpected error occurred; the request id identifies it in the logs.'));
  });
  return api;
}
