import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { RuntimeOAuthError, type RuntimeCredentialsService } from '../../domains/runtime/credentials/index.ts';
import type { HttpEnv } from '../http/context.ts';

/** Where the Product Runtime's token endpoint lives (docs/runtime.md, "Credential issuance"). */
export const RUNTIME_TOKEN_PATH = '/api/product/v1/oauth/token';

// A token request is a handful of short parameters; an RSA-8192 client assertion is under 3 KiB.
const MAX_FORM_BYTES = 16 * 1024;

/** RFC 6749 section 5.1: token answers and their errors are never cached. */
function noStore(c: Context<HttpEnv>): void {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
}

/** RFC 6749 section 5.2 error JSON, with the Basic challenge when the client used HTTP Basic. */
function oauthError(c: Context<HttpEnv>, error: RuntimeOAuthError): Response {
  noStore(c);
  if (error.wwwAuthenticate !== undefined) c.header('WWW-Authenticate', error.wwwAuthenticate);
  return c.json({ error: error.error, error_description: error.error_description }, error.status as ContentfulStatusCode);
}

async function formOf(c: Context<HttpEnv>): Promise<URLSearchParams> {
  // RFC 6749 section 2.3.1: credentials in the URL would end up in logs and histories; parameters go in the body only.
  if (new URL(c.req.url).search !== '') throw new RuntimeOAuthError('invalid_request', 'Send the parameters in the body, never in the URL.');
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new RuntimeOAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  return new URLSearchParams(await c.req.text());
}

/**
 * `POST /api/product/v1/oauth/token`: the client credentials grant of service principals. It speaks OAuth (RFC 6749
 * section 5.1 and 5.2 JSON), not the runtime envelope, and needs no X-Service-Runtime-Version header. Mount it at the
 * root before the Product Runtime's own routes, whose middleware would otherwise ask this path for the version header.
 * No CORS: client credentials belong on a product's server, never in a browser.
 */
export function runtimeTokenRoute(credentials: Pick<RuntimeCredentialsService, 'grantToken'>): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  const tooLarge = (c: Context<HttpEnv>) => {
    c.header('Connection', 'close');
    return oauthError(c, new RuntimeOAuthError('invalid_request', `The request body is larger than ${MAX_FORM_BYTES} bytes.`, { status: 413 }));
  };
  routes.post(RUNTIME_TOKEN_PATH, bodyLimit({ maxSize: MAX_FORM_BYTES, onError: tooLarge }), async (c) => {
    try {
      const tokens = await credentials.grantToken(await formOf(c), c.req.header('authorization'));
      noStore(c);
      return c.json(tokens);
    } catch (error) {
      if (error instanceof RuntimeOAuthError) return oauthError(c, error);
      throw error;
    }
  });
  routes.all(RUNTIME_TOKEN_PATH, (c) => {
    c.header('Allow', 'POST');
    return oauthError(c, new RuntimeOAuthError('invalid_request', 'The token endpoint takes POST only.', { status: 405 }));
  });
  return routes;
}
