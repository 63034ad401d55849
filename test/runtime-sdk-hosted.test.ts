// The partner SDK as a partner gets it: packed with `npm pack`, installed from the tarball into a scratch project with
// no network, imported by its package name, and run with Node against a started gateway. The scenario: runtime
// context, capabilities, the assigned workspace, a listing, a publication previewed then applied, a read, a stale
// apply refused, a deletion to the trash, the trash listing and a restore. It also runs the packed local adapter.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { RUNTIME_SDK_SCENARIO } from './support/runtime-sdk-scenario.ts';

const run = promisify(execFile);
const SDK = fileURLToPath(new URL('../packages/runtime-sdk/', import.meta.url));
const TSC = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));

let gateway: TestGateway;
let scratch: string;
let customer: Owner;
let clientId: string;
let clientSecret: string;
/** The private half of the ES256 key registered for the same principal, as a JWK. */
let privateJwk: string;

/**
 * Builds the SDK as its build script does (its tsconfig), packs it with `npm pack`, and installs the tarball into a
 * new project, offline. The build and the pack happen in a staging copy, so that the same file running on both
 * database projects at once never shares packages/runtime-sdk/dist.
 */
async function installPackedSdk(): Promise<{ tarball: string; files: string[] }> {
  const stage = join(scratch, 'sdk');
  await mkdir(stage);
  await run(process.execPath, [TSC, '-p', SDK, '--outDir', join(stage, 'dist')]);
  for (const file of ['package.json', 'README.md']) await copyFile(join(SDK, file), join(stage, file));
  // Its prepack would build again, into the repository's folder: the staging copy is already built.
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], { cwd: stage });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = join(scratch, packed!.filename);
  await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'partner-product', private: true, type: 'module' }));
  await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: scratch });
  return { tarball, files: packed!.files.map((f) => f.path) };
}

