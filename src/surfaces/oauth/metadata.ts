import { OAUTH_SCOPES } from '../../domains/oauth/index.ts';

/** Where the protected-resource metadata of the MCP resource lives (RFC 9728 s3.1: the path after the well-known). */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/api/mcp';
/** Where the protected-resource metadata of the product-only MCP endpoint lives (spec 4.4). */
export const INTELLIGENCE_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/api/intelligence/mcp';
/** The root fallback that clients try when the path-specific document is missing. */
export const PROTECTED_RESOURCE_METADATA_ROOT = '/.well-known/oauth-protected-resource';
/** RFC 8414 s3: the issuer has no path, so the metadata sits right at the well-known location. */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** The OAuth endpoints, relative to the base URL. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
} as const;

/**
 * RFC 9728 protected-resource metadata of `{base}/api/mcp`, or of the product-only endpoint
 * `{base}/api/intelligence/mcp` (whose tokens are good only there; docs/oauth.md).
 */
export function protectedResourceMetadata(base: string, path: '/api/mcp' | '/api/intelligence/mcp' = '/api/mcp'): Record<string, unknown> {
  return {
    // s3.3: must equal the resource identifier the client used to build the metadata URL, character for character.
    resource: `${base}${path}`,
    authorization_servers: [base],
    scopes_supported: ['mcp:read', 'mcp:write'],
    bearer_methods_supported: ['header'],
    resource_name: path === '/api/mcp' ? 'kgate MCP gateway' : 'kgate published intelligence (product-only MCP)',
  };
}

/** RFC 8414 authorization-server metadata. */
export function authorizationServerMetadata(base: string): Record<string, unknown> {
  return {
    issuer: base,
    authorization_endpoint: `${base}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${base}${OAUTH_PATHS.token}`,
    registration_endpoint: `${base}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${base}${OAUTH_PATHS.revoke}`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}
