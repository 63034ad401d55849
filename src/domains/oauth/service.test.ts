import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase, type DomainDatabase } from '../../../test/support/domain-database.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { OAuthError, type AuthorizationCodeTokenRequest, type AuthorizationRequest, type OAuthService } from './index.ts';

const BASE = 'http://localhost:8787';
const REDIRECT = 'http://127.0.0.1:9999/callback';

// A clock the tests move forward; everything in the domain reads time from it.
const clock = { at: Date.now(), now() { return new Date(this.at); } } satisfies Clock & { at: number };

let env: DomainDatabase;
let oauth: OAuthService;

beforeAll(async () => {
  env = await openDomainDatabase('oauth', clock);
  oauth = env.services.oauth;
});
afterAll(async () => env.db.close());

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function registered(grantTypes = ['authorization_code', 'refresh_token']): Promise<string> {
  const response = await oauth.registerClient({ redirect_uris: [REDIRECT], client_name: 'Test client', grant_types: grantTypes });
  return response.client_id as string;
}

async function authorizedRequest(clientId: string, challenge: string, scope = 'mcp:read mcp:write offline_access'): Promise<AuthorizationRequest> {
  const check = await oauth.checkAuthorizationRequest(
    new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'st', scope }),
  );
  if (check.kind !== 'valid') throw new Error(`expected a valid request, got ${JSON.stringify(check)}`);
  return check.request;
}

async function codeFor(clientId: string, scope?: string) {
  const { verifier, challenge } = pkce();
  const location = new URL(await oauth.approve(env.owner.accountId, await authorizedRequest(clientId, challenge, scope)));
  return { code: location.searchParams.get('code')!, verifier, location };
}

const exchangeCode = (clientId: string, code: string, verifier: string, extra: Partial<AuthorizationCodeTokenRequest> = {}) =>
  oauth.exchange({ grantType: 'authorization_code', clientId, code, codeVerifier: verifier, redirectUri: REDIRECT, ...extra });

const refresh = (clientId: string, token: string) => oauth.exchange({ grantType: 'refresh_token', clientId, refreshToken: token });

async function oauthErrorOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OAuthError) return error.error;
    if (error instanceof KgateError) return error.code;
    throw error;
  }
  return 'no error';
}