/** Creates the chain a partner's product runs on: organization, product, installation, grants, principal, secret. */
async function createRuntimeChain(): Promise<void> {
  const { services } = gateway;
  customer = await createOwner(services, 'sdk-customer');
  const orgAdmin = await createOwner(services, 'sdk-org-admin');
  const organization = await services.runtimeAdmin.createOrganization({ slug: 'sdk-partner', name: 'SDK Partner', adminEmail: orgAdmin.email });
  const product = await services.runtimeAdmin.createProduct(orgAdmin.accountId, organization.id, { slug: 'sdk-tutor', name: 'SDK Tutor', domainPack: 'education' });
  const installation = await services.runtimeAdmin.install(customer.accountId, product.slug);
  await services.runtimeAdmin.assignWorkspace(customer.accountId, installation.id, customer.workspaceId);
  await services.runtimeAdmin.grantVault(customer.accountId, installation.id, customer.mapping.vaultId, 'publish');
  const principal = await services.runtimeCredentials.createPrincipal(orgAdmin.accountId, installation.id, { name: 'sdk-tests', scopes: ['notes.publish'] });
  clientId = principal.id;
  clientSecret = (await services.runtimeCredentials.addClientSecret(orgAdmin.accountId, principal.id)).secret;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await services.runtimeCredentials.addPublicKey(orgAdmin.accountId, principal.id, { jwk: publicKey.export({ format: 'jwk' }), keyId: 'sdk-key-1' });
  privateJwk = JSON.stringify(privateKey.export({ format: 'jwk' }));
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kgate-sdk-partner-'));
  gateway = await startTestGateway();
  await createRuntimeChain();
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the packed runtime SDK against a gateway', () => {
  it('installs from its tarball with nothing to fetch, and runs the scenario by its package name', async () => {
    const { files } = await installPackedSdk();
    // The package holds its build, its README and its manifest: no sources, no tests.
    expect(files.every((f) => f === 'package.json' || f === 'README.md' || f.startsWith('dist/'))).toBe(true);
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    const manifest = JSON.parse(await readFile(join(scratch, 'node_modules/@kgate/runtime-sdk/package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();

    await writeFile(join(scratch, 'scenario.js'), RUNTIME_SDK_SCENARIO);
    const { stdout } = await run(process.execPath, ['scenario.js'], {
      cwd: scratch,
      env: {
        PATH: process.env.PATH ?? '',
        KGATE_URL: gateway.url,
        KGATE_PUBLIC_URL: gateway.baseUrl,
        KGATE_PRIVATE_JWK: privateJwk,
        KGATE_CLIENT_ID: clientId,
        KGATE_CLIENT_SECRET: clientSecret,
        KGATE_WORKSPACE_ID: customer.workspaceId,
        KGATE_VAULT_ID: customer.mapping.vaultId,
        LOCAL_ROOT: join(scratch, 'local-notes'),
      },
    });
    expect(stdout).not.toContain(clientSecret);
    expect(stdout).not.toContain(JSON.parse(privateJwk).d);
    const steps = JSON.parse(stdout) as Record<string, { status: string; kind: string; data: unknown; problems: Array<{ code: string }>; receipts: unknown[] }>;

    expect(steps.context).toMatchObject({ status: 'ok', kind: 'service.runtime-context', data: { adapter: 'hosted', product: { slug: 'sdk-tutor' }, principal: { id: clientId, scopes: ['notes.publish'] } } });
    expect(steps.context!.receipts).toEqual([expect.objectContaining({ kind: 'service.product-runtime-operation' })]);
    expect(steps.capabilities).toMatchObject({ status: 'ok', data: { granted: expect.arrayContaining(['notes.publish', 'notes.list']) } });
    expect(steps.workspace).toMatchObject({ status: 'ok', data: { workspace: { id: customer.workspaceId }, vaults: [{ vaultId: customer.mapping.vaultId, access: 'publish' }] } });
    expect(steps.listBefore).toMatchObject({ status: 'ok', kind: 'service.note-list' });
    expect(steps.preview).toMatchObject({ status: 'ok', kind: 'service.note-transaction', data: { dryRun: true, applied: false, actions: [{ status: 'create' }] } });
    expect(steps.readBeforeApply).toMatchObject({ status: 'error', problems: [{ code: 'not_found' }] });
    expect(steps.apply).toMatchObject({ status: 'ok', data: { dryRun: false, applied: true, actions: [{ status: 'create' }] } });
    expect(steps.read).toMatchObject({ status: 'ok', kind: 'service.note', data: { path: 'SDK/hello.md', content: '# Hello\n\nFrom the packed SDK.\n' } });
    expect(steps.listAfter).toMatchObject({ status: 'ok', data: { notes: expect.arrayContaining([expect.objectContaining({ path: 'SDK/hello.md' })]) } });
    expect(steps.staleApply).toMatchObject({ status: 'error', kind: 'service.problem', problems: [{ code: 'stale_revision' }] });
    expect(steps.update).toMatchObject({ status: 'ok', data: { applied: true, actions: [{ status: 'update' }] } });
    expect(steps.delete).toMatchObject({ status: 'ok', data: { applied: true, actions: [{ status: 'delete' }] } });
    expect(steps.trash).toMatchObject({ status: 'ok', kind: 'service.trash-list', data: { entries: [expect.objectContaining({ originalPath: 'SDK/hello.md' })] } });
    expect(JSON.stringify(steps.trash!.data)).not.toContain('From the packed SDK');
    expect(steps.restore).toMatchObject({ status: 'ok', data: { applied: true, actions: [{ status: 'restore' }] } });
    expect(steps.readRestored).toMatchObject({ status: 'ok', data: { content: '# Hello again\n' } });
    // The projection is served; this principal holds notes.publish only, so the server refuses it for intelligence.execute.
    expect(steps.education).toMatchObject({ status: 'error', problems: [{ code: 'insufficient_scope' }] });

    // private_key_jwt: the SDK's own RFC 7523 assertion, whose audience is the token endpoint at the public base URL.
    expect(steps.keyContext).toMatchObject({ status: 'ok', data: { principal: { id: clientId } } });
    expect(steps.keyWrongAudience).toMatchObject({ status: 'error', problems: [{ code: 'invalid_client' }] });

    expect(steps.local).toMatchObject({ status: 'ok', data: { applied: true } });
    expect(steps.localRead).toMatchObject({ status: 'ok', data: { content: 'local only\n' } });
    expect(steps.localScopes).toMatchObject({ status: 'unavailable', problems: [{ code: 'not_available' }] });

    // What the product published is the customer's note, with provenance naming the product's principal.
    const events = await gateway.services.provenance.listEvents(customer.actor, customer.mapping.id, {});
    const created = events.events.find((e) => e.kind === 'note.created' && e.path === 'SDK/hello.md');
    expect(created).toMatchObject({ credentialKind: 'service_principal', client: 'SDK Tutor' });
  });
});
