/**
 * The product-only MCP endpoint as an OAuth protected resource (spec 4.4, docs/oauth.md): its own metadata, tokens
 * issued for it that work only there, tokens of the main resource that work there too, and resources that are
 * neither, refused with nothing issued.
 */
import { describe, expect, it } from 'vitest';
import { mcpRequest } from './support/mcp-bearer-requests.ts';
import { authorizeCode, authorizationUrl, baseOf, connect, exchangeCode, newAccount, newClient, pkcePair, refresh } from './support/oauth-flow.ts';
import { expectOAuthError, expectUnauthorized, useRegressionGateway } from './support/oauth-regression-setup.ts';

describe('the product-only endpoint as an OAuth resource', () => {
  const setup = useRegressionGateway();
  const intelligenceUrl = () => new URL(`${baseOf(setup.gateway)}/api/intelligence/mcp`);
  const mainUrl = () => new URL(`${baseOf(setup.gateway)}/api/mcp`);
  const toolNames = (reply: Awaited<ReturnType<typeof mcpRequest>>) => (reply.body?.result?.tools as { name: string }[]).map((tool) => tool.name);

  it('publishes its own protected-resource metadata', async () => {
    const response = await fetch(`${setup.gateway.url}/.well-known/oauth-protected-resource/api/intelligence/mcp`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: `${setup.base}/api/intelligence/mcp`, authorization_servers: [setup.base], scopes_supported: ['mcp:read', 'mcp:write'] });
    const unauthenticated = await fetch(intelligenceUrl(), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toContain(`resource_metadata="${setup.base}/.well-known/oauth-protected-resource/api/intelligence/mcp"`);
  });

  it('issues tokens for it that work there and are refused at /api/mcp, refreshes included', async () => {
    const account = await newAccount(setup.gateway);
    const client = await newClient(setup.gateway);
    const resource = `${setup.base}/api/intelligence/mcp`;
    const { code, verifier } = await authorizeCode(setup.gateway, account, client, { scope: 'mcp:read offline_access', resource });
    const exchanged = await exchangeCode(setup.gateway, client, code, verifier, { resource });
    expect(exchanged.status).toBe(200);
    const token = exchanged.body!.access_token as string;
    const listed = await mcpRequest(intelligenceUrl(), token, 'tools/list');
    expect(listed.status).toBe(200);
    expect(toolNames(listed)).toHaveLength(6);
    expectUnauthorized(await mcpRequest(mainUrl(), token, 'tools/list'));

    // A refresh keeps the audience; asking to widen it to the main resource is invalid_target.
    expectOAuthError(await refresh(setup.gateway, client.clientId, exchanged.body!.refresh_token as string, { resource: `${setup.base}/api/mcp` }), 400, 'invalid_target');
    const refreshed = await refresh(setup.gateway, client.clientId, exchanged.body!.refresh_token as string);
    expect(refreshed.status).toBe(200);
    expectUnauthorized(await mcpRequest(mainUrl(), refreshed.body!.access_token as string, 'tools/list'));
    expect((await mcpRequest(intelligenceUrl(), refreshed.body!.access_token as string, 'tools/list')).status).toBe(200);
  });

  it('accepts tokens of the main resource, which already reach everything it serves', async () => {
    const account = await newAccount(setup.gateway);
    const connected = await connect(setup.gateway, account, { scope: 'mcp:read' });
    const listed = await mcpRequest(intelligenceUrl(), connected.tokens.access_token, 'tools/list');
    expect(listed.status).toBe(200);
    expect(toolNames(listed)).toEqual([
      'search_published_intelligence',
      'get_published_intelligence_state',
      'get_published_intelligence_changes',
      'get_published_intelligence_timeline',
      'list_published_intelligence_sources',
      'get_published_intelligence_insights',
    ]);
  });

  it('refuses a resource that is neither, and a code exchanged for another resource than granted, issuing nothing', async () => {
    const client = await newClient(setup.gateway);
    const before = await setup.countRows('SELECT count(*) AS n FROM oauth_tokens', []);
    const url = authorizationUrl(setup.gateway, client, { code_challenge: pkcePair().challenge, resource: `${setup.base}/api/intelligence` });
    const page = await fetch(url, { redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(new URL(page.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');

    const account = await newAccount(setup.gateway);
    const resource = `${setup.base}/api/intelligence/mcp`;
    const { code, verifier } = await authorizeCode(setup.gateway, account, client, { scope: 'mcp:read', resource });
    expectOAuthError(await exchangeCode(setup.gateway, client, code, verifier), 400, 'invalid_target');
    expect(await setup.countRows('SELECT count(*) AS n FROM oauth_tokens', [])).toBe(before);
  });
});
