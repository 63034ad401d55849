import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch } from '../src/net/guarded-fetch.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { startDocumentServer, type DocumentServer } from './support/client-metadata-server.ts';
import { listVaults, mcpRequest } from './support/mcp-bearer-requests.ts';
import { baseOf, loopbackRedirectUri, newAccount, signInAndAuthorize, type TestAccount } from './support/oauth-flow.ts';

// oauth4webapi refuses plain http unless told; the test gateway listens on http://localhost.
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;
const ALL_SCOPES = 'mcp:read mcp:write offline_access';

describe('OAuth 2.1 for the hosted MCP resource, with oauth4webapi as the client', () => {
  let gateway: TestGateway;
  let documents: DocumentServer;
  let base: string;
  let resource: string;
  let as: oauth.AuthorizationServer;

  beforeAll(async () => {
    documents = await startDocumentServer();
    gateway = await startTestGateway({ fetchClientMetadata: createGuardedFetch({ allowPrivateAddresses: true, ca: documents.cert }) });
    base = baseOf(gateway);
    resource = `${base}/api/mcp`;
    as = await oauth.processDiscoveryResponse(new URL(base), await oauth.discoveryRequest(new URL(base), { algorithm: 'oauth2', ...INSECURE }));
  });
  afterAll(async () => {
    await gateway?.stop();
    await documents?.close();
  });

  /** Dynamic client registration through oauth4webapi. */
  async function registerWithOauth4webapi(metadata: Partial<oauth.Client> & { redirect_uris: string[] }): Promise<oauth.Client> {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      { token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], client_name: 'oauth4webapi agent', ...metadata },
      INSECURE,
    );
    expect(response.status).toBe(201);
    return oauth.processDynamicClientRegistrationResponse(response);
  }

  /** The whole authorization code flow with PKCE, as oauth4webapi does it; returns the token response. */
  async function authorize(
    account: TestAccount,
    client: oauth.Client,
    redirectUri: string,
    scope = ALL_SCOPES,
  ): Promise<{ tokens: oauth.TokenEndpointResponse; tokenResponse: Response; location: URL; state: string }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', scope);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('resource', resource);
    const location = await signInAndAuthorize(gateway, { email: account.email, password: account.password, authorizationUrl: url, decision: 'Allow' });
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    // Checks state and, because the metadata promises it, the iss parameter (RFC 9207).
    const params = oauth.validateAuthResponse(as, client, location, state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
      additionalParameters: { resource },
      ...INSECURE,
    });
    const headers = tokenResponse.clone();
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    return { tokens, tokenResponse: headers, location, state };
  }

  async function refreshWith(client: oauth.Client, refreshToken: string) {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, INSECURE);
    const copy = response.clone();
    return { response: copy, tokens: await oauth.processRefreshTokenResponse(as, client, response) };
  }

  /** The OAuth error a failing oauth4webapi call threw (its RFC 6749 `error`). */
  async function oauthErrorOf(promise: Promise<unknown>): Promise<{ error: string; status: number }> {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(oauth.ResponseBodyError);
    return { error: (error as oauth.ResponseBodyError).error, status: (error as oauth.ResponseBodyError).status };
  }

  describe('discovery', () => {
    it('publishes RFC 9728 protected-resource metadata for /api/mcp, also at the root fallback', async () => {
      const response = await oauth.resourceDiscoveryRequest(new URL(resource), INSECURE);
      expect(response.url).toBe(`${base}/.well-known/oauth-protected-resource/api/mcp`);
      const metadata = await oauth.processResourceDiscoveryResponse(new URL(resource), response);
      expect(metadata.resource).toBe(resource);
      expect(metadata.authorization_servers).toEqual([base]);
      expect(metadata.scopes_supported).toEqual(['mcp:read', 'mcp:write']);
      expect(metadata.bearer_methods_supported).toEqual(['header']);

      const root = await fetch(`${base}/.well-known/oauth-protected-resource`);
      expect(root.status).toBe(200);
      expect(await root.json()).toEqual({ ...metadata });
    });

    it('points unauthenticated MCP requests at the resource metadata (WWW-Authenticate resource_metadata)', async () => {
      const response = await fetch(resource, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      });
      expect(response.status).toBe(401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp"`);
    });

    it('publishes RFC 8414 authorization-server metadata that oauth4webapi accepts', () => {
      expect(as.issuer).toBe(base);
      expect(as.authorization_endpoint).toBe(`${base}/oauth/authorize`);
      expect(as.token_endpoint).toBe(`${base}/oauth/token`);
      expect(as.registration_endpoint).toBe(`${base}/oauth/register`);
      expect(as.revocation_endpoint).toBe(`${base}/oauth/revoke`);
      expect(as.code_challenge_methods_supported).toEqual(['S256']);
      expect(as.response_types_supported).toEqual(['code']);
      expect(as.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
      expect(as.token_endpoint_auth_methods_supported).toEqual(['none']);
      expect(as.scopes_supported).toEqual(['mcp:read', 'mcp:write', 'offline_access']);
      expect(as.client_id_metadata_document_supported).toBe(true);
      expect(as.authorization_response_iss_parameter_supported).toBe(true);
    });
  });

  describe('authorization code flow with PKCE', () => {
    it('registers dynamically, signs in, consents, echoes state and iss, and the access token calls an MCP tool', async () => {
      const account = await newAccount(gateway);
      const redirectUri = loopbackRedirectUri();
      const client = await registerWithOauth4webapi({ redirect_uris: [redirectUri] });
      expect(client.client_id).toMatch(/^kgc_/);
      expect(client.token_endpoint_auth_method).toBe('none');
      expect(client.redirect_uris).toEqual([redirectUri]);

      const { tokens, tokenResponse, location, state } = await authorize(account, client, redirectUri);
      expect(location.searchParams.get('state')).toBe(state);
      expect(location.searchParams.get('iss')).toBe(base);
      expect(location.searchParams.get('code')).toMatch(/^kgac_/);
      expect(tokenResponse.headers.get('cache-control')).toBe('no-store');
      expect(tokens.access_token).toMatch(/^kgat_/);
      expect(tokens.token_type).toBe('bearer'); // oauth4webapi lower-cases "Bearer"
      expect(tokens.expires_in).toBe(3600);
      // The granted scope, offline access included; the access token itself carries the MCP scopes only.
      expect(tokens.scope).toBe('mcp:read mcp:write offline_access');
      expect(tokens.refresh_token).toMatch(/^kgrt_/);
      const [accessRow] = await gateway.db.query<{ scopes: string[]; audience: string; lifetime: number }>(
        `SELECT scopes, audience, EXTRACT(EPOCH FROM expires_at - created_at)::int AS lifetime FROM oauth_tokens WHERE kind = 'access' AND client_id = $1`,
        [client.client_id],
      );
      expect(accessRow).toEqual({ scopes: ['mcp:read', 'mcp:write'], audience: resource, lifetime: 3600 });

      const initialize = await mcpRequest(gateway, tokens.access_token, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'oauth4webapi agent', version: '1.0.0' },
      });
      expect(initialize.status).toBe(200);
      expect(initialize.body?.result?.serverInfo?.name).toBe('kgate');
      const listed = await listVaults(gateway, tokens.access_token);
      expect(listed.status).toBe(200);
      expect(listed.body?.result?.isError).not.toBe(true);
      const vaults = listed.body?.result?.structuredContent?.vaults as { mappingId: string }[];
      expect(vaults.map((vault) => vault.mappingId)).toEqual([account.mappingId]);

      const grants = await gateway.db.query<{ client_id: string; scopes: string[]; resource: string; activated: boolean }>(
        'SELECT client_id, scopes, resource, activated_at IS NOT NULL AS activated FROM oauth_grants WHERE account_id = $1',
        [account.accountId],
      );
      expect(grants).toEqual([{ client_id: client.client_id, scopes: ['mcp:read', 'mcp:write', 'offline_access'], resource, activated: true }]);
    });

    it('gives no refresh token without offline_access, and a token limited to the scopes asked for', async () => {
      const account = await newAccount(gateway);
      const redirectUri = loopbackRedirectUri();
      const client = await registerWithOauth4webapi({ redirect_uris: [redirectUri] });
      const { tokens, tokenResponse } = await authorize(account, client, redirectUri, 'mcp:read');
      expect(tokenResponse.headers.get('cache-control')).toBe('no-store');
      expect(tokens.scope).toBe('mcp:read');
      expect(tokens.expires_in).toBe(3600);
      expect(tokens.refresh_token).toBeUndefined();
      const rows = await gateway.db.query<{ kind: string }>('SELECT kind FROM oauth_tokens WHERE account_id = $1 ORDER BY kind', [account.accountId]);
      expect(rows.map((row) => row.kind)).toEqual(['access']);
    });

    it('gives no refresh token to a client that did not register the refresh_token grant, even when it asks', async () => {
      const account = await newAccount(gateway);
      const redirectUri = loopbackRedirectUri();
      const client = await registerWithOauth4webapi({ redirect_uris: [redirectUri], grant_types: ['authorization_code'] });
      const { tokens } = await authorize(account, client, redirectUri, ALL_SCOPES);
      expect(tokens.refresh_token).toBeUndefined();
      expect(tokens.scope).toBe('mcp:read mcp:write');
    });

    it('sends a denial back to the client as access_denied with state and iss, and stores no grant', async () => {
      const account = await newAccount(gateway);
      const redirectUri = loopbackRedirectUri();
      const client = await registerWithOauth4webapi({ redirect_uris: [redirectUri] });
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      for (const [key, value] of Object.entries({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: redirectUri,
        scope: 'mcp:read',
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
        resource,
      })) {
        url.searchParams.set(key, value);
      }
      const location = await signInAndAuthorize(gateway, { email: account.email, password: account.password, authorizationUrl: url, decision: 'Deny' });
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect(location.searchParams.get('state')).toBe(state);
      expect(location.searchParams.get('iss')).toBe(base);
      expect(location.searchParams.has('code')).toBe(false);
      let thrown: unknown;
      try {
        oauth.validateAuthResponse(as, client, location, state);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(oauth.AuthorizationResponseError);
      expect((thrown as oauth.AuthorizationResponseError).error).toBe('access_denied');
      expect(await gateway.db.query('SELECT id FROM oauth_grants WHERE account_id = $1', [account.accountId])).toEqual([]);
    });
  });

  describe('refresh tokens', () => {
    it('rotate on every use; the rotated token then fails, and presenting it again revokes the whole family', async () => {
      const account = await newAccount(gateway);
      const redirectUri = loopbackRedirectUri();
      const client = await registerWithOauth4webapi({ redirect_uris: [redirectUri] });
      const first = (await authorize(account, client, redirectUri)).tokens;

      const second = await refreshWith(client, first.refresh_token!);
      expect(second.response.headers.get('cache-control')).toBe('no-store');
      expect(second.tokens.refresh_token).toMatch(/^kgrt_/);
      expect(second.tokens.refresh_token).not.toBe(first.refresh_token);
      expect(second.tokens.access_token).not.toBe(first.access_token);
      expect(second.tokens.expires_in).toBe(3600);
      expect(second.tokens.scope).toBe('mcp:read mcp:write offline_access');
      expect((await listVaults(gateway, second.tokens.access_token)).status).toBe(200);

      // The old refresh token is spent: presenting it is a replay (spec 3.2), which revokes the family.
      expect(await oauthErrorOf(refreshWith(client, first.refresh_token!))).toEqual({ error: 'invalid_grant', status: 400 });
      expect(await oauthErrorOf(refreshWith(client, second.tokens.refresh_token!))).toEqual({ error: 'invalid_grant', status: 400 });
      expect((await listVaults(gateway, second.tokens.access_token)).status).toBe(401);
      expect((await listVaults(gateway, first.access_token)).status).toBe(401);
      const [grant] = await gateway.db.query<{ revoked_reason: string | null }>('SELECT revoked_reason FROM oauth_grants WHERE account_id = $1', [
        account.accountId,
      ]);
      expect(grant?.revoked_reason).toBe('refresh_replay');
    });
  });

  describe('revocation endpoint (RFC 7009)', () => {
    it('revoking the refresh token ends the access token and the refresh token', async () => {
      const account = await newAccount(gateway);
      const redirectUri = loopbackRedirectUri();
      const client = await registerWithOauth4webapi({ redirect_uris: [redirectUri] });
      const { tokens } = await authorize(account, client, redirectUri);
      expect((await listVaults(gateway, tokens.access_token)).status).toBe(200);

      const response = await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, {
        additionalParameters: { token_type_hint: 'refresh_token' },
        ...INSECURE,
      });
      expect(response.status).toBe(200);
      await oauth.processRevocationResponse(response);

      const after = await listVaults(gateway, tokens.access_token);
      expect(after.status).toBe(401);
      expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await oauthErrorOf(refreshWith(client, tokens.refresh_token!))).toEqual({ error: 'invalid_grant', status: 400 });
    });

    it('revoking the access token ends that token only; the refresh token still renews access', async () => {
      const account = await newAccount(gateway);
      const redirectUri = loopbackRedirectUri();
      const client = await registerWithOauth4webapi({ redirect_uris: [redirectUri] });
      const { tokens } = await authorize(account, client, redirectUri);

      const response = await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, {
        additionalParameters: { token_type_hint: 'access_token' },
        ...INSECURE,
      });
      await oauth.processRevocationResponse(response);
      expect((await listVaults(gateway, tokens.access_token)).status).toBe(401);
      const renewed = await refreshWith(client, tokens.refresh_token!);
      expect((await listVaults(gateway, renewed.tokens.access_token)).status).toBe(200);
    });

    it('answers an unknown token with 200 and changes nothing', async () => {
      const account = await newAccount(gateway);
      const redirectUri = loopbackRedirectUri();
      const client = await registerWithOauth4webapi({ redirect_uris: [redirectUri] });
      const { tokens } = await authorize(account, client, redirectUri);
      const response = await oauth.revocationRequest(as, client, oauth.None(), 'kgrt_not-a-token-we-issued-aaaaaaaaaaaaaaaaaaaa', INSECURE);
      expect(response.status).toBe(200);
      expect((await listVaults(gateway, tokens.access_token)).status).toBe(200);
    });
  });

  describe('client ID metadata documents', () => {
    it('a client whose client_id is an https URL completes the flow and is stored as a metadata-document client', async () => {
      const account = await newAccount(gateway);
      const redirectUri = loopbackRedirectUri();
      const path = `/clients/agent-${oauth.generateRandomState()}.json`;
      const clientId = `${documents.origin}${path}`;
      documents.documents.set(path, {
        body: JSON.stringify({
          client_id: clientId,
          client_name: 'Document Agent',
          client_uri: documents.origin,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      });
      const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };

      const { tokens } = await authorize(account, client, redirectUri);
      expect(documents.hits.get(path)).toBeGreaterThanOrEqual(1);
      expect(tokens.refresh_token).toMatch(/^kgrt_/);
      const listed = await listVaults(gateway, tokens.access_token);
      expect(listed.status).toBe(200);
      expect(listed.body?.result?.structuredContent?.vaults[0]?.mappingId).toBe(account.mappingId);
      const renewed = await refreshWith(client, tokens.refresh_token!);
      expect((await listVaults(gateway, renewed.tokens.access_token)).status).toBe(200);

      const rows = await gateway.db.query<{ kind: string; client_name: string }>('SELECT kind, client_name FROM oauth_clients WHERE client_id = $1', [
        clientId,
      ]);
      expect(rows).toEqual([{ kind: 'metadata_document', client_name: 'Document Agent' }]);
      const connections = await gateway.services.oauth.listConnections(account.accountId);
      expect(connections.map((c) => [c.clientId, c.kind, c.clientName])).toEqual([[clientId, 'metadata_document', 'Document Agent']]);
    });

    it('refuses a redirect URI the document does not list, on a page and without redirecting', async () => {
      const listed = loopbackRedirectUri();
      const path = `/clients/strict-${oauth.generateRandomState()}.json`;
      const clientId = `${documents.origin}${path}`;
      documents.documents.set(path, { body: JSON.stringify({ client_id: clientId, redirect_uris: [listed], token_endpoint_auth_method: 'none' }) });
      const authorizeWith = (redirectUri: string) => {
        const url = new URL(as.authorization_endpoint!);
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('client_id', clientId);
        url.searchParams.set('redirect_uri', redirectUri);
        url.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
        url.searchParams.set('code_challenge_method', 'S256');
        return fetch(url, { redirect: 'manual' });
      };
      const refused = await authorizeWith('https://evil.example/callback');
      expect(refused.status).toBe(400);
      expect(refused.headers.get('location')).toBeNull();
      // Control: the listed one reaches the sign-in page.
      const accepted = await authorizeWith(listed);
      expect(accepted.status).toBe(303);
      expect(new URL(accepted.headers.get('location')!, base).pathname).toBe('/signin');
    });

    it('refuses a document whose client_id differs from its URL, on a page and without redirecting', async () => {
      const redirectUri = loopbackRedirectUri();
      const path = `/clients/liar-${oauth.generateRandomState()}.json`;
      const clientId = `${documents.origin}${path}`;
      documents.documents.set(path, {
        body: JSON.stringify({ client_id: `${documents.origin}/clients/someone-else.json`, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
      });
      const url = new URL(as.authorization_endpoint!);
      for (const [key, value] of Object.entries({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        state: 'xyz',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
      })) {
        url.searchParams.set(key, value);
      }
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('invalid_client');
      expect(await gateway.db.query('SELECT client_id FROM oauth_clients WHERE client_id = $1', [clientId])).toEqual([]);
    });
  });
});