describe('the OAuth service', () => {
  it('issues a code with state and iss, exchanges it once for tokens bound to the MCP resource', async () => {
    const clientId = await registered();
    const { code, verifier, location } = await codeFor(clientId);
    expect(location.searchParams.get('state')).toBe('st');
    expect(location.searchParams.get('iss')).toBe(BASE);
    const tokens = await exchangeCode(clientId, code, verifier);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp:read mcp:write offline_access' });
    expect(tokens.refresh_token).toMatch(/^kgrt_/);
    const principal = await oauth.authenticateAccessToken(tokens.access_token);
    expect(principal).toMatchObject({ accountId: env.owner.accountId, actor: { credentialKind: 'oauth', client: 'Test client' } });
    expect(principal.oauth?.scopes).toEqual(['mcp:read', 'mcp:write']);
    const stored = await env.db.query<{ token_hash: string }>('SELECT token_hash FROM oauth_tokens');
    expect(stored.map((row) => row.token_hash)).not.toContain(tokens.access_token);
  });

  it('leaves the code usable after a failed check, and revokes everything issued from it when it is replayed', async () => {
    const clientId = await registered();
    const { code, verifier } = await codeFor(clientId);
    expect(await oauthErrorOf(exchangeCode(clientId, code, pkce().verifier))).toBe('invalid_grant');
    expect(await oauthErrorOf(exchangeCode(clientId, code, verifier, { redirectUri: `${REDIRECT}/x` }))).toBe('invalid_grant');
    expect(await oauthErrorOf(exchangeCode(clientId, code, verifier, { resource: 'https://evil.example/api/mcp' }))).toBe('invalid_target');
    expect(await oauthErrorOf(exchangeCode(await registered(), code, verifier))).toBe('invalid_grant');
    const tokens = await exchangeCode(clientId, code, verifier);
    await oauth.authenticateAccessToken(tokens.access_token);
    expect(await oauthErrorOf(exchangeCode(clientId, code, verifier))).toBe('invalid_grant');
    expect(await oauthErrorOf(oauth.authenticateAccessToken(tokens.access_token))).toBe('unauthenticated');
    expect(await oauthErrorOf(refresh(clientId, tokens.refresh_token!))).toBe('invalid_grant');
  });

  it('expires codes after five minutes', async () => {
    const clientId = await registered();
    const { code, verifier } = await codeFor(clientId);
    clock.at += 5 * 60_000 + 1;
    expect(await oauthErrorOf(exchangeCode(clientId, code, verifier))).toBe('invalid_grant');
  });

  it('rotates refresh tokens, and a replayed one revokes the whole family', async () => {
    const clientId = await registered();
    const { code, verifier } = await codeFor(clientId);
    const first = await exchangeCode(clientId, code, verifier);
    const second = await refresh(clientId, first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    await oauth.authenticateAccessToken(second.access_token);
    expect(await oauthErrorOf(refresh(clientId, first.refresh_token!))).toBe('invalid_grant');
    expect(await oauthErrorOf(oauth.authenticateAccessToken(second.access_token))).toBe('unauthenticated');
    expect(await oauthErrorOf(refresh(clientId, second.refresh_token!))).toBe('invalid_grant');
  });

  it('lets only one of two concurrent refreshes rotate the token', async () => {
    const clientId = await registered();
    const { code, verifier } = await codeFor(clientId);
    const first = await exchangeCode(clientId, code, verifier);
    const results = await Promise.allSettled([refresh(clientId, first.refresh_token!), refresh(clientId, first.refresh_token!)]);
    // Exactly one rotates. The other presented a token that was rotated by then: per spec 3.2 that is a replay,
    // so the family (including the winner's new tokens) is revoked. Never two live successors.
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const winner = results.find((result) => result.status === 'fulfilled')!.value;
    expect(await oauthErrorOf(oauth.authenticateAccessToken(winner.access_token))).toBe('unauthenticated');
    const grants = await env.db.query<{ revoked_reason: string }>('SELECT revoked_reason FROM oauth_grants WHERE client_id = $1', [clientId]);
    expect(grants).toEqual([{ revoked_reason: 'refresh_replay' }]);
  });

  it('refuses scope widening at refresh and issues no refresh token without offline_access', async () => {
    const clientId = await registered();
    const narrow = await codeFor(clientId, 'mcp:read offline_access');
    const tokens = await exchangeCode(clientId, narrow.code, narrow.verifier);
    expect(tokens.scope).toBe('mcp:read offline_access');
    expect(await oauthErrorOf(oauth.exchange({ grantType: 'refresh_token', clientId, refreshToken: tokens.refresh_token!, scope: 'mcp:write' }))).toBe('invalid_scope');
    const noOffline = await codeFor(clientId, 'mcp:read');
    expect((await exchangeCode(clientId, noOffline.code, noOffline.verifier)).refresh_token).toBeUndefined();
  });

  it('lists connected applications per client and revokes them at once', async () => {
    const clientId = await registered();
    const a = await codeFor(clientId);
    const b = await codeFor(clientId);
    const tokensA = await exchangeCode(clientId, a.code, a.verifier);
    await exchangeCode(clientId, b.code, b.verifier);
    const listed = (await oauth.listConnections(env.owner.accountId)).find((app) => app.clientId === clientId);
    expect(listed).toMatchObject({ clientName: 'Test client', activeGrants: 2, redirectHosts: ['127.0.0.1:9999'], scopes: ['mcp:read', 'mcp:write', 'offline_access'] });
    expect(await oauth.revokeConnection(env.owner.accountId, clientId)).toBe(true);
    expect(await oauthErrorOf(oauth.authenticateAccessToken(tokensA.access_token))).toBe('unauthenticated');
    expect(await oauthErrorOf(refresh(clientId, tokensA.refresh_token!))).toBe('invalid_grant');
    expect((await oauth.listConnections(env.owner.accountId)).some((app) => app.clientId === clientId)).toBe(false);
    expect(await oauth.revokeConnection(env.owner.accountId, clientId)).toBe(false);
  });

  it('drops offline_access for a client that did not register the refresh_token grant', async () => {
    const clientId = await registered(['authorization_code']);
    const { challenge } = pkce();
    expect((await authorizedRequest(clientId, challenge)).scopes).toEqual(['mcp:read', 'mcp:write']);
  });

  it('purges expired codes and tokens and never-used approvals, but keeps live grants', async () => {
    const clientId = await registered();
    const unused = await codeFor(clientId);
    const used = await codeFor(clientId);
    const tokens = await exchangeCode(clientId, used.code, used.verifier);
    clock.at += 2 * 24 * 60 * 60_000;
    expect(await oauth.purgeExpired()).toBeGreaterThan(0);
    const rows = await env.db.query<{ activated: boolean }>('SELECT activated_at IS NOT NULL AS activated FROM oauth_grants WHERE client_id = $1', [clientId]);
    expect(rows).toEqual([{ activated: true }]);
    expect(await oauthErrorOf(exchangeCode(clientId, unused.code, unused.verifier))).toBe('invalid_grant');
    // The refresh token lives 30 days: still usable after the purge.
    expect((await refresh(clientId, tokens.refresh_token!)).access_token).toMatch(/^kgat_/);
    // A registration that never led to a grant goes after 30 days; one with a grant stays.
    const idle = await registered();
    clock.at += 31 * 24 * 60 * 60_000;
    await oauth.purgeExpired();
    const clients = await env.db.query<{ client_id: string }>('SELECT client_id FROM oauth_clients WHERE client_id = ANY($1)', [[idle, clientId]]);
    expect(clients.map((row) => row.client_id)).toEqual([clientId]);
  });

  it('issues no tokens for a code while the account is suspended, and leaves the code usable', async () => {
    const clientId = await registered();
    const { code, verifier } = await codeFor(clientId);
    await env.services.accounts.setStatus(env.owner.accountId, 'suspended');
    try {
      expect(await oauthErrorOf(exchangeCode(clientId, code, verifier))).toBe('invalid_grant');
    } finally {
      await env.services.accounts.setStatus(env.owner.accountId, 'active');
    }
    expect((await exchangeCode(clientId, code, verifier)).access_token).toMatch(/^kgat_/);
  });
});
