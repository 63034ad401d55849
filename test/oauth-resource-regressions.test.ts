/**
 * Failures seen in other OAuth deployments, replayed against the MCP resource (/api/mcp) and the tokens it accepts:
 * revocation and refresh across clients, audience (another gateway's tokens, revocation between two processes,
 * OAuth tokens on the REST API), scopes, suspended accounts and revoked connections, and credentials that are not
 * access tokens. Every test asserts the refusal and that nothing else changed.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { listVaults, mcpRequest } from './support/mcp-bearer-requests.ts';
import {
  authorizeCode,
  connect,
  exchangeCode,
  newAccount,
  newClient,
  pkcePair,
  postForm,
  refresh,
} from './support/oauth-flow.ts';
import { expectOAuthError, expectUnauthorized, sha256, useRegressionGateway } from './support/oauth-regression-setup.ts';

describe('OAuth regressions', () => {
  const setup = useRegressionGateway();
  const { countRows, mcpUsage } = setup;
  let gateway: TestGateway;
  let base: string;
  let resource: string;
  beforeAll(() => {
    ({ gateway, base, resource } = setup);
  });

  describe('revocation across clients', () => {
    it("a client cannot revoke another client's tokens; they keep working", async () => {
      const account = await newAccount(gateway);
      const victim = await connect(gateway, account);
      const attacker = await newClient(gateway);
      for (const [token, hint] of [
        [victim.tokens.access_token, 'access_token'],
        [victim.tokens.refresh_token!, 'refresh_token'],
      ] as const) {
        const response = await postForm(gateway, '/oauth/revoke', { token, token_type_hint: hint, client_id: attacker.clientId });
        expectOAuthError(response, 400, 'unauthorized_client');
      }
      expect((await listVaults(gateway, victim.tokens.access_token)).status).toBe(200);
      expect(await countRows('SELECT count(*) AS n FROM oauth_tokens WHERE account_id = $1 AND revoked_at IS NOT NULL', [account.accountId])).toBe(0);
      expect(await countRows('SELECT count(*) AS n FROM oauth_grants WHERE account_id = $1 AND revoked_at IS NOT NULL', [account.accountId])).toBe(0);
      expect((await refresh(gateway, victim.clientId, victim.tokens.refresh_token!)).status).toBe(200);
    });

    it('a client cannot refresh with another client\'s refresh token; the token is not spent', async () => {
      const account = await newAccount(gateway);
      const victim = await connect(gateway, account);
      const attacker = await newClient(gateway);
      expectOAuthError(await refresh(gateway, attacker.clientId, victim.tokens.refresh_token!), 400, 'invalid_grant');
      expect((await refresh(gateway, victim.clientId, victim.tokens.refresh_token!)).status).toBe(200);
    });
  });

  describe('audience', () => {
    it('a token issued for another resource (a gateway at another base URL, same database) is refused, both ways', async () => {
      const other = await startTestGateway({ database: gateway.db, env: { KGATE_BASE_URL: 'http://kgate-other.localhost:9' } });
      try {
        const otherResource = new URL('/api/mcp', other.url);
        expect(other.services.oauth.resource()).toBe('http://kgate-other.localhost:9/api/mcp');
        const account = await newAccount(gateway);

        // A token of this gateway (audience `${base}/api/mcp`) at the other gateway.
        const ours = await connect(gateway, account, { scope: 'mcp:read' });
        expect((await listVaults(gateway, ours.tokens.access_token)).status).toBe(200);
        expectUnauthorized(await listVaults(otherResource, ours.tokens.access_token));

        // A token issued by the other gateway's authorization server (through its domain) at this gateway.
        const registered = await other.services.oauth.registerClient({ redirect_uris: ['http://127.0.0.1:43999/cb'], token_endpoint_auth_method: 'none' });
        const { verifier, challenge } = pkcePair();
        const check = await other.services.oauth.checkAuthorizationRequest(
          new URLSearchParams({
            response_type: 'code',
            client_id: registered.client_id as string,
            redirect_uri: 'http://127.0.0.1:43999/cb',
            code_challenge: challenge,
            code_challenge_method: 'S256',
            scope: 'mcp:read',
          }),
        );
        if (check.kind !== 'valid') throw new Error(`unexpected ${check.kind}`);
        const redirect = new URL(await other.services.oauth.approve(account.accountId, check.request));
        const theirs = await other.services.oauth.exchange({
          grantType: 'authorization_code',
          clientId: registered.client_id as string,
          code: redirect.searchParams.get('code')!,
          redirectUri: 'http://127.0.0.1:43999/cb',
          codeVerifier: verifier,
        });
        const [row] = await gateway.db.query<{ audience: string }>('SELECT audience FROM oauth_tokens WHERE token_hash = $1', [sha256(theirs.access_token)]);
        expect(row?.audience).toBe('http://kgate-other.localhost:9/api/mcp');
        expect((await listVaults(otherResource, theirs.access_token)).status).toBe(200);
        expectUnauthorized(await listVaults(gateway, theirs.access_token));
      } finally {
        await other.stop();
      }
    });

    it('a revocation in one gateway reaches another gateway process serving the same resource over the same database', async () => {
      const twin = await startTestGateway({ database: gateway.db, env: { KGATE_BASE_URL: base } });
      try {
        const twinResource = new URL('/api/mcp', twin.url);
        const account = await newAccount(gateway);
        const { clientId, tokens } = await connect(gateway, account);
        // Both processes have resolved (and cached) the token.
        expect((await listVaults(gateway, tokens.access_token)).status).toBe(200);
        expect((await listVaults(twinResource, tokens.access_token)).status).toBe(200);
        expect((await postForm(gateway, '/oauth/revoke', { token: tokens.refresh_token!, client_id: clientId })).status).toBe(200);
        expectUnauthorized(await listVaults(gateway, tokens.access_token));
        // The other process learns of it from the database's notification; it must stop accepting the token.
        await vi.waitFor(async () => expectUnauthorized(await listVaults(twinResource, tokens.access_token)), { timeout: 10_000, interval: 50 });
      } finally {
        await twin.stop();
      }
    });

    it.each([
      ['GET /api/account', '/api/account'],
      ['GET /api/dev/notes', '/api/dev/notes?mappingId=MAPPING'],
    ])('an OAuth access token at %s is 401; the personal access token works there', async (_label, path) => {
      const account = await newAccount(gateway);
      const { tokens } = await connect(gateway, account);
      const url = `${base}${path.replace('MAPPING', account.mappingId)}`;
      const refused = await fetch(url, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('Bearer');
      expect(((await refused.json()) as { code: string }).code).toBe('unauthenticated');
      const allowed = await fetch(url, { headers: { authorization: `Bearer ${account.personalToken}` } });
      expect(allowed.status).toBe(200);
      expect((await listVaults(gateway, tokens.access_token)).status).toBe(200);
    });
  });

  describe('scopes', () => {
    it('a read-only token calling a write tool: 403 insufficient_scope with the scope to ask for, and no usage consumed', async () => {
      const account = await newAccount(gateway);
      const { tokens } = await connect(gateway, account, { scope: 'mcp:read' });
      expect(tokens.scope).toBe('mcp:read');
      expect((await listVaults(gateway, tokens.access_token)).status).toBe(200);
      const usageBefore = await mcpUsage(account.accountId);
      expect(usageBefore).toBe(1);

      const refused = await mcpRequest(gateway, tokens.access_token, 'tools/call', {
        name: 'preview_note_writes',
        arguments: { mappingId: account.mappingId, notes: [{ path: 'Inbox/x.md', content: '# x\n' }] },
      });
      expect(refused.status).toBe(403);
      const challenge = refused.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain('error="insufficient_scope"');
      expect(challenge).toContain('scope="mcp:write"');
      expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp"`);
      expect(refused.body?.error?.data).toMatchObject({ code: 'insufficient_scope', scope: 'mcp:write' });
      expect(await mcpUsage(account.accountId)).toBe(usageBefore);
      expect(await countRows('SELECT count(*) AS n FROM notes n JOIN mappings m ON m.vault_id = n.vault_id WHERE m.id = $1', [account.mappingId])).toBe(0);

      // Control: the same call with a write scope is served (and counted).
      const writer = await connect(gateway, account, { scope: 'mcp:read mcp:write' });
      const served = await mcpRequest(gateway, writer.tokens.access_token, 'tools/call', {
        name: 'preview_note_writes',
        arguments: { mappingId: account.mappingId, notes: [{ path: 'Inbox/x.md', content: '# x\n' }] },
      });
      expect(served.status).toBe(200);
      expect(await mcpUsage(account.accountId)).toBe(usageBefore + 1);
    });

    it('a write-only token calling a read tool: 403 naming mcp:read', async () => {
      const account = await newAccount(gateway);
      const { tokens } = await connect(gateway, account, { scope: 'mcp:write' });
      const refused = await listVaults(gateway, tokens.access_token);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toContain('scope="mcp:read"');
      expect(await mcpUsage(account.accountId)).toBe(0);
    });
  });

  describe('account and connection state', () => {
    it("a suspended account's token gets 403 account_inactive and consumes nothing; reactivation restores it", async () => {
      const account = await newAccount(gateway);
      const { clientId, tokens } = await connect(gateway, account);
      expect((await listVaults(gateway, tokens.access_token)).status).toBe(200); // resolved and cached
      const usageBefore = await mcpUsage(account.accountId);
      await gateway.services.accounts.setStatus(account.accountId, 'suspended');
      try {
        const refused = await listVaults(gateway, tokens.access_token);
        expect(refused.status).toBe(403);
        expect(refused.body?.error?.data?.code).toBe('account_inactive');
        expect(await mcpUsage(account.accountId)).toBe(usageBefore);
        expectOAuthError(await refresh(gateway, clientId, tokens.refresh_token!), 400, 'invalid_grant');
        expect(await countRows('SELECT count(*) AS n FROM oauth_tokens WHERE token_hash = $1 AND rotated_at IS NULL', [sha256(tokens.refresh_token!)])).toBe(1);
      } finally {
        await gateway.services.accounts.setStatus(account.accountId, 'active');
      }
      expect((await listVaults(gateway, tokens.access_token)).status).toBe(200);
      expect((await refresh(gateway, clientId, tokens.refresh_token!)).status).toBe(200);
    });

    it("revoking the connection ends its access and refresh tokens at once; the personal token and other clients' connections keep working", async () => {
      const account = await newAccount(gateway);
      const revoked = await connect(gateway, account);
      const kept = await connect(gateway, account);
      expect((await listVaults(gateway, revoked.tokens.access_token)).status).toBe(200); // cached now

      expect(await gateway.services.oauth.revokeConnection(account.accountId, revoked.clientId)).toBe(true);
      expectUnauthorized(await listVaults(gateway, revoked.tokens.access_token));
      expectOAuthError(await refresh(gateway, revoked.clientId, revoked.tokens.refresh_token!), 400, 'invalid_grant');

      expect((await listVaults(gateway, account.personalToken)).status).toBe(200);
      expect((await fetch(`${base}/api/account`, { headers: { authorization: `Bearer ${account.personalToken}` } })).status).toBe(200);
      expect((await listVaults(gateway, kept.tokens.access_token)).status).toBe(200);
      const connections = await gateway.services.oauth.listConnections(account.accountId);
      expect(connections.map((c) => c.clientId)).toEqual([kept.clientId]);
    });
  });

  describe('credentials that are not access tokens, at /api/mcp', () => {
    it('a refresh token, an authorization code or a query-string token is refused with 401', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read offline_access' });
      expectUnauthorized(await listVaults(gateway, code));
      const exchanged = await exchangeCode(gateway, client, code, verifier);
      const tokens = exchanged.body as { access_token: string; refresh_token: string };
      expectUnauthorized(await listVaults(gateway, tokens.refresh_token));
      // RFC 9728 metadata says bearer_methods_supported ["header"]: a token in the query authenticates nothing.
      const inQuery = await fetch(`${resource}?access_token=${tokens.access_token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_vaults', arguments: {} } }),
      });
      expect(inQuery.status).toBe(401);
      // The refresh token was not spent by being shown to the resource.
      expect((await refresh(gateway, client.clientId, tokens.refresh_token)).status).toBe(200);
    });
  });
});
