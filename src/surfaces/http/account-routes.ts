import { Hono } from 'hono';
import type { TokensService } from '../../domains/tokens/index.ts';
import { requireBearer } from './auth.ts';
import type { HttpEnv } from './context.ts';

/**
 * `GET /api/account`: who the presented credential acts for, with the account's current status, plan and what
 * the plan includes. Clients use it to check a token and a plan before calling other APIs.
 */
export function accountRoutes(tokens: TokensService): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  routes.use('*', requireBearer(tokens));
  routes.get('/', (c) => {
    const principal = c.get('principal');
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
