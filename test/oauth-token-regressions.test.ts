/**
 * Failures seen in other OAuth authorization servers, replayed against kgate's token endpoint: code_verifier and
 * redirect_uri checks, code replay and concurrent exchange, resource indicators and scope on a refresh, refresh
 * token replay, Cache-Control on token responses, and the lifetimes of codes and tokens. Every test asserts the
 * error and that nothing changed: codes stay usable after a failed check, tokens stay valid where they should.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from './support/gateway.ts';
import { listVaults } from './support/mcp-bearer-requests.ts';
import {
  authorizationUrl,
  authorizeCode,
  connect,
  exchangeCode,
  newAccount,
  newClient,
  pkcePair,
  refresh,
  registerClient,
  signIn,
  tokenRequest,
} from './support/oauth-flow.ts';
import { authorizeRequest, expectOAuthError, expectUnauthorized, sha256, useRegressionGateway } from './support/oauth-regression-setup.ts';

const FIVE_MINUTES = 5 * 60_000;

describe('OAuth regressions', () => {
  const setup = useRegressionGateway();
  const { clock, codeConsumed, countRows } = setup;
  let gateway: TestGateway;
  let base: string;
  let resource: string;
  beforeAll(() => {
    ({ gateway, base, resource } = setup);
  });

  describe('code_verifier at the token endpoint', () => {
    it.each([
      ['without code_verifier', (request: Record<string, string>) => ({ ...request, code_verifier: '' })],
      ['with a wrong code_verifier', (request: Record<string, string>) => ({ ...request, code_verifier: pkcePair().verifier })],
      ['with the challenge as the verifier', (request: Record<string, string>) => ({
        ...request,
        code_verifier: createHash('sha256').update(request.code_verifier!).digest('base64url'),
      })],
      ['with a verifier of another PKCE method (plain: verifier = challenge)', (request: Record<string, string>) => ({ ...request, code_verifier: `${request.code_verifier}x` })],
      ['with another redirect_uri', (request: Record<string, string>) => ({ ...request, redirect_uri: `${request.redirect_uri}x` })],
      ['without redirect_uri', ({ redirect_uri: _dropped, ...request }: Record<string, string>) => request],
    ])('%s: invalid_grant, and the code still works with the right verifier afterwards', async (_label, tamper) => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read' });
      const request = {
        grant_type: 'authorization_code',
        client_id: client.clientId,
        code,
        redirect_uri: client.redirectUri,
        code_verifier: verifier,
      };
      const tampered = tamper(request);
      expect(tampered).not.toEqual(request);
      const refused = await tokenRequest(gateway, Object.fromEntries(Object.entries(tampered).filter(([, value]) => value !== '')));
      expectOAuthError(refused, 400, 'invalid_grant');
      expect(await codeConsumed(code)).toBe(false);
      expect(await countRows('SELECT count(*) AS n FROM oauth_tokens WHERE account_id = $1', [account.accountId])).toBe(0);

      const accepted = await exchangeCode(gateway, client, code, verifier);
      expect(accepted.status).toBe(200);
      expect((await listVaults(gateway, accepted.body!.access_token as string)).status).toBe(200);
    });

    it('another client presenting the code gets invalid_grant; the code stays usable by its own client', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const thief = await newClient(gateway, { redirect_uris: [client.redirectUri] });
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read' });
      expectOAuthError(await exchangeCode(gateway, thief, code, verifier), 400, 'invalid_grant');
      expect(await codeConsumed(code)).toBe(false);
      expect((await exchangeCode(gateway, client, code, verifier)).status).toBe(200);
    });
  });

  describe('code replay', () => {
    it('a second exchange is invalid_grant and revokes what the first one issued', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read offline_access' });
      const first = await exchangeCode(gateway, client, code, verifier);
      expect(first.status).toBe(200);
      const accessToken = first.body!.access_token as string;
      expect((await listVaults(gateway, accessToken)).status).toBe(200);

      expectOAuthError(await exchangeCode(gateway, client, code, verifier), 400, 'invalid_grant');
      expectUnauthorized(await listVaults(gateway, accessToken));
      expectOAuthError(await refresh(gateway, client.clientId, first.body!.refresh_token as string), 400, 'invalid_grant');
      const grants = await gateway.db.query<{ revoked_reason: string | null }>('SELECT revoked_reason FROM oauth_grants WHERE account_id = $1', [
        account.accountId,
      ]);
      expect(grants).toEqual([{ revoked_reason: 'code_replay' }]);
    });
  });

  describe('concurrent code exchange', () => {
    it('two simultaneous exchanges of one code: at most one token response, and the code is then spent', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read offline_access' });
      const outcomes = await Promise.all([exchangeCode(gateway, client, code, verifier), exchangeCode(gateway, client, code, verifier)]);
      const winners = outcomes.filter((outcome) => outcome.status === 200);
      expect(winners.length).toBeLessThanOrEqual(1);
      for (const loser of outcomes.filter((outcome) => outcome.status !== 200)) expectOAuthError(loser, 400, 'invalid_grant');
      expect(await countRows("SELECT count(*) AS n FROM oauth_tokens WHERE account_id = $1 AND kind = 'access'", [account.accountId])).toBe(winners.length);
      expect(await codeConsumed(code)).toBe(true);
      // The second use is a replay (OAuth 2.1 s4.1.3): whatever the first issued is withdrawn.
      for (const winner of winners) expectUnauthorized(await listVaults(gateway, winner.body!.access_token as string));
      expectOAuthError(await exchangeCode(gateway, client, code, verifier), 400, 'invalid_grant');
    });
  });

  describe('resource indicators (RFC 8707)', () => {
    it.each([
      ['the Developer REST API', () => `${base}/api/dev`],
      ['the server root', () => `${base}/`],
      ['the resource with a trailing slash', () => `${resource}/`],
      ['another server', () => 'https://evil.example/api/mcp'],
      ['the resource with a query', () => `${resource}?x=1`],
    ])('%s at /oauth/authorize: an invalid_target redirect and no code', async (_label, target) => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const browser = await signIn(gateway, account);
      const response = await authorizeRequest(authorizationUrl(gateway, client, { resource: target(), state: 's', code_challenge: pkcePair().challenge }), browser);
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_target');
      expect(location.searchParams.get('state')).toBe('s');
      expect(location.searchParams.has('code')).toBe(false);
      expect(await countRows('SELECT count(*) AS n FROM oauth_codes WHERE client_id = $1', [client.clientId])).toBe(0);
    });

    it('two resource parameters at /oauth/authorize are refused', async () => {
      const client = await newClient(gateway);
      const url = authorizationUrl(gateway, client, { code_challenge: pkcePair().challenge });
      url.searchParams.append('resource', `${base}/api/dev`);
      const response = await authorizeRequest(url);
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.has('code')).toBe(false);
    });

    it('another resource at the token endpoint: invalid_target, and the code remains usable', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read offline_access' });
      for (const other of [`${base}/api/dev`, 'https://evil.example/api/mcp', `${resource}/`]) {
        expectOAuthError(await exchangeCode(gateway, client, code, verifier, { resource: other }), 400, 'invalid_target');
      }
      expect(await codeConsumed(code)).toBe(false);
      const accepted = await exchangeCode(gateway, client, code, verifier);
      expect(accepted.status).toBe(200);

      // The same at a refresh: refused, and the refresh token is not spent.
      const refreshToken = accepted.body!.refresh_token as string;
      expectOAuthError(await refresh(gateway, client.clientId, refreshToken, { resource: `${base}/api/dev` }), 400, 'invalid_target');
      expect(await countRows('SELECT count(*) AS n FROM oauth_tokens WHERE token_hash = $1 AND rotated_at IS NULL', [sha256(refreshToken)])).toBe(1);
      expect((await refresh(gateway, client.clientId, refreshToken, { resource })).status).toBe(200);
    });

    it('a refresh cannot widen the scope; the refresh token is not spent', async () => {
      const account = await newAccount(gateway);
      const { clientId, tokens } = await connect(gateway, account, { scope: 'mcp:read offline_access' });
      expect(tokens.scope).toBe('mcp:read offline_access');
      expectOAuthError(await refresh(gateway, clientId, tokens.refresh_token!, { scope: 'mcp:read mcp:write' }), 400, 'invalid_scope');
      const narrowed = await refresh(gateway, clientId, tokens.refresh_token!, { scope: 'mcp:read' });
      expect(narrowed.status).toBe(200);
      expect(narrowed.body?.scope).toBe('mcp:read offline_access');
      const [row] = await gateway.db.query<{ scopes: string[] }>('SELECT scopes FROM oauth_tokens WHERE token_hash = $1', [sha256(narrowed.body!.access_token as string)]);
      expect(row?.scopes).toEqual(['mcp:read']);
    });
  });

  describe('refresh token replay', () => {
    it('presenting a rotated refresh token revokes the family: new and old tokens all fail', async () => {
      const account = await newAccount(gateway);
      const { clientId, tokens } = await connect(gateway, account);
      const rotated = await refresh(gateway, clientId, tokens.refresh_token!);
      expect(rotated.status).toBe(200);
      const next = rotated.body as { access_token: string; refresh_token: string };

      expectOAuthError(await refresh(gateway, clientId, tokens.refresh_token!), 400, 'invalid_grant');
      expectOAuthError(await refresh(gateway, clientId, next.refresh_token), 400, 'invalid_grant');
      expectUnauthorized(await listVaults(gateway, next.access_token));
      expectUnauthorized(await listVaults(gateway, tokens.access_token));
      const grants = await gateway.db.query<{ revoked_reason: string | null }>('SELECT revoked_reason FROM oauth_grants WHERE account_id = $1', [
        account.accountId,
      ]);
      expect(grants).toEqual([{ revoked_reason: 'refresh_replay' }]);
    });

    it('two concurrent refreshes with one token: at most one succeeds, never two valid new refresh tokens', async () => {
      const account = await newAccount(gateway);
      const { clientId, tokens } = await connect(gateway, account);
      const outcomes = await Promise.all([refresh(gateway, clientId, tokens.refresh_token!), refresh(gateway, clientId, tokens.refresh_token!)]);
      const winners = outcomes.filter((outcome) => outcome.status === 200);
      const losers = outcomes.filter((outcome) => outcome.status !== 200);
      expect(winners.length).toBeLessThanOrEqual(1);
      for (const loser of losers) expectOAuthError(loser, 400, 'invalid_grant');
      // Only one successor was ever stored for the presented token.
      expect(await countRows("SELECT count(*) AS n FROM oauth_tokens WHERE account_id = $1 AND kind = 'refresh'", [account.accountId])).toBe(
        1 + winners.length,
      );
      // Final state (spec 3.2): the loser presented a token that had just been rotated, which is a replay, so the
      // grant and its whole family are revoked. The winner's new tokens therefore fail too; the client must ask
      // the person again. That is the price of never letting a leaked refresh token race its owner.
      expect(
        await gateway.db.query('SELECT revoked_reason FROM oauth_grants WHERE account_id = $1', [account.accountId]),
      ).toEqual([{ revoked_reason: 'refresh_replay' }]);
      for (const winner of winners) {
        expectOAuthError(await refresh(gateway, clientId, winner.body!.refresh_token as string), 400, 'invalid_grant');
        expectUnauthorized(await listVaults(gateway, winner.body!.access_token as string));
      }
      expectUnauthorized(await listVaults(gateway, tokens.access_token));
    });
  });

  describe('Cache-Control: no-store on token responses', () => {
    it('on a code exchange, a refresh, and their errors', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read offline_access' });
      const failed = await exchangeCode(gateway, client, code, 'w'.repeat(43));
      expectOAuthError(failed, 400, 'invalid_grant');
      expect(failed.headers.get('pragma')).toBe('no-cache');
      const exchanged = await exchangeCode(gateway, client, code, verifier);
      expect(exchanged.status).toBe(200);
      expect(exchanged.headers.get('cache-control')).toBe('no-store');
      expect(exchanged.headers.get('pragma')).toBe('no-cache');
      const refreshed = await refresh(gateway, client.clientId, exchanged.body!.refresh_token as string);
      expect(refreshed.status).toBe(200);
      expect(refreshed.headers.get('cache-control')).toBe('no-store');
      const registered = await registerClient(gateway);
      expect(registered.status).toBe(201);
      expect(registered.headers.get('cache-control')).toBe('no-store');
    });
  });

  describe('expiry', () => {
    it('an authorization code expires after five minutes: invalid_grant', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const early = await authorizeCode(gateway, account, client, { scope: 'mcp:read' });
      const late = await authorizeCode(gateway, account, client, { scope: 'mcp:read' });
      try {
        clock.offsetMs = FIVE_MINUTES - 5_000;
        expect((await exchangeCode(gateway, client, early.code, early.verifier)).status).toBe(200);
        clock.offsetMs = FIVE_MINUTES + 1_000;
        expectOAuthError(await exchangeCode(gateway, client, late.code, late.verifier), 400, 'invalid_grant');
        expect(await codeConsumed(late.code)).toBe(false);
      } finally {
        clock.offsetMs = 0;
      }
    });

    it('an access token ends after an hour; a refresh token after 30 days', async () => {
      const account = await newAccount(gateway);
      const { clientId, tokens } = await connect(gateway, account);
      expect((await listVaults(gateway, tokens.access_token)).status).toBe(200);
      try {
        clock.offsetMs = 60 * 60_000 + 1_000;
        expectUnauthorized(await listVaults(gateway, tokens.access_token));
        const renewed = await refresh(gateway, clientId, tokens.refresh_token!);
        expect(renewed.status).toBe(200);
        clock.offsetMs += 30 * 24 * 60 * 60_000 + 1_000;
        expectOAuthError(await refresh(gateway, clientId, renewed.body!.refresh_token as string), 400, 'invalid_grant');
      } finally {
        clock.offsetMs = 0;
      }
    });
  });
});
