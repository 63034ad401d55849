/**
 * Malformed requests at kgate's OAuth endpoints (registration, token, revocation): wrong content types, duplicated
 * or missing parameters, unsupported grants, client secrets, oversized bodies. Each gets its RFC 6749 / RFC 7591
 * error JSON, and nothing changes: no client is stored, the code still works, the token keeps working.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from './support/gateway.ts';
import { listVaults } from './support/mcp-bearer-requests.ts';
import {
  authorizeCode,
  connect,
  exchangeCode,
  newAccount,
  newClient,
  postForm,
  refresh,
  tokenRequest,
} from './support/oauth-flow.ts';
import { expectOAuthError, useRegressionGateway } from './support/oauth-regression-setup.ts';

describe('OAuth regressions', () => {
  const setup = useRegressionGateway();
  const { codeConsumed, countRows } = setup;
  let gateway: TestGateway;
  beforeAll(() => {
    ({ gateway } = setup);
  });

  describe('malformed registration requests', () => {
    it.each([
      ['a body that is not JSON', 'redirect_uris=https://app.example.com/cb', 400, 'invalid_client_metadata'],
      ['a JSON array', '[]', 400, 'invalid_client_metadata'],
      ['no redirect_uris', JSON.stringify({ client_name: 'x' }), 400, 'invalid_redirect_uri'],
      ['eleven redirect URIs', JSON.stringify({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`) }), 400, 'invalid_redirect_uri'],
      ['an implicit response type', JSON.stringify({ redirect_uris: ['https://app.example.com/cb'], response_types: ['token'] }), 400, 'invalid_client_metadata'],
      ['a client_credentials grant', JSON.stringify({ redirect_uris: ['https://app.example.com/cb'], grant_types: ['client_credentials'] }), 400, 'invalid_client_metadata'],
      ['a body over 16 KiB', JSON.stringify({ redirect_uris: ['https://app.example.com/cb'], client_name: 'x'.repeat(20_000) }), 413, 'invalid_request'],
    ])('%s: RFC 7591 error JSON (%i %s) and no client stored', async (_label, body, status, error) => {
      const before = await countRows('SELECT count(*) AS n FROM oauth_clients', []);
      const response = await postForm(gateway, '/oauth/register', body, { 'content-type': 'application/json' });
      expectOAuthError(response, status, error);
      expect(await countRows('SELECT count(*) AS n FROM oauth_clients', [])).toBe(before);
    });
  });

  describe('malformed token requests', () => {
    /** A fresh code and the well-formed request that redeems it. */
    async function freshCode() {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read' });
      const form = { grant_type: 'authorization_code', client_id: client.clientId, code, redirect_uri: client.redirectUri, code_verifier: verifier };
      return { client, code, verifier, form };
    }

    it.each([
      ['a JSON body', 400, 'invalid_request', (form: Record<string, string>) => ({ body: JSON.stringify(form), headers: { 'content-type': 'application/json' } })],
      // fetch labels a string body without a content type text/plain.
      ['a text/plain body', 400, 'invalid_request', (form: Record<string, string>) => ({ body: new URLSearchParams(form).toString(), headers: {} })],
      ['a multipart content type', 400, 'invalid_request', (form: Record<string, string>) => ({ body: new URLSearchParams(form).toString(), headers: { 'content-type': 'multipart/form-data; boundary=x' } })],
      ['a duplicated code', 400, 'invalid_request', (form: Record<string, string>) => ({ body: `${new URLSearchParams(form).toString()}&code=${form.code}` })],
      ['a duplicated grant_type', 400, 'invalid_request', (form: Record<string, string>) => ({ body: `${new URLSearchParams(form).toString()}&grant_type=refresh_token` })],
      ['a duplicated code_verifier', 400, 'invalid_request', (form: Record<string, string>) => ({ body: `${new URLSearchParams(form).toString()}&code_verifier=${form.code_verifier}` })],
      ['no grant_type', 400, 'invalid_request', ({ grant_type: _dropped, ...form }: Record<string, string>) => ({ body: new URLSearchParams(form).toString() })],
      ['grant_type=password', 400, 'unsupported_grant_type', (form: Record<string, string>) => ({ body: new URLSearchParams({ ...form, grant_type: 'password' }).toString() })],
      ['grant_type=client_credentials', 400, 'unsupported_grant_type', (form: Record<string, string>) => ({ body: new URLSearchParams({ ...form, grant_type: 'client_credentials' }).toString() })],
      ['an implicit-style grant_type=token', 400, 'unsupported_grant_type', (form: Record<string, string>) => ({ body: new URLSearchParams({ ...form, grant_type: 'token' }).toString() })],
      ['no client_id', 400, 'invalid_request', ({ client_id: _dropped, ...form }: Record<string, string>) => ({ body: new URLSearchParams(form).toString() })],
      ['a client_secret', 401, 'invalid_client', (form: Record<string, string>) => ({ body: new URLSearchParams({ ...form, client_secret: 'x' }).toString() })],
      ['a body over 16 KiB', 413, 'invalid_request', (form: Record<string, string>) => ({ body: new URLSearchParams({ ...form, padding: 'x'.repeat(20_000) }).toString() })],
    ])('%s: RFC 6749 error JSON (%i %s), and the code still works', async (_label, status, error, build) => {
      const { client, code, verifier, form } = await freshCode();
      const { body, headers = { 'content-type': 'application/x-www-form-urlencoded' } } = build(form) as { body: string; headers?: Record<string, string> };
      const response = await tokenRequest(gateway, body, headers);
      expectOAuthError(response, status, error);
      if (status === 401) expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(response.body?.access_token).toBeUndefined();
      expect(await codeConsumed(code)).toBe(false);
      expect((await exchangeCode(gateway, client, code, verifier)).status).toBe(200);
    });

    it('a garbage refresh token and a code where a refresh token belongs: invalid_grant', async () => {
      const { client, code, verifier } = await freshCode();
      expectOAuthError(await refresh(gateway, client.clientId, 'kgrt_garbage'), 400, 'invalid_grant');
      expectOAuthError(await refresh(gateway, client.clientId, code), 400, 'invalid_grant');
      expect(await codeConsumed(code)).toBe(false);
      expect((await exchangeCode(gateway, client, code, verifier)).status).toBe(200);
    });

    it('malformed revocation requests: RFC 6749 error JSON, and the token keeps working', async () => {
      const account = await newAccount(gateway);
      const { clientId, tokens } = await connect(gateway, account);
      const cases: [string, Record<string, string>, number, string][] = [
        ['wrong content type', { 'content-type': 'application/json' }, 400, 'invalid_request'],
        ['oversized', {}, 413, 'invalid_request'],
      ];
      for (const [label, headers, status, error] of cases) {
        const body =
          label === 'oversized'
            ? new URLSearchParams({ token: tokens.refresh_token!, client_id: clientId, padding: 'x'.repeat(20_000) }).toString()
            : JSON.stringify({ token: tokens.refresh_token, client_id: clientId });
        expectOAuthError(await postForm(gateway, '/oauth/revoke', body, { 'content-type': 'application/x-www-form-urlencoded', ...headers }), status, error);
      }
      expectOAuthError(await postForm(gateway, '/oauth/revoke', { token: tokens.refresh_token!, client_id: clientId, token_type_hint: 'id_token' }), 400, 'unsupported_token_type');
      expectOAuthError(await postForm(gateway, '/oauth/revoke', { token: tokens.refresh_token! }), 400, 'invalid_request');
      expectOAuthError(await postForm(gateway, '/oauth/revoke', `token=${tokens.refresh_token!}&token=x&client_id=${clientId}`), 400, 'invalid_request');
      expect((await listVaults(gateway, tokens.access_token)).status).toBe(200);
      expect((await refresh(gateway, clientId, tokens.refresh_token!)).status).toBe(200);
    });
  });
});
