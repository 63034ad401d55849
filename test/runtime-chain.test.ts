import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Clock } from '../src/kernel/clock.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { mcpRequest } from './support/mcp-bearer-requests.ts';
import { restClient } from './support/rest-client.ts';
import { expectRuntimeProblem, usageOf, vaultState } from './support/runtime-checks.ts';
import { callRuntime, createRuntimeChain, runtimeToken, vaultPath, type RuntimeAnswer, type RuntimeChainSetup } from './support/runtime-gateway.ts';

// Spec 5 rule 6 and docs/runtime.md "The chain": every link of the Product Runtime's authorization chain is broken in
// turn, each on its own fresh chain. Each refusal has its link's stable code in a V1 error envelope, and a publish
// applied through the broken chain changes nothing: the vault's notes and provenance events (as the customer reads
// them through the Developer REST API) and the organization's metered count stay as they were.

/** The note every refused apply tries to publish. */
const ATTEMPT = { path: 'lessons/attempt.md', content: '# Attempt\n' };

/** A fresh chain and an access token of it. */
interface Chain {
  chain: RuntimeChainSetup;
  token: string;
}

/** Runs a step around the refused call only (the customer's own reads before and after stay unaffected). */
interface Around {
  before(): Promise<void> | void;
  after(): Promise<void> | void;
}

