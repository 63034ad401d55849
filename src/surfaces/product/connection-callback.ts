import { Hono, type Context } from 'hono';
import type { EducationConnectionsService } from '../../domains/education/index.ts';
import type { HttpEnv } from '../http/context.ts';

/** Where Google sends the customer's browser back (spec 4.7): registered with Google as the redirect URI, exactly. */
export const GOOGLE_CONNECTION_CALLBACK_PATH = '/api/product/v1/connections/google/oauth/callback';

/** The page shown when no registered target can be trusted: kgate's own, without any of the request's values. */
function refusalPage(c: Context<HttpEnv>, reason: string): Response {
  const escaped = reason.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Connection not completed</title></head>' +
    `<body><h1>The connection was not completed</h1><p>${escaped}</p><p>Go back to the product and start connecting again.</p></body></html>`;
  return c.html(html, 400);
}

/**
 * `GET {base}/api/product/v1/connections/google/oauth/callback`: Google's redirect after the customer's consent. A
 * browser redirect, not a runtime call: it needs no X-Service-Runtime-Version and answers no envelope, so it is
 * mounted before the Product Runtime, whose middleware would ask for the header. The connections service checks the
 * state, exchanges the code and stores the grant; the answer is a 303 to the product's registered target, or a page
 * of kgate's own when none can be trusted. Its query (state and code) is never logged (the request log writes the
 * path only) and the answer is never cached or sent on as a referrer.
 */
export function googleConnectionCallback(deps: { educationConnections: Pick<EducationConnectionsService, 'complete'> }): Hono<HttpEnv> {
  const route = new Hono<HttpEnv>();
  route.get(GOOGLE_CONNECTION_CALLBACK_PATH, async (c) => {
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Content-Security-Policy', "default-src 'none'");
    const outcome = await deps.educationConnections.complete({ state: c.req.query('state'), code: c.req.query('code'), error: c.req.query('error') });
    if (outcome.kind === 'refused') return refusalPage(c, outcome.reason);
    return c.redirect(outcome.location, 303);
  });
  return route;
}
