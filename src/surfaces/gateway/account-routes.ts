import { Hono } from 'hono';
import type { HttpEnv } from '../http/context.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import { ACCOUNT_SURFACE } from '../invocation/surface.ts';

/**
 * `GET /api/account`: who the presented credential acts for, with the account's current status, plan and what
 * the plan includes. Clients use it to check a token and a plan before calling other APIs. It authenticates
 * through the same pipeline as every operation, on a surface that needs no plan and counts nothing.
 */
export function accountRoutes(pipeline: Pipeline): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  routes.get('/', async (c) => {
    const principal = await pipeline.authenticate(ACCOUNT_SURFACE, c.req.header('authorization'));
    c.set('principal', principal);
    return c.json({
      accountId: principal.accountId,
      status: principal.status,
      plan: principal.plan,
      entitlements: principal.entitlements,
      credential: { kind: principal.actor.credentialKind, id: principal.actor.credentialId },
    });
  });
  return routes;
}