describe('Product Runtime chain: every link refuses with its own code, and nothing changes', () => {
  let gateway: TestGateway;
  // The credentials service reads this clock: moving it past a token's lifetime expires the token.
  let clockOffsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + clockOffsetMs) };

  beforeAll(async () => {
    gateway = await startTestGateway({ clock });
  });
  afterAll(() => gateway.stop());

  /** The attempt previewed through a fresh, whole chain: it works before the link is broken. */
  async function freshChain(label: string, options: Parameters<typeof createRuntimeChain>[2] = {}): Promise<Chain> {
    const chain = await createRuntimeChain(gateway, label, options);
    const token = await runtimeToken(gateway, chain);
    const preview = await callRuntime<{ dryRun: boolean }>(gateway, token, 'POST', `${vaultPath(chain)}/notes/publish`, { json: ATTEMPT });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.data.dryRun).toBe(true);
    return { chain, token };
  }

  function applyAttempt(
    { chain, token }: Chain,
    options: {
      json?: Record<string, unknown>;
      headers?: Record<string, string | null>;
      at?: Pick<RuntimeChainSetup, 'workspaceId' | 'vaultId'>;
      /** Apply as a one-action transaction instead of a publication. */
      transaction?: boolean;
    } = {},
  ): Promise<RuntimeAnswer<unknown>> {
    const base = vaultPath(options.at ?? chain);
    const [path, json] = options.transaction
      ? [`${base}/notes/transactions`, { dryRun: false, actions: [{ type: 'write-note', ...ATTEMPT }], ...options.json }]
      : [`${base}/notes/publish`, { ...ATTEMPT, dryRun: false, ...options.json }];
    return callRuntime(gateway, token, 'POST', path, { json, headers: { 'Idempotency-Key': randomUUID(), ...options.headers } });
  }

  /**
   * Applies the attempt through the broken chain: refused with `status` and `code`, no receipt, and the vault (and
   * `alsoUnchanged`, another customer's vault it names) and the organization's count are unchanged.
   */
  async function expectApplyRefused(
    target: Chain,
    status: number,
    code: string,
    options: Parameters<typeof applyAttempt>[1] & { around?: Around; alsoUnchanged?: RuntimeChainSetup } = {},
  ): Promise<ReturnType<typeof expectRuntimeProblem>> {
    const { chain } = target;
    const watched = [chain, ...(options.alsoUnchanged ? [options.alsoUnchanged] : [])];
    const before = await Promise.all(watched.map((c) => vaultState(gateway, c)));
    const usedBefore = await Promise.all(watched.map((c) => usageOf(gateway, c.organization.id)));
    await options.around?.before();
    let answer: RuntimeAnswer<unknown>;
    try {
      answer = await applyAttempt(target, options);
    } finally {
      await options.around?.after();
    }
    const problem = expectRuntimeProblem(answer, status, code);
    expect(answer.body.receipts).toEqual([]);
    expect(await Promise.all(watched.map((c) => vaultState(gateway, c)))).toEqual(before);
    expect(await Promise.all(watched.map((c) => usageOf(gateway, c.organization.id)))).toEqual(usedBefore);
    return problem;
  }

  it('link 0: a missing or unsupported contract version', async () => {
    const target = await freshChain('version');
    await expectApplyRefused(target, 400, 'runtime_version_required', { headers: { 'X-Service-Runtime-Version': null } });
    const problem = await expectApplyRefused(target, 400, 'runtime_version_unsupported', { headers: { 'X-Service-Runtime-Version': '2' } });
    expect(problem.details).toEqual({ supported: [1] });
  });

  it('link 1: an expired access token (the gateway clock moved past its 15 minutes)', async () => {
    const target = await freshChain('expired');
    const around: Around = { before: () => void (clockOffsetMs = 16 * 60 * 1000), after: () => void (clockOffsetMs = 0) };
    await expectApplyRefused(target, 401, 'unauthenticated', { around });
    // The same token still works once the clock is back: the refusal was the expiry, not the token.
    expect((await callRuntime(gateway, target.token, 'GET', '/api/product/v1/context')).status).toBe(200);
  });

  it('link 2: a revoked service principal', async () => {
    const target = await freshChain('principal');
    const { orgAdmin, principalId } = target.chain;
    // Its tokens are kept until they expire: link 2 answers them, so that the product learns why.
    await gateway.services.runtimeCredentials.revokePrincipal(orgAdmin.accountId, principalId);
    await expectApplyRefused(target, 401, 'principal_revoked');
    // No new token is issued to a revoked principal either.
    await expect(runtimeToken(gateway, target.chain)).rejects.toThrow(/answered 4\d\d/);
  });

  it('link 3: a revoked credential (the token it issued stops)', async () => {
    const target = await freshChain('credential');
    const { runtimeCredentials } = gateway.services;
    const [credential] = await runtimeCredentials.listCredentials(target.chain.orgAdmin.accountId, target.chain.principalId);
    await runtimeCredentials.revokeCredential(target.chain.orgAdmin.accountId, credential!.id);
    await expectApplyRefused(target, 401, 'unauthenticated');
  });

  it('link 4: an uninstalled installation', async () => {
    const target = await freshChain('uninstalled');
    await gateway.services.runtimeAdmin.uninstall(target.chain.customer.accountId, target.chain.installation.id);
    await expectApplyRefused(target, 403, 'installation_inactive');
  });

  it('link 5: a retired product', async () => {
    const target = await freshChain('retired');
    await gateway.services.runtimeAdmin.retireProduct(target.chain.orgAdmin.accountId, target.chain.product.id);
    await expectApplyRefused(target, 403, 'product_retired');
  });

  it('link 6: a suspended organization, until it is resumed', async () => {
    const target = await freshChain('suspended');
    const { runtimeAdmin } = gateway.services;
    await runtimeAdmin.setOrganizationStatus(target.chain.organization.slug, 'suspended');
    await expectApplyRefused(target, 403, 'organization_suspended');
    await runtimeAdmin.setOrganizationStatus(target.chain.organization.slug, 'active');
    // Resumed, the same apply goes through, and the customer's view shows it (the view above would have seen it).
    const before = await vaultState(gateway, target.chain);
    const applied = await applyAttempt(target);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(await vaultState(gateway, target.chain)).not.toBe(before);
    expect(await vaultState(gateway, target.chain)).toContain(ATTEMPT.path);
  });

  it('link 7: a paused organization (apiOperationsPerMonth 0)', async () => {
    const target = await freshChain('paused');
    await gateway.services.runtimeAdmin.setOrganizationSettings(target.chain.organization.slug, { apiOperationsPerMonth: 0 });
    await expectApplyRefused(target, 403, 'runtime_paused');
  });

  it('link 8: a suspended customer account', async () => {
    const target = await freshChain('account');
    const { accounts } = gateway.services;
    const accountId = target.chain.customer.accountId;
    const around: Around = {
      before: async () => void (await accounts.setStatus(accountId, 'suspended')),
      after: async () => void (await accounts.setStatus(accountId, 'active')),
    };
    await expectApplyRefused(target, 403, 'account_inactive', { around });
  });

  it('link 9: a principal without notes.publish cannot apply; its preview still works', async () => {
    const target = await freshChain('scope', { scopes: ['media.read'] });
    const problem = await expectApplyRefused(target, 403, 'insufficient_scope');
    expect(problem.details).toEqual({ scope: 'notes.publish' });
    const transaction = await expectApplyRefused(target, 403, 'insufficient_scope', { transaction: true });
    expect(transaction.details).toEqual({ scope: 'notes.publish' });
    const preview = await callRuntime<{ dryRun: boolean }>(gateway, target.token, 'POST', `${vaultPath(target.chain)}/notes/publish`, { json: ATTEMPT });
    expect(preview.status).toBe(200);
    expect(preview.body.data.dryRun).toBe(true);
  });

  it('link 9: a token asked for fewer scopes than the principal holds carries only those', async () => {
    const chain = await createRuntimeChain(gateway, 'narrow', { scopes: ['notes.publish', 'media.read'] });
    const target = { chain, token: await runtimeToken(gateway, chain, 'media.read') };
    await expectApplyRefused(target, 403, 'insufficient_scope');
  });

  it('link 10: a workspace the customer unassigned', async () => {
    const target = await freshChain('unassigned');
    const { customer, installation, workspaceId } = target.chain;
    await gateway.services.runtimeAdmin.unassignWorkspace(customer.accountId, installation.id, workspaceId);
    await expectApplyRefused(target, 404, 'workspace_not_assigned');
  });

  it('link 11: a vault whose grant was revoked, and another customer\'s vault', async () => {
    const target = await freshChain('ungranted');
    const other = await freshChain('ungranted-other');
    // Another customer's vault, named under this installation's own assigned workspace, is not granted.
    await expectApplyRefused(target, 404, 'vault_not_granted', { at: { workspaceId: target.chain.workspaceId, vaultId: other.chain.vaultId }, alsoUnchanged: other.chain });
    // Under its own workspace it is not even assigned.
    await expectApplyRefused(target, 404, 'workspace_not_assigned', { at: other.chain, alsoUnchanged: other.chain });
    const { customer, installation, vaultId } = target.chain;
    await gateway.services.runtimeAdmin.revokeVault(customer.accountId, installation.id, vaultId);
    await expectApplyRefused(target, 404, 'vault_not_granted');
  });

  it('link 11: a read grant refuses an apply; its preview still works', async () => {
    const target = await freshChain('read-grant', { access: 'read' });
    await expectApplyRefused(target, 403, 'vault_grant_read_only');
    await expectApplyRefused(target, 403, 'vault_grant_read_only', { transaction: true });
  });

  it('link 12: a scope of another customer\'s vault, a scope that admits no agents, and a made-up scope are not found', async () => {
    const target = await freshChain('scope-owner');
    const other = await freshChain('scope-other');
    const { scopes } = gateway.services;
    const foreign = await scopes.create(other.chain.customer.actor, other.chain.customer.mapping.id, {
      name: 'Foreign',
      pathPrefixes: [],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
    });
    const peopleOnly = await scopes.create(target.chain.customer.actor, target.chain.customer.mapping.id, {
      name: 'People only',
      pathPrefixes: [],
      tags: [],
      audience: { minimumRole: 'viewer', agents: false },
    });
    // The product's own vault, and the other customer's through that customer's own product, do reach scopes.
    const own = await scopes.create(target.chain.customer.actor, target.chain.customer.mapping.id, {
      name: 'Agents',
      pathPrefixes: [],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
    });
    expect((await callRuntime(gateway, target.token, 'GET', `/api/product/v1/scopes/${own.id}/context`)).status).toBe(200);
    expect((await callRuntime(gateway, other.token, 'GET', `/api/product/v1/scopes/${foreign.id}/context`)).status).toBe(200);

    const usedBefore = await usageOf(gateway, target.chain.organization.id);
    const candidatesBefore = await gateway.db.query('SELECT * FROM runtime_memory_candidates ORDER BY id');
    for (const scopeId of [foreign.id, peopleOnly.id, randomUUID(), 'not-a-uuid']) {
      for (const suffix of ['context', 'policy', 'intelligence', 'memory']) {
        expectRuntimeProblem(await callRuntime(gateway, target.token, 'GET', `/api/product/v1/scopes/${scopeId}/${suffix}`), 404, 'scope_not_found');
      }
      const proposed = await callRuntime(gateway, target.token, 'POST', `/api/product/v1/scopes/${scopeId}/memory/candidates`, {
        json: { title: 'Tuesday', body: 'The class meets on Tuesdays.' },
        headers: { 'Idempotency-Key': randomUUID() },
      });
      expectRuntimeProblem(proposed, 404, 'scope_not_found');
    }
    expect(await gateway.db.query('SELECT * FROM runtime_memory_candidates ORDER BY id')).toEqual(candidatesBefore);
    expect(await usageOf(gateway, target.chain.organization.id)).toBe(usedBefore);
  });

  it('a forged hostname (Host, X-Forwarded-Host) of another organization\'s brand changes no answer', async () => {
    const target = await freshChain('hostname');
    const other = await freshChain('hostname-other');
    await gateway.services.runtimeAdmin.setBrand(other.chain.orgAdmin.accountId, other.chain.organization.id, {
      displayName: 'Other Learning',
      logoUrl: 'https://other-learning.example/logo.svg',
      supportUrl: 'https://help.other-learning.example/',
    });
    const plain = await hostRequest(target.token, 'GET', '/api/product/v1/context', {});
    const forgeries: Array<Record<string, string>> = [
      { host: 'other-learning.example' },
      { 'x-forwarded-host': 'other-learning.example' },
      { host: 'help.other-learning.example', 'x-forwarded-host': 'other-learning.example' },
    ];
    for (const forged of forgeries) {
      const answer = await hostRequest(target.token, 'GET', '/api/product/v1/context', forged);
      expect(answer.status).toBe(plain.status);
      expect(answer.body.data).toEqual(plain.body.data);
      expect((answer.body.data as { organization: { id: string } }).organization.id).toBe(target.chain.organization.id);
    }
    // Nor does it reach the other organization's customer's vault.
    const before = await vaultState(gateway, other.chain);
    const refused = await hostRequest(target.token, 'POST', `${vaultPath(other.chain)}/notes/publish`, { host: 'other-learning.example', 'x-forwarded-host': 'other-learning.example' }, { ...ATTEMPT, dryRun: false });
    expectRuntimeProblem(refused, 404, 'workspace_not_assigned');
    expect(await vaultState(gateway, other.chain)).toBe(before);
  });

  it('a claimed audience or brand, in a header or the body, is refused', async () => {
    const target = await freshChain('audience');
    const claims: Array<Record<string, string>> = [{ 'X-Service-Audience': 'owner' }, { 'X-Service-Brand': 'other-learning' }];
    for (const headers of claims) {
      const problem = await expectApplyRefused(target, 400, 'client_audience_refused', { headers });
      expect(problem.details).toEqual({ field: Object.keys(headers)[0]!.toLowerCase() });
    }
    for (const json of [{ audience: { minimumRole: 'owner', agents: false } }, { brand: 'other-learning' }, { grant: 'publish' }]) {
      const problem = await expectApplyRefused(target, 400, 'client_audience_refused', { json });
      expect(problem.details).toEqual({ field: Object.keys(json)[0] });
    }
    // Also on a read, where nothing would change anyway: refused before it is counted.
    const used = await usageOf(gateway, target.chain.organization.id);
    expectRuntimeProblem(await callRuntime(gateway, target.token, 'GET', '/api/product/v1/context', { headers: { 'X-Service-Audience': 'owner' } }), 400, 'client_audience_refused');
    expectRuntimeProblem(await callRuntime(gateway, target.token, 'GET', '/api/product/v1/context?audience=owner'), 400, 'client_audience_refused');
    expect(await usageOf(gateway, target.chain.organization.id)).toBe(used);
  });

  it('credentials of other surfaces are refused here, and a runtime token is refused there', async () => {
    const target = await freshChain('surfaces');
    const pat = target.chain.customer.token;
    const oauthShaped = `kgat_${randomBytes(32).toString('base64url')}`;
    for (const token of [pat, oauthShaped, `kgrp_${randomBytes(32).toString('base64url')}`, 'not-a-token']) {
      await expectApplyRefused({ chain: target.chain, token }, 401, 'unauthenticated');
      const context = await callRuntime(gateway, token, 'GET', '/api/product/v1/context');
      expectRuntimeProblem(context, 401, 'unauthenticated');
      expect(context.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    expectRuntimeProblem(await callRuntime(gateway, null, 'GET', '/api/product/v1/context'), 401, 'unauthenticated');

    const dev = await restClient(gateway, target.token).get('/mappings');
    expect(dev.status, dev.text).toBe(401);
    const mcp = await mcpRequest(gateway, target.token, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    expect(mcp.status).toBe(401);
    // The token itself is fine: the runtime accepts it.
    expect((await callRuntime(gateway, target.token, 'GET', '/api/product/v1/context')).status).toBe(200);
  });

  it('an unknown runtime route answers a not_found envelope, counting nothing', async () => {
    const target = await freshChain('unknown-route');
    const used = await usageOf(gateway, target.chain.organization.id);
    for (const [method, path] of [
      ['GET', '/api/product/v1/nothing-here'],
      ['POST', '/api/product/v1/context'],
      ['GET', `${vaultPath(target.chain)}/notes/elsewhere`],
      ['GET', '/workspaces/anything'],
    ] as const) {
      expectRuntimeProblem(await callRuntime(gateway, target.token, method, path), 404, 'not_found');
    }
    expect(await usageOf(gateway, target.chain.organization.id)).toBe(used);
  });

  /** A request with headers fetch will not send (Host), over node:http. */
  function hostRequest(token: string, method: 'GET' | 'POST', path: string, headers: Record<string, string>, json?: unknown): Promise<RuntimeAnswer<unknown>> {
    const url = new URL(path, gateway.url);
    const body = json === undefined ? undefined : JSON.stringify(json);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method,
          headers: {
            'x-service-runtime-version': '1',
            authorization: `Bearer ${token}`,
            ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'idempotency-key': randomUUID() } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
            resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as RuntimeAnswer<unknown>['body'] });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
});
