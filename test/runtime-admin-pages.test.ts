/**
 * The Product Runtime pages over plain HTTP against a real gateway: an organization admin's product and brand forms
 * (refusals come back by field, as written, nothing stored); an account that administers nothing reads an
 * explanation, and its posts to every admin form answer not_found and change nothing; a customer cannot assign or
 * grant what they do not own or administer, nor uninstall without confirming; a memory candidate is decided once, by a
 * person who may write its vault. The whole happy path runs in Chromium: runtime-product-pages-browser.test.ts.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mapping } from '../src/domains/vaults/index.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { newAccount, type TestAccount } from './support/oauth-flow.ts';
import { insertCandidate, runtimeRows } from './support/runtime-admin.ts';

let gateway: TestGateway;
let admin: TestAccount;
let customer: TestAccount;
let stranger: TestAccount;
let organizationId: string;
const suffix = randomUUID().slice(0, 8);

/** A signed-in browser and its CSRF token; `post` sends a form as our pages do (same origin, with the token). */
interface SignedIn {
  web: PageBrowser;
  post: (path: string, fields: Record<string, string>) => Promise<Response>;
}

async function signedIn(account: TestAccount): Promise<SignedIn> {
  const web = pageBrowser(gateway.baseUrl);
  expect((await signInThroughForm(web, account.email, account.password)).status).toBe(303);
  const csrf = hiddenField(await (await web.get('/account')).text(), 'csrf');
  return { web, post: (path, fields) => web.post(path, { csrf, ...fields }, { origin: gateway.baseUrl }) };
}

/** Every runtime record a form could change, principals and credentials included. */
async function snapshot(): Promise<string> {
  const principals = await gateway.db.query('SELECT * FROM runtime_service_principals ORDER BY id');
  const credentials = await gateway.db.query('SELECT * FROM runtime_principal_credentials ORDER BY id');
  return (await runtimeRows(gateway.db)) + JSON.stringify([principals, credentials]);
}

const mappingOf = async (account: TestAccount): Promise<Mapping> =>
  (await gateway.services.vaults.listAccessibleMappings(account.accountId)).find(({ mapping }) => mapping.id === account.mappingId)!.mapping;

beforeAll(async () => {
  gateway = await startTestGateway();
  admin = await newAccount(gateway, 'rt-admin');
  customer = await newAccount(gateway, 'rt-customer');
  stranger = await newAccount(gateway, 'rt-stranger');
  organizationId = (await gateway.services.runtimeAdmin.createOrganization({ slug: `acme-${suffix}`, name: 'Acme Learning', adminEmail: admin.email })).id;
});

afterAll(() => gateway?.stop());

