import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MAX_REGISTRATION_BYTES, OAuthError, type OAuthService } from '../../domains/oauth/index.ts';
import { clientAddressOf } from '../http/client-address.ts';
import type { HttpEnv } from '../http/context.ts';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  OAUTH_PATHS,
  PROTECTED_RESOURCE_METADATA_PATH,
  INTELLIGENCE_RESOURCE_METADATA_PATH,
  PROTECTED_RESOURCE_METADATA_ROOT,
  authorizationServerMetadata,
  protectedResourceMetadata,
} from './metadata.ts';
import { tokenRequestOf } from './token-request.ts';

// Token and revocation requests are a handful of short parameters.
const MAX_FORM_BYTES = 16 * 1024;

/** RFC 6749 s5.2 error JSON; token responses and their errors are never cached (s5.1). */
function oauthError(c: Context<HttpEnv>, error: OAuthError): Response {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  if (error.status === 401) c.header('WWW-Authenticate', 'Basic realm="kgate"');
  if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
  return c.json({ error: error.error, error_description: error.description }, error.status as ContentfulStatusCode);
}

function tooLarge(c: Context<HttpEnv>): Response {
  return oauthError(c, new OAuthError('invalid_request', 'The request body is too large.', 413));
}

async function formOf(c: Context<HttpEnv>): Promise<URLSearchParams> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  return new URLSearchParams(await c.req.text());
}

/** How the OAuth endpoints see the network. */
export interface OAuthRouteOptions {
  /** Reverse proxies whose X-Forwarded-For is believed (KGATE_TRUST_PROXY): the client address of registration limits. */
  trustedProxies: number;
}

/**
 * The OAuth endpoints that machines call: metadata (RFC 9728, RFC 8414), registration (RFC 7591), token and
 * revocation (RFC 7009). The authorization endpoint is a page (surfaces/web). Browser-based MCP clients call
 * these across origins, and none of them uses cookies, so CORS is open.
 */
export function oauthRoutes(oauth: OAuthService, options: OAuthRouteOptions): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  // Mounted at the root: the CORS middleware is registered on these paths only, never on the pages.
  const cors = async (c: Context<HttpEnv>, next: () => Promise<void>) => {
    c.header('Access-Control-Allow-Origin', '*');
    if (c.req.method === 'OPTIONS') {
      c.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      c.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, MCP-Protocol-Version');
      c.header('Access-Control-Max-Age', '600');
      return c.body(null, 204);
    }
    await next();
  };
  const machinePaths = [
    PROTECTED_RESOURCE_METADATA_PATH,
    INTELLIGENCE_RESOURCE_METADATA_PATH,
    PROTECTED_RESOURCE_METADATA_ROOT,
    AUTHORIZATION_SERVER_METADATA_PATH,
    OAUTH_PATHS.register,
    OAUTH_PATHS.token,
    OAUTH_PATHS.revoke,
  ];
  for (const path of machinePaths) routes.use(path, cors);

  const resourceMetadata = (c: Context<HttpEnv>) => c.json(protectedResourceMetadata(oauth.issuer()));
  routes.get(PROTECTED_RESOURCE_METADATA_PATH, resourceMetadata);
  routes.get(PROTECTED_RESOURCE_METADATA_ROOT, resourceMetadata);
  routes.get(INTELLIGENCE_RESOURCE_METADATA_PATH, (c) => c.json(protectedResourceMetadata(oauth.issuer(), '/api/intelligence/mcp')));
  routes.get(AUTHORIZATION_SERVER_METADATA_PATH, (c) => c.json(authorizationServerMetadata(oauth.issuer())));

  routes.post(OAUTH_PATHS.register, bodyLimit({ maxSize: MAX_REGISTRATION_BYTES, onError: tooLarge }), async (c) => {
    try {
      let metadata: unknown;
      try {
        metadata = JSON.parse(await c.req.text());
      } catch {
        throw new OAuthError('invalid_client_metadata', 'The registration body must be a JSON object.');
      }
      const registered = await oauth.registerClient(metadata, clientAddressOf(c, options.trustedProxies));
      c.header('Cache-Control', 'no-store');
      return c.json(registered, 201);
    } catch (error) {
      if (error instanceof OAuthError) return oauthError(c, error);
      throw error;
    }
  });

  routes.post(OAUTH_PATHS.token, bodyLimit({ maxSize: MAX_FORM_BYTES, onError: tooLarge }), async (c) => {
    try {
      const tokens = await oauth.exchange(tokenRequestOf(await formOf(c)));
      c.header('Cache-Control', 'no-store');
      c.header('Pragma', 'no-cache');
      return c.json(tokens);
    } catch (error) {
      if (error instanceof OAuthError) return oauthError(c, error);
      throw error;
    }
  });

  routes.post(OAUTH_PATHS.revoke, bodyLimit({ maxSize: MAX_FORM_BYTES, onError: tooLarge }), async (c) => {
    try {
      await oauth.revoke(await formOf(c));
      c.header('Cache-Control', 'no-store');
      return c.body(null, 200);
    } catch (error) {
      if (error instanceof OAuthError) return oauthError(c, error);
      throw error;
    }
  });
  return routes;
}
