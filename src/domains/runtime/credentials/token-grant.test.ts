import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { sha256Hex } from '../../../kernel/hashing.ts';
import { openTestDatabase } from '../../../../test/support/database.ts';
import { signAssertion, testKeyPair, unsecuredAssertion, type TestKeyPair } from '../../../../test/support/runtime-assertions.ts';
import { credentialTablesSnapshot, insertRuntimeChain, type RuntimeChain } from '../../../../test/support/runtime-records.ts';
import { SignJWT } from 'jose';
import { JWT_BEARER_ASSERTION_TYPE, createRuntimeCredentialsService, type RuntimeCredentialsService } from './index.ts';

const TOKEN_ENDPOINT = 'https://kgate.test/api/product/v1/oauth/token';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const form = (fields: Record<string, string>) => new URLSearchParams(fields);

describe('the client credentials grant', () => {
  let db: Database;
  let service: RuntimeCredentialsService;
  let chain: RuntimeChain;
  let principalId: string;
  let secret: string;
  let secretId: string;
  let ec: TestKeyPair;
  let rsa: TestKeyPair;
  let other: TestKeyPair;
  let now = new Date('2026-11-21T10:00:00Z');
  const clock: Clock = { now: () => now };
  const seconds = () => Math.floor(now.getTime() / 1000);

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    service = createRuntimeCredentialsService(db, { clock, tokenEndpointUrl: () => TOKEN_ENDPOINT });
    chain = await insertRuntimeChain(db);
    ({ id: principalId } = await service.createPrincipal(chain.adminAccountId, chain.installationId, {
      name: 'sync',
      scopes: ['media.read', 'notes.publish'],
    }));
    ({ secret, credentialId: secretId } = await service.addClientSecret(chain.adminAccountId, principalId));
    [ec, rsa, other] = await Promise.all([testKeyPair('ES256'), testKeyPair('PS256'), testKeyPair('ES256')]);
    await service.addPublicKey(chain.adminAccountId, principalId, { jwk: ec.publicJwk, keyId: 'ec-1' });
    await service.addPublicKey(chain.adminAccountId, principalId, { jwk: rsa.publicJwk, keyId: 'rsa-1' });
  });
  afterAll(() => db.close());

  /** The OAuth error of a refused grant, or 'issued'. */
  const refusalOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'issued',
      (error: { error?: string; status?: number }) => `${error.status} ${error.error}`,
    );
  const assertionForm = (assertion: string, extra: Record<string, string> = {}) =>
    form({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: assertion, ...extra });
  const claims = (extra: Partial<Parameters<typeof signAssertion>[1]> = {}) => ({ clientId: principalId, audience: TOKEN_ENDPOINT, now: seconds(), ...extra });

  it('issues a kgrp_ token with client_secret_basic, stored as its SHA-256 with every scope of the principal', async () => {
    const answer = await service.grantToken(form({ grant_type: 'client_credentials' }), basic(principalId, secret));
    expect(answer).toEqual({ access_token: expect.stringMatching(/^kgrp_[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: 900, scope: 'media.read notes.publish' });
    const rows = await db.query('SELECT * FROM runtime_access_tokens WHERE token_hash = $1', [sha256Hex(answer.access_token)]);
    expect(rows[0]).toMatchObject({ principal_id: principalId, credential_id: secretId, scopes: ['media.read', 'notes.publish'], expires_at: new Date(now.getTime() + 900_000) });
    expect(JSON.stringify(await db.query('SELECT * FROM runtime_access_tokens'))).not.toContain(answer.access_token);
    const credential = (await service.listCredentials(chain.adminAccountId, principalId)).find((c) => c.id === secretId);
    expect(credential!.lastUsedAt).toEqual(now);
  });

  it('issues with client_secret_post, narrowed to a requested subset of scopes', async () => {
    const answer = await service.grantToken(form({ grant_type: 'client_credentials', client_id: principalId, client_secret: secret, scope: 'notes.publish' }));
    expect(answer.scope).toBe('notes.publish');
    expect((await service.authenticate(answer.access_token)).scopes).toEqual(['notes.publish']);
  });

  it('issues with private_key_jwt for EC, RSA and Ed25519 keys, with or without kid and client_id', async () => {
    const byEc = await service.grantToken(assertionForm(await signAssertion(ec, claims({ kid: 'ec-1' })), { client_id: principalId }));
    expect(byEc.access_token).toMatch(/^kgrp_/);
    const byRsa = await service.grantToken(assertionForm(await signAssertion(rsa, claims())));
    expect((await service.authenticate(byRsa.access_token)).credentialId).not.toBe((await service.authenticate(byEc.access_token)).credentialId);
    const ed = await testKeyPair('EdDSA');
    await service.addPublicKey(chain.adminAccountId, principalId, { jwk: ed.publicJwk, keyId: 'ed-1' });
    await service.grantToken(assertionForm(await signAssertion(ed, claims({ kid: 'ed-1' }))));
    // aud may be a list that holds the token endpoint (RFC 7523 section 3).
    await service.grantToken(assertionForm(await signAssertion(ec, claims({ aud: ['https://elsewhere.test', TOKEN_ENDPOINT] }))));
    // Skew: a clock a little ahead of ours (iat, nbf) is accepted.
    await service.grantToken(assertionForm(await signAssertion(ec, claims({ iat: seconds() + 20, nbf: seconds() + 20 }))));
  });

  it('refuses a replayed assertion with invalid_grant, issuing nothing', async () => {
    const assertion = await signAssertion(ec, claims({ jti: 'once' }));
    await service.grantToken(assertionForm(assertion));
    const before = await credentialTablesSnapshot(db);
    expect(await refusalOf(service.grantToken(assertionForm(assertion)))).toBe('400 invalid_grant');
    // Another assertion with the same jti is a replay too.
    expect(await refusalOf(service.grantToken(assertionForm(await signAssertion(rsa, claims({ jti: 'once' })))))).toBe('400 invalid_grant');
    expect(await credentialTablesSnapshot(db)).toBe(before);
    // Presented twice at once, an assertion still issues one token.
    const racing = await signAssertion(ec, claims({ jti: 'racing' }));
    const outcomes = await Promise.all([1, 2, 3].map(() => refusalOf(service.grantToken(assertionForm(racing)))));
    expect(outcomes.sort()).toEqual(['400 invalid_grant', '400 invalid_grant', 'issued']);
  });

  it('refuses bad assertions with invalid_client, recording no jti and issuing nothing', async () => {
    const before = await credentialTablesSnapshot(db);
    const hs256 = await new SignJWT({ iss: principalId, sub: principalId, aud: TOKEN_ENDPOINT, exp: seconds() + 60, jti: 'hs' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(secret));
    const unsigned = /not signed by an active key/;
    const bad: [string, RegExp, Record<string, string>?][] = [
      [await signAssertion(ec, claims({ aud: 'https://kgate.test/oauth/token' })), /audience/],
      [await signAssertion(ec, claims({ iss: chain.installationId })), /issuer/],
      [await signAssertion(ec, claims({ sub: chain.installationId })), /issuer/, { client_id: principalId }],
      // Without client_id the subject names the client: another one, whose keys did not sign it.
      [await signAssertion(ec, claims({ sub: chain.installationId })), unsigned],
      [await signAssertion(ec, claims({ expiresIn: -60 })), /expired/],
      [await signAssertion(ec, claims({ expiresIn: 10 * 60 })), /too far ahead/],
      [await signAssertion(ec, claims({ expiresIn: null })), /exp/],
      [await signAssertion(ec, claims({ jti: null })), /jti/],
      [await signAssertion(ec, claims({ jti: 'j'.repeat(257) })), /jti/],
      [await signAssertion(ec, claims({ iat: seconds() + 600 })), /future/],
      [await signAssertion(ec, claims({ nbf: seconds() + 600 })), /not valid yet/],
      [await signAssertion(ec, claims({ kid: 'rsa-1' })), unsigned],
      [await signAssertion(ec, claims({ kid: 'unknown' })), unsigned],
      [await signAssertion(other, claims()), unsigned],
      [await signAssertion(other, claims({ kid: 'ec-1' })), unsigned],
      [unsecuredAssertion(claims()), /must be signed with/],
      [hs256, /must be signed with/],
      ['not.a.jwt', /not a signed JWT/],
      ['garbage', /not a signed JWT/],
    ];
    for (const [assertion, description, extra] of bad) {
      await expect(service.grantToken(assertionForm(assertion, extra))).rejects.toMatchObject({
        error: 'invalid_client',
        status: 401,
        error_description: expect.stringMatching(description),
      });
    }
    // client_id naming another principal than the assertion's issuer.
    const stranger = await service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'other', scopes: ['media.read'] });
    expect(await refusalOf(service.grantToken(assertionForm(await signAssertion(ec, claims()), { client_id: stranger.id })))).toBe('401 invalid_client');
    expect(await refusalOf(service.grantToken(assertionForm(await signAssertion(ec, claims()), { client_assertion_type: 'urn:other' })))).toBe('401 invalid_client');
    expect(await credentialTablesSnapshot(db)).toBe(before);
  });

  it('refuses wrong secrets and unknown clients with invalid_client, with the Basic challenge when Basic was used', async () => {
    const before = await credentialTablesSnapshot(db);
    const wrongSecret = `kgcs_${'A'.repeat(43)}`;
    const cases: [URLSearchParams, string | undefined][] = [
      [form({ grant_type: 'client_credentials', client_id: principalId, client_secret: wrongSecret }), undefined],
      [form({ grant_type: 'client_credentials', client_id: principalId, client_secret: 'short' }), undefined],
      [form({ grant_type: 'client_credentials', client_id: '00000000-0000-7000-8000-000000000000', client_secret: secret }), undefined],
      [form({ grant_type: 'client_credentials', client_id: 'not-a-uuid', client_secret: secret }), undefined],
      [form({ grant_type: 'client_credentials' }), undefined],
    ];
    for (const [request, header] of cases) expect(await refusalOf(service.grantToken(request, header))).toBe('401 invalid_client');
    for (const header of [basic(principalId, wrongSecret), 'Basic !!!', `Bearer ${secret}`, `Basic ${Buffer.from('no-colon').toString('base64')}`]) {
      const error = await service.grantToken(form({ grant_type: 'client_credentials' }), header).catch((e: unknown) => e);
      expect(error).toMatchObject({ error: 'invalid_client', status: 401, wwwAuthenticate: 'Basic realm="kgate"' });
    }
    expect(await credentialTablesSnapshot(db)).toBe(before);
  });

  it('refuses malformed requests: grant type, repeated parameters, two methods at once, scopes', async () => {
    const before = await credentialTablesSnapshot(db);
    const post = { client_id: principalId, client_secret: secret };
    const cases: [string, URLSearchParams, string?][] = [
      ['400 invalid_request', form(post)],
      ['400 unsupported_grant_type', form({ grant_type: 'password', ...post })],
      ['400 unsupported_grant_type', form({ grant_type: 'authorization_code', ...post })],
      ['400 invalid_request', new URLSearchParams(`grant_type=client_credentials&grant_type=client_credentials&client_id=${principalId}&client_secret=${secret}`)],
      ['400 invalid_request', new URLSearchParams(`grant_type=client_credentials&client_id=${principalId}&client_secret=${secret}&scope=a&scope=b`)],
      ['400 invalid_request', form({ grant_type: 'client_credentials', ...post }), basic(principalId, secret)],
      ['400 invalid_request', form({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: 'x' }), basic(principalId, secret)],
      ['400 invalid_request', form({ grant_type: 'client_credentials', ...post, client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: 'x' })],
      ['400 invalid_request', form({ grant_type: 'client_credentials', client_secret: secret })],
      ['400 invalid_request', form({ grant_type: 'client_credentials', client_assertion: 'x' })],
      ['400 invalid_request', form({ grant_type: 'client_credentials', client_id: chain.installationId }), basic(principalId, secret)],
      ['400 invalid_scope', form({ grant_type: 'client_credentials', ...post, scope: 'media.read mcp:read' })],
      ['400 invalid_scope', form({ grant_type: 'client_credentials', ...post, scope: 'media.write' })],
    ];
    for (const [expected, request, header] of cases) expect(await refusalOf(service.grantToken(request, header))).toBe(expected);
    expect(await credentialTablesSnapshot(db)).toBe(before);
    // An empty scope, and repeated spaces, are read leniently.
    expect((await service.grantToken(form({ grant_type: 'client_credentials', ...post, scope: '' }))).scope).toBe('media.read notes.publish');
    expect((await service.grantToken(form({ grant_type: 'client_credentials', ...post, scope: 'media.read  media.read' }))).scope).toBe('media.read');
  });

  it('refuses a revoked credential with invalid_client and stops the tokens issued from it', async () => {
    const { credentialId, secret: doomed } = await service.addClientSecret(chain.adminAccountId, principalId);
    const token = (await service.grantToken(form({ grant_type: 'client_credentials' }), basic(principalId, doomed))).access_token;
    const kept = (await service.grantToken(form({ grant_type: 'client_credentials' }), basic(principalId, secret))).access_token;
    await service.revokeCredential(chain.adminAccountId, credentialId);
    const before = await credentialTablesSnapshot(db);
    expect(await refusalOf(service.grantToken(form({ grant_type: 'client_credentials' }), basic(principalId, doomed)))).toBe('401 invalid_client');
    expect(await credentialTablesSnapshot(db)).toBe(before);
    await expect(service.authenticate(token)).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(service.authenticate(kept)).resolves.toMatchObject({ principalId });
  });

  it('issues nothing when the chain behind an authenticated principal is not active (unauthorized_client)', async () => {
    const links: [string, Parameters<typeof insertRuntimeChain>[1]][] = [
      ['installation', { installationStatus: 'uninstalled' }],
      ['product', { productStatus: 'retired' }],
      ['organization', { organizationStatus: 'suspended' }],
      ['allowance', { organizationSettings: { productRuntime: { apiOperationsPerMonth: 0 } } }],
      ['settings', { organizationSettings: { productRuntime: { apiOperationsPerMonth: -1 } } }],
      ['account', { customerStatus: 'suspended' }],
    ];
    for (const [link, overrides] of links) {
      const broken = await insertRuntimeChain(db, { adminAccountId: chain.adminAccountId });
      const principal = await service.createPrincipal(chain.adminAccountId, broken.installationId, { name: link, scopes: ['media.read'] });
      const issued = await service.addClientSecret(chain.adminAccountId, principal.id);
      const key = await service.addPublicKey(chain.adminAccountId, principal.id, { jwk: ec.publicJwk });
      await breakChain(db, broken, overrides!);
      const before = await credentialTablesSnapshot(db);
      expect(await refusalOf(service.grantToken(form({ grant_type: 'client_credentials' }), basic(principal.id, issued.secret))), link).toBe('403 unauthorized_client');
      const assertion = await signAssertion(ec, { clientId: principal.id, audience: TOKEN_ENDPOINT, now: seconds(), kid: key.keyId! });
      expect(await refusalOf(service.grantToken(assertionForm(assertion))), link).toBe('403 unauthorized_client');
      expect(await credentialTablesSnapshot(db), link).toBe(before);
    }
    // A revoked principal: its credentials still authenticate it, and the chain refuses.
    const revoked = await service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'revoked', scopes: ['media.read'] });
    const issued = await service.addClientSecret(chain.adminAccountId, revoked.id);
    await service.revokePrincipal(chain.adminAccountId, revoked.id);
    expect(await refusalOf(service.grantToken(form({ grant_type: 'client_credentials' }), basic(revoked.id, issued.secret)))).toBe('403 unauthorized_client');
  });

  it('lets a token expire after fifteen minutes, and purges expired tokens and assertion ids', async () => {
    const started = now;
    const answer = await service.grantToken(assertionForm(await signAssertion(ec, claims({ jti: 'purge-me', expiresIn: 60 }))));
    now = new Date(started.getTime() + 899_000);
    await expect(service.authenticate(answer.access_token)).resolves.toMatchObject({ principalId });
    now = new Date(started.getTime() + 900_000);
    await expect(service.authenticate(answer.access_token)).rejects.toMatchObject({ code: 'unauthenticated' });
    const purged = await service.purgeExpired();
    expect(purged.tokens).toBeGreaterThan(0);
    expect(purged.assertionIds).toBeGreaterThan(0);
    expect(await db.query('SELECT 1 FROM runtime_access_tokens WHERE token_hash = $1', [sha256Hex(answer.access_token)])).toEqual([]);
    expect(await db.query(`SELECT 1 FROM runtime_assertion_ids WHERE jti = 'purge-me'`)).toEqual([]);
    expect(await service.purgeExpired()).toEqual({ tokens: 0, assertionIds: 0 });
  });
});

/** Breaks one link of a chain after its principal and credentials exist. */
async function breakChain(db: Database, chain: RuntimeChain, overrides: Parameters<typeof insertRuntimeChain>[1] & object): Promise<void> {
  if (overrides.installationStatus) await db.query(`UPDATE runtime_installations SET status = $2 WHERE id = $1`, [chain.installationId, overrides.installationStatus]);
  if (overrides.productStatus) await db.query(`UPDATE runtime_products SET status = $2 WHERE id = $1`, [chain.productId, overrides.productStatus]);
  if (overrides.organizationStatus) await db.query(`UPDATE runtime_organizations SET status = $2 WHERE id = $1`, [chain.organizationId, overrides.organizationStatus]);
  if (overrides.organizationSettings) {
    await db.query(`UPDATE runtime_organizations SET settings = $2 WHERE id = $1`, [chain.organizationId, JSON.stringify(overrides.organizationSettings)]);
  }
  if (overrides.customerStatus) await db.query(`UPDATE accounts SET status = $2 WHERE id = $1`, [chain.customerAccountId, overrides.customerStatus]);
}