describe('Product Runtime pages', () => {
  it('an organization admin defines a product and a brand; a refusal comes back by its field, as written, and stores nothing', async () => {
    const { web, post } = await signedIn(admin);
    const page = await (await web.get('/account/runtime')).text();
    expect(page).toContain('Acme Learning');
    expect(page).toContain('no cap');
    expect(page).not.toContain('name="apiOperationsPerMonth"');
    const prefix = `org-${organizationId}`;
    const product = { organization_id: organizationId, slug: `tutor-${suffix}`, name: 'Acme Tutor', domain_pack: 'education', experience_pack: '', return_origins: '' };

    const before = await snapshot();
    for (const [fields, field, input] of [
      [{ return_origins: 'https://app.example\nhttp://insecure.example' }, 'returnOrigins.1', 'returnOrigins'],
      [{ experience_pack: '{' }, 'experiencePack', 'experiencePack'],
      [{ experience_pack: '{"version": 2}' }, 'version', 'experiencePack'],
      [{ slug: 'Not A Slug' }, 'slug', 'slug'],
    ] as const) {
      const refused = await post('/account/runtime/products', { ...product, ...fields });
      expect(refused.status, JSON.stringify(fields)).toBe(400);
      const html = await refused.text();
      expect(html).toContain(`id="${prefix}-new-${input}-error" data-code="invalid_request" data-field="${field}"`);
      expect(html).toMatch(new RegExp(`id="${prefix}-new-${input}"[^>]*aria-describedby="${prefix}-new-${input}-error[^>]*aria-invalid="true"`));
      expect(html).toContain(`value="Acme Tutor"`);
    }
    const lowContrast = await post('/account/runtime/brand', { organization_id: organizationId, displayName: 'Acme', text: '#777777', background: '#ffffff' });
    expect(lowContrast.status).toBe(400);
    const brandPage = await lowContrast.text();
    expect(brandPage).toContain(`id="${prefix}-brand-text-error" data-code="invalid_request" data-field="colors.text"`);
    expect(brandPage).toContain('value="#777777"');
    expect(await snapshot()).toBe(before);

    const created = await post('/account/runtime/products', { ...product, return_origins: 'https://app.example\r\n' });
    expect(created.status).toBe(303);
    const productId = /\/account\/runtime\/products\/([0-9a-f-]+)\?notice=created$/.exec(created.headers.get('location')!)![1]!;
    const saved = await post('/account/runtime/brand', { organization_id: organizationId, displayName: 'Acme', welcomeText: 'Hello\r\nthere', primary: '#1A5FB4' });
    expect(saved.status).toBe(303);
    const [organization] = await gateway.services.runtimeAdmin.listMyOrganizations(admin.accountId);
    expect(organization!.brand).toEqual({ displayName: 'Acme', welcomeText: 'Hello\nthere', colors: { primary: '#1a5fb4' } });

    const path = `/account/runtime/products/${productId}`;
    expect((await post(path, { name: 'Acme Tutor 2', domain_pack: '', experience_pack: '', return_origins: 'https://app.example' })).status).toBe(303);
    const unconfirmed = await post(`${path}/retire`, {});
    expect(unconfirmed.status).toBe(400);
    expect(await unconfirmed.text()).toContain('data-field="confirm"');
    expect((await post(`${path}/retire`, { confirm: 'yes' })).status).toBe(303);
    const { items } = await gateway.services.runtimeAdmin.listProducts(admin.accountId, organizationId);
    expect(items.find((p) => p.id === productId)).toMatchObject({ name: 'Acme Tutor 2', domainPack: null, status: 'retired', returnOrigins: ['https://app.example'] });
  });

  it('an account that administers nothing reads an explanation; its posts to the admin forms answer not_found and change nothing', async () => {
    const runtime = gateway.services;
    const product = await runtime.runtimeAdmin.createProduct(admin.accountId, organizationId, { slug: `reader-${suffix}`, name: 'Acme Reader' });
    const installation = await runtime.runtimeAdmin.install(customer.accountId, product.slug);
    const principal = await runtime.runtimeCredentials.createPrincipal(admin.accountId, installation.id, { name: 'backend', scopes: ['notes.publish'] });
    const { credentialId } = await runtime.runtimeCredentials.addClientSecret(admin.accountId, principal.id);

    const publicJwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    const { web, post } = await signedIn(stranger);
    const page = await web.get('/account/runtime');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('You administer no product organization');
    const productPath = `/account/runtime/products/${product.id}`;
    const installationPath = `${productPath}/installations/${installation.id}`;
    for (const path of [productPath, installationPath]) expect((await web.get(path)).status, path).toBe(404);

    const before = await snapshot();
    for (const [path, fields] of [
      ['/account/runtime/products', { organization_id: organizationId, slug: `taken-${suffix}`, name: 'Taken' }],
      ['/account/runtime/brand', { organization_id: organizationId, displayName: 'Taken' }],
      ['/account/runtime/brand/remove', { organization_id: organizationId }],
      [productPath, { name: 'Taken' }],
      [`${productPath}/retire`, { confirm: 'yes' }],
      [`${installationPath}/principals`, { name: 'intruder', scopes: 'notes.publish' }],
      [`${installationPath}/secrets`, { principal_id: principal.id }],
      [`${installationPath}/keys`, { principal_id: principal.id, jwk: JSON.stringify(publicJwk) }],
      [`${installationPath}/principals/revoke`, { principal_id: principal.id }],
      [`${installationPath}/credentials/revoke`, { credential_id: credentialId }],
    ] as const) {
      const refused = await post(path, fields);
      expect(refused.status, path).toBe(404);
      expect(await refused.text(), path).toMatch(/data-code="not_found"|does not exist/);
    }
    // The admin's own forms, without the session's CSRF token or from another site.
    const adminWeb = (await signedIn(admin)).web;
    expect((await adminWeb.post(`${installationPath}/secrets`, { principal_id: principal.id }, { origin: gateway.baseUrl })).status).toBe(403);
    expect((await adminWeb.post(`${productPath}/retire`, { confirm: 'yes' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await snapshot()).toBe(before);

    // The admin's key form: a pasted JWK that is not JSON, or holds a private member, is refused by its field; a public one is added.
    const adminPost = (await signedIn(admin)).post;
    const keys = `${installationPath}/keys`;
    const notJson = await adminPost(keys, { principal_id: principal.id, jwk: '{"kty":' });
    expect(notJson.status).toBe(400);
    expect(await notJson.text()).toContain('data-field="jwk"');
    const privateJwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
    expect((await adminPost(keys, { principal_id: principal.id, jwk: JSON.stringify(privateJwk) })).status).toBe(400);
    expect(await snapshot()).toBe(before);
    expect((await adminPost(keys, { principal_id: principal.id, jwk: JSON.stringify(publicJwk), key_id: 'k1' })).status).toBe(303);
    const credentials = await runtime.runtimeCredentials.listCredentials(admin.accountId, principal.id);
    expect(credentials.map((c) => [c.kind, c.keyId])).toEqual([['public_key', 'k1'], ['client_secret', null]]);
  });

  it('a customer cannot assign or grant what they do not own or administer, nor uninstall unconfirmed; memory is decided once, by a writer', async () => {
    const runtime = gateway.services;
    const product = await runtime.runtimeAdmin.createProduct(admin.accountId, organizationId, { slug: `planner-${suffix}`, name: 'Acme Planner' });
    const [own, foreign, unrelated] = await Promise.all([mappingOf(customer), mappingOf(stranger), mappingOf(admin)]);
    // The customer may edit the stranger's workspace, not administer it.
    await runtime.workspaces.setMemberRole(foreign.workspaceId, customer.accountId, 'editor');

    const { web, post } = await signedIn(customer);
    expect((await post('/account/products/install', { product_slug: product.slug })).status).toBe(303);
    const installation = (await runtime.runtimeAdmin.listMyInstallations(customer.accountId)).items.find((i) => i.product.id === product.id)!;
    const ofInstallation = { installation_id: installation.id };
    expect((await post('/account/products/assign', { ...ofInstallation, workspace_id: own.workspaceId })).status).toBe(303);
    const page = await (await web.get('/account/products')).text();
    expect(page).toContain(`value="${own.vaultId}"`);
    expect(page).not.toContain(`value="${foreign.vaultId}"`);

    const before = await snapshot();
    for (const [path, fields, status, code] of [
      ['/account/products/assign', { workspace_id: foreign.workspaceId }, 403, 'forbidden'],
      ['/account/products/grant', { vault_id: foreign.vaultId, access: 'publish' }, 403, 'forbidden'],
      ['/account/products/grant', { vault_id: unrelated.vaultId, access: 'read' }, 404, 'not_found'],
      ['/account/products/grant', { vault_id: own.vaultId, access: 'admin' }, 400, 'invalid_request'],
      ['/account/products/sublimit', { microdollars: '-5' }, 400, 'invalid_request'],
      ['/account/products/uninstall', {}, 400, 'invalid_request'],
    ] as const) {
      const refused = await post(path, { ...ofInstallation, ...fields });
      expect(refused.status, `${path} ${JSON.stringify(fields)}`).toBe(status);
      expect(await refused.text()).toContain(`data-code="${code}"`);
    }
    expect(await snapshot()).toBe(before);

    // A candidate of the customer's vault: the stranger may not decide it; the customer decides it once.
    const principal = await runtime.runtimeCredentials.createPrincipal(admin.accountId, installation.id, { name: 'planner', scopes: ['notes.publish'] });
    const scope = await runtime.scopes.create({ accountId: customer.accountId, credentialKind: 'session' }, own.id, {
      name: 'Plans',
      pathPrefixes: [],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
    });
    const candidateId = await insertCandidate(gateway.db, { installationId: installation.id, principalId: principal.id, scopeId: scope.id, vaultId: own.vaultId, title: 'Tuesdays' });
    const strangerPost = (await signedIn(stranger)).post;
    const unknown = await strangerPost('/account/products/memory/decide', { candidate_id: candidateId, decision: 'accepted' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('data-code="not_found"');
    expect((await post('/account/products/memory/decide', { candidate_id: candidateId, decision: 'rejected' })).status).toBe(200);
    const decided = await snapshot();
    const again = await post('/account/products/memory/decide', { candidate_id: candidateId, decision: 'accepted' });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('data-code="conflict"');
    expect(await snapshot()).toBe(decided);

    // Decisions stay visible: after accepting another candidate, a fresh page lists both under Decided, with who decided.
    const acceptedId = await insertCandidate(gateway.db, { installationId: installation.id, principalId: principal.id, scopeId: scope.id, vaultId: own.vaultId, title: 'Room 4' });
    expect((await post('/account/products/memory/decide', { candidate_id: acceptedId, decision: 'accepted' })).status).toBe(200);
    const reloaded = await (await web.get('/account/products/memory')).text();
    const [waiting, decidedSection] = reloaded.split('<h2 id="decided-heading">Decided</h2>');
    expect(waiting).toContain('No candidate is waiting');
    for (const [id, status] of [[acceptedId, 'accepted'], [candidateId, 'rejected']] as const) {
      // Within the one item: no other candidate's markup between its id, its status and its decider.
      const within = '(?:(?!data-candidate=)[\\s\\S])*?';
      const email = customer.email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(decidedSection).toMatch(new RegExp(`data-candidate="${id}"${within}data-field="status">${status}<${within}data-field="decider">${email}<`));
    }
    expect(decidedSection!.indexOf(acceptedId)).toBeLessThan(decidedSection!.indexOf(candidateId));
  });
});
