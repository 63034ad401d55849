import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { KgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { restHandler, type RestDependencies } from './handler.ts';
import { openApiDocument } from './openapi.ts';
import { DEVELOPER_ROUTES, honoPath } from './routes.ts';

/** Largest request body of the Developer REST API: a 100-action transaction of typical notes fits many times. */
export const MAX_REST_BODY_BYTES = 8 * 1024 * 1024;

/**
 * The Developer REST API at /api/dev: the routes of DEVELOPER_ROUTES and their OpenAPI 3.1 document, built from the
 * same table so that the two cannot disagree.
 */
export function developerApi(deps: RestDependencies & { baseUrl: string; version: string }): Hono<HttpEnv> {
  const api = new Hono<HttpEnv>();
  const document = JSON.stringify(openApiDocument(DEVELOPER_ROUTES, deps));
  api.use(
    '*',
    bodyLimit({
      maxSize: MAX_REST_BODY_BYTES,
      onError: (c) => {
        // The rest of the body is never read, so the connection cannot carry another request.
        c.header('Connection', 'close');
        throw new KgateError('payload_too_large', `The request body is larger than ${MAX_REST_BODY_BYTES} bytes.`, {
          limit: MAX_REST_BODY_BYTES,
        });
      },
    }),
  );
  api.get('/openapi.json', (c) => c.body(document, 200, { 'Content-Type': 'application/json' }));
  for (const route of DEVELOPER_ROUTES) {
    api.on(route.method, honoPath(route.path), restHandler(route, deps));
  }
  return api;
}
