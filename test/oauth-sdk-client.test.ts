import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch } from '../src/net/guarded-fetch.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { startDocumentServer, type DocumentServer } from './support/client-metadata-server.ts';
import { baseOf, loopbackRedirectUri, newAccount, signInAndAuthorize, type TestAccount } from './support/oauth-flow.ts';

/**
 * An OAuthClientProvider as an MCP host implements it, in memory. `redirectToAuthorization` plays the person in the
 * browser (sign-in, then Allow) and keeps where the browser ended up: the redirect URI with the code.
 */
class BrowserDrivenProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** Where the authorization ended: the redirect URI with code, state and iss. */
  landedAt: URL | undefined;
  /** The authorization URL the SDK built. */
  authorizationUrl: URL | undefined;
  readonly expectedState = randomBytes(16).toString('base64url');
  readonly clientMetadataUrl: string | undefined;

  constructor(
    private readonly gateway: TestGateway,
    private readonly account: TestAccount,
    readonly redirectUrl: string,
    options: { clientMetadataUrl?: string } = {},
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK host',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrl = authorizationUrl;
    this.landedAt = await signInAndAuthorize(this.gateway, {
      email: this.account.email,
      password: this.account.password,
      authorizationUrl,
      decision: 'Allow',
    });
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

describe('the MCP SDK client completes its own OAuth flow against kgate', () => {
  let gateway: TestGateway;
  let documents: DocumentServer;
  let base: string;
  let resource: string;

  beforeAll(async () => {
    documents = await startDocumentServer();
    gateway = await startTestGateway({ fetchClientMetadata: createGuardedFetch({ allowPrivateAddresses: true, ca: documents.cert }) });
    base = baseOf(gateway);
    resource = `${base}/api/mcp`;
  });
  afterAll(async () => {
    await gateway?.stop();
    await documents?.close();
  });

  /** connect() until it needs the browser, the browser walk, finishAuth(code); then a fresh connection calls list_vaults. */
  async function authorizeAndCallTool(provider: BrowserDrivenProvider, account: TestAccount) {
    const first = new Client({ name: 'sdk-host', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
    const refused = await first.connect(transport).then(
      () => undefined,
      (error: unknown) => error,
    );
    // The SDK discovered kgate from the 401, registered (or used its document URL), sent the person to consent,
    // and now waits for the code.
    expect(refused).toBeInstanceOf(UnauthorizedError);
    expect(provider.landedAt).toBeDefined();
    const landedAt = provider.landedAt!;
    expect(`${landedAt.origin}${landedAt.pathname}`).toBe(provider.redirectUrl);
    expect(landedAt.searchParams.get('state')).toBe(provider.expectedState);
    expect(landedAt.searchParams.get('iss')).toBe(base);
    const code = landedAt.searchParams.get('code');
    expect(code).toMatch(/^kgac_/);

    // What the SDK asked for: PKCE S256, our resource, the scopes from the protected-resource metadata.
    const asked = provider.authorizationUrl!;
    expect(`${asked.origin}${asked.pathname}`).toBe(`${base}/oauth/authorize`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(resource);
    expect(asked.searchParams.get('scope')).toBe('mcp:read mcp:write');

    await transport.finishAuth(code!);
    expect(provider.saved?.access_token).toMatch(/^kgat_/);
    expect(provider.saved?.expires_in).toBe(3600);
    await first.close();

    const client = new Client({ name: 'sdk-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
    try {
      expect(client.getServerVersion()?.name).toBe('kgate');
      const result = await client.callTool({ name: 'list_vaults', arguments: {} });
      expect(result.isError).not.toBe(true);
      const vaults = (result.structuredContent as { vaults: { mappingId: string }[] }).vaults;
      expect(vaults.map((vault) => vault.mappingId)).toEqual([account.mappingId]);
    } finally {
      await client.close();
    }
  }

  it('with dynamic client registration', async () => {
    const account = await newAccount(gateway, 'sdk');
    const provider = new BrowserDrivenProvider(gateway, account, loopbackRedirectUri());
    await authorizeAndCallTool(provider, account);
    const clientId = provider.information?.client_id;
    expect(clientId).toMatch(/^kgc_/);
    const rows = await gateway.db.query<{ kind: string; client_name: string }>('SELECT kind, client_name FROM oauth_clients WHERE client_id = $1', [clientId]);
    expect(rows).toEqual([{ kind: 'registered', client_name: 'MCP SDK host' }]);
    const connections = await gateway.services.oauth.listConnections(account.accountId);
    expect(connections.map((c) => [c.clientId, c.scopes])).toEqual([[clientId, ['mcp:read', 'mcp:write']]]);
  });

  it('with a client ID metadata document URL as client_id', async () => {
    const account = await newAccount(gateway, 'sdk-cimd');
    const redirectUri = loopbackRedirectUri();
    const path = `/sdk-host-${randomBytes(6).toString('hex')}.json`;
    const clientMetadataUrl = `${documents.origin}${path}`;
    documents.documents.set(path, {
      body: JSON.stringify({
        client_id: clientMetadataUrl,
        client_name: 'MCP SDK host (document)',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    const provider = new BrowserDrivenProvider(gateway, account, redirectUri, { clientMetadataUrl });
    await authorizeAndCallTool(provider, account);
    expect(provider.information?.client_id).toBe(clientMetadataUrl);
    expect(documents.hits.get(path)).toBeGreaterThanOrEqual(1);
    const rows = await gateway.db.query<{ kind: string }>('SELECT kind FROM oauth_clients WHERE client_id = $1', [clientMetadataUrl]);
    expect(rows).toEqual([{ kind: 'metadata_document' }]);
  });
});
