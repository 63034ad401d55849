import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../db/port.ts';
import { sha256Hex } from '../../../kernel/hashing.ts';
import { openTestDatabase } from '../../../../test/support/database.ts';
import { testKeyPair } from '../../../../test/support/runtime-assertions.ts';
import { insertRuntimeAccount, insertRuntimeChain, type RuntimeChain } from '../../../../test/support/runtime-records.ts';
import { createRuntimeCredentialsService, type RuntimeCredentialsService } from './index.ts';

const TOKEN_ENDPOINT = 'https://kgate.test/api/product/v1/oauth/token';

describe('service principals and their credentials, administered by the organization', () => {
  let db: Database;
  let service: RuntimeCredentialsService;
  let chain: RuntimeChain;
  let stranger: string;

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    service = createRuntimeCredentialsService(db, { tokenEndpointUrl: () => TOKEN_ENDPOINT });
    chain = await insertRuntimeChain(db);
    // Administers another organization, not this one.
    stranger = (await insertRuntimeChain(db)).adminAccountId;
  });
  afterAll(() => db.close());

  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: { code?: string }) => error.code,
    );
  const count = async (table: string) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;

  it('creates a principal with its scopes in the spec order, and lists it to the admin only', async () => {
    const principal = await service.createPrincipal(chain.adminAccountId, chain.installationId, {
      name: '  Classroom sync  ',
      scopes: ['notes.publish', 'media.read'],
    });
    expect(principal).toMatchObject({ name: 'Classroom sync', scopes: ['media.read', 'notes.publish'], status: 'active', installationId: chain.installationId });
    expect((await service.listPrincipals(chain.adminAccountId, chain.installationId)).map((p) => p.id)).toContain(principal.id);
    expect(await codeOf(service.listPrincipals(stranger, chain.installationId))).toBe('not_found');
    expect(await codeOf(service.listPrincipals(chain.customerAccountId, chain.installationId))).toBe('not_found');
  });

  it('refuses bad names, bad scopes, strangers and uninstalled installations, creating nothing', async () => {
    const before = await count('runtime_service_principals');
    // Thunks, run one at a time: promises made up front would reject before their handler is attached.
    const refusals: [string, () => Promise<unknown>][] = [
      ['invalid_request', () => service.createPrincipal(chain.adminAccountId, chain.installationId, { name: ' ', scopes: ['media.read'] })],
      ['invalid_request', () => service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'a\u0007b', scopes: ['media.read'] })],
      ['invalid_request', () => service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'x'.repeat(201), scopes: ['media.read'] })],
      ['invalid_request', () => service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'p', scopes: [] })],
      ['invalid_request', () => service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'p', scopes: ['mcp:read'] })],
      ['invalid_request', () => service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'p', scopes: ['media.read', 'media.read'] })],
      ['not_found', () => service.createPrincipal(stranger, chain.installationId, { name: 'p', scopes: ['media.read'] })],
      ['not_found', () => service.createPrincipal(chain.adminAccountId, 'not-a-uuid', { name: 'p', scopes: ['media.read'] })],
      ['not_found', () => service.createPrincipal(chain.adminAccountId, '00000000-0000-7000-8000-000000000000', { name: 'p', scopes: ['media.read'] })],
    ];
    for (const [code, refusal] of refusals) expect(await codeOf(refusal())).toBe(code);
    const uninstalled = await insertRuntimeChain(db, { installationStatus: 'uninstalled', adminAccountId: chain.adminAccountId });
    expect(await codeOf(service.createPrincipal(chain.adminAccountId, uninstalled.installationId, { name: 'p', scopes: ['media.read'] }))).toBe('conflict');
    expect(await count('runtime_service_principals')).toBe(before);
  });

  it('shows a client secret once, stores its SHA-256 only, and lists it by its last four characters', async () => {
    const principal = await service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'secrets', scopes: ['media.read'] });
    const issued = await service.addClientSecret(chain.adminAccountId, principal.id);
    expect(issued.secret).toMatch(/^kgcs_[A-Za-z0-9_-]{43}$/);
    const rows = await db.query('SELECT * FROM runtime_principal_credentials WHERE id = $1', [issued.credentialId]);
    expect(rows[0]).toMatchObject({ kind: 'client_secret', secret_hash: sha256Hex(issued.secret), secret_last_four: issued.secret.slice(-4) });
    expect(JSON.stringify(await db.query('SELECT * FROM runtime_principal_credentials'))).not.toContain(issued.secret.slice(5, 30));
    const listed = await service.listCredentials(chain.adminAccountId, principal.id);
    expect(listed).toEqual([expect.objectContaining({ id: issued.credentialId, kind: 'client_secret', display: `kgcs_…${issued.secret.slice(-4)}`, status: 'active' })]);
    expect(JSON.stringify(listed)).not.toContain(issued.secret);
    expect(await codeOf(service.addClientSecret(stranger, principal.id))).toBe('not_found');
    expect(await codeOf(service.listCredentials(stranger, principal.id))).toBe('not_found');
  });

  it('registers RSA, EC and Ed25519 public keys with public members only, named by kid or thumbprint', async () => {
    const principal = await service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'keys', scopes: ['media.read'] });
    const rsa = await testKeyPair('RS256');
    const ec = await testKeyPair('ES256');
    const ed = await testKeyPair('EdDSA');
    const rsaKey = await service.addPublicKey(chain.adminAccountId, principal.id, { jwk: { ...rsa.publicJwk, kid: 'rsa-1', use: 'sig', ext: true } });
    expect(rsaKey).toMatchObject({ kind: 'public_key', keyId: 'rsa-1', publicJwk: { kty: 'RSA', n: rsa.publicJwk.n, e: rsa.publicJwk.e }, display: null });
    expect(Object.keys(rsaKey.publicJwk!).sort()).toEqual(['e', 'kty', 'n']);
    const ecKey = await service.addPublicKey(chain.adminAccountId, principal.id, { jwk: ec.publicJwk });
    expect(ecKey.keyId).toBe(await calculateJwkThumbprint(ec.publicJwk));
    const edKey = await service.addPublicKey(chain.adminAccountId, principal.id, { jwk: { ...ed.publicJwk, alg: 'EdDSA' }, keyId: 'ed-given' });
    expect(edKey).toMatchObject({ keyId: 'ed-given', publicJwk: { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' } });
    expect(await codeOf(service.addPublicKey(chain.adminAccountId, principal.id, { jwk: ec.publicJwk, keyId: 'rsa-1' }))).toBe('conflict');
  });

  it('refuses private keys, symmetric keys, weak or unknown keys and malformed JWKs, storing nothing', async () => {
    const principal = await service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'bad keys', scopes: ['media.read'] });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const rsaPrivate = rsa.privateKey.export({ format: 'jwk' });
    const ec = await testKeyPair('ES256');
    const refused: unknown[] = [
      rsaPrivate,
      ...['d', 'p', 'q', 'dp', 'dq', 'qi'].map((member) => ({ ...rsa.publicKey.export({ format: 'jwk' }), [member]: rsaPrivate[member as 'd'] })),
      { kty: 'oct', k: 'c2VjcmV0' },
      { kty: 'oct' },
      weak.publicKey.export({ format: 'jwk' }),
      p384.publicKey.export({ format: 'jwk' }),
      { ...ec.publicJwk, alg: 'HS256' },
      { ...ec.publicJwk, alg: 'RS256' },
      { ...ec.publicJwk, use: 'enc' },
      { ...ec.publicJwk, x: 'AAAA' },
      { kty: 'RSA', n: 'AQAB' },
      'a string',
      [ec.publicJwk],
      null,
      { ...ec.publicJwk, padding: 'x'.repeat(20_000) },
    ];
    for (const jwk of refused) expect(await codeOf(service.addPublicKey(chain.adminAccountId, principal.id, { jwk }))).toBe('invalid_request');
    expect(await codeOf(service.addPublicKey(chain.adminAccountId, principal.id, { jwk: ec.publicJwk, keyId: '' }))).toBe('invalid_request');
    expect(await codeOf(service.addPublicKey(chain.adminAccountId, principal.id, { jwk: ec.publicJwk, keyId: 'k'.repeat(201) }))).toBe('invalid_request');
    expect(await codeOf(service.addPublicKey(stranger, principal.id, { jwk: ec.publicJwk }))).toBe('not_found');
    expect(await service.listCredentials(chain.adminAccountId, principal.id)).toEqual([]);
  });

  it('bounds a principal to ten active credentials, and a revoked principal takes none', async () => {
    const principal = await service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'bounded', scopes: ['media.read'] });
    const issued = [];
    for (let i = 0; i < 10; i += 1) issued.push(await service.addClientSecret(chain.adminAccountId, principal.id));
    expect(await codeOf(service.addClientSecret(chain.adminAccountId, principal.id))).toBe('conflict');
    await service.revokeCredential(chain.adminAccountId, issued[0]!.credentialId);
    await service.addClientSecret(chain.adminAccountId, principal.id);
    await service.revokePrincipal(chain.adminAccountId, principal.id);
    expect(await codeOf(service.addClientSecret(chain.adminAccountId, principal.id))).toBe('conflict');
  });

  it('revokes credentials and principals once; a second revocation changes nothing, strangers cannot', async () => {
    const principal = await service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'revocable', scopes: ['media.read'] });
    const { credentialId } = await service.addClientSecret(chain.adminAccountId, principal.id);
    expect(await codeOf(service.revokeCredential(stranger, credentialId))).toBe('not_found');
    expect(await codeOf(service.revokeCredential(chain.adminAccountId, 'nope'))).toBe('not_found');
    const first = await service.revokeCredential(chain.adminAccountId, credentialId);
    expect(first).toMatchObject({ status: 'revoked', revokedAt: expect.any(Date) });
    const second = await service.revokeCredential(chain.adminAccountId, credentialId);
    expect(second.revokedAt).toEqual(first.revokedAt);

    expect(await codeOf(service.revokePrincipal(stranger, principal.id))).toBe('not_found');
    const revoked = await service.revokePrincipal(chain.adminAccountId, principal.id);
    expect(revoked).toMatchObject({ status: 'revoked', revokedAt: expect.any(Date) });
    expect((await service.revokePrincipal(chain.adminAccountId, principal.id)).revokedAt).toEqual(revoked.revokedAt);
  });

  it('lets an admin of several organizations manage each, and a new admin nothing before being named', async () => {
    const other = await insertRuntimeChain(db, { adminAccountId: chain.adminAccountId });
    await service.createPrincipal(chain.adminAccountId, other.installationId, { name: 'second org', scopes: ['media.write'] });
    const newcomer = await insertRuntimeAccount(db, 'newcomer');
    expect(await codeOf(service.listPrincipals(newcomer, other.installationId))).toBe('not_found');
    await db.query('INSERT INTO runtime_organization_admins (organization_id, account_id) VALUES ($1, $2)', [other.organizationId, newcomer]);
    expect(await service.listPrincipals(newcomer, other.installationId)).toHaveLength(1);
  });
});
