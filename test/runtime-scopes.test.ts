import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { ScopeDefinition } from '../src/domains/scopes/index.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { expectRuntimeProblem } from './support/runtime-checks.ts';
import { callRuntime, createRuntimeChain, runtimeToken, vaultPath, type RuntimeAnswer, type RuntimeChainSetup } from './support/runtime-gateway.ts';

// Spec 4.7 and 5 rule 6, docs/runtime.md "Routes": a product names a stable context scope id and the server resolves
// its vault, grant, audience and policy through the chain; shared memory is proposed by products and decided by
// people; workspaces, bindings and the domain composition are answered from server records, and a brand is
// presentation only.

type Json = Record<string, unknown>;
interface ScopeSummary {
  scopeId: string;
  name: string;
  workspaceId: string;
  vaultId: string;
  pathPrefixes: string[];
  tags: string[];
}
interface ScopeList {
  scopes: ScopeSummary[];
  truncated: boolean;
}
interface ScopePolicy {
  publish: boolean;
  reasons: Array<{ code: string; message: string }>;
}
interface ScopeIntelligence {
  scopeId: string;
  commitments: Array<{ text: string; closed: boolean; due: string | null }>;
  questions: Array<{ text: string; answered: boolean }>;
  truncated: Json;
}
interface MemoryEntry {
  id: string;
  title: string;
  status: string;
}
interface GrantedVault {
  name: string;
  access: string;
  boundAt: string | null;
}
interface Workspace {
  workspace: { id: string; name: string };
  vaults: GrantedVault[];
}
interface Composition {
  domainPack: { slug: string; title: string; entityKinds: unknown[]; relationshipKinds: unknown[] } | null;
  experience: unknown;
  brand: { displayName: string };
}

const V1 = '/api/product/v1';

/** A scope definition whose audience admits non-person callers unless `agents` says otherwise. */
function scopeDefinition(name: string, options: Partial<ScopeDefinition> & { agents?: boolean } = {}): ScopeDefinition {
  return {
    name,
    pathPrefixes: options.pathPrefixes ?? [],
    tags: options.tags ?? [],
    audience: options.audience ?? { minimumRole: 'viewer', agents: options.agents ?? true },
  };
}

describe('Product Runtime scope operations, workspace, binding and composition', () => {
  let gateway: TestGateway;
  /** A publish grant; its principal holds notes.publish. */
  let chain: RuntimeChainSetup;
  let token: string;
  /** Another customer's installation of another product: a read grant, a principal without notes.publish. */
  let reader: RuntimeChainSetup;
  let readerToken: string;
  const scopeIds: Record<'lessons' | 'owners' | 'peopleOnly' | 'readerLessons', string> = { lessons: '', owners: '', peopleOnly: '', readerLessons: '' };

  const get = <T = Json>(path: string, as = token) => callRuntime<T>(gateway, as, 'GET', path);
  const propose = (scopeId: string, json: Json, key: string | null = randomUUID(), as = token) =>
    callRuntime<MemoryEntry & Json>(gateway, as, 'POST', `${V1}/scopes/${scopeId}/memory/candidates`, { json, headers: { 'Idempotency-Key': key } });

  /** An answered call: 200, an ok envelope of `kind`; its data. */
  function ok<T>(answer: RuntimeAnswer<T>, kind: string): T {
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ version: 1, kind, status: 'ok', problems: [] });
    return answer.body.data;
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    chain = await createRuntimeChain(gateway, 'scopes');
    token = await runtimeToken(gateway, chain);
    reader = await createRuntimeChain(gateway, 'scopes-reader', { access: 'read', scopes: ['media.read'] });
    readerToken = await runtimeToken(gateway, reader);
    const { scopes } = gateway.services;
    const { actor, mapping } = chain.customer;
    scopeIds.lessons = (await scopes.create(actor, mapping.id, scopeDefinition('Lessons', { pathPrefixes: ['Lessons/'] }))).id;
    scopeIds.owners = (await scopes.create(actor, mapping.id, scopeDefinition('Owners', { audience: { minimumRole: 'owner', agents: true } }))).id;
    scopeIds.peopleOnly = (await scopes.create(actor, mapping.id, scopeDefinition('People only', { agents: false }))).id;
    scopeIds.readerLessons = (await scopes.create(reader.customer.actor, reader.customer.mapping.id, scopeDefinition('Reader lessons'))).id;
  });
  afterAll(() => gateway.stop());

  it('listAvailableScopes: only scopes of granted vaults that admit agents', async () => {
    const data = ok(await get<ScopeList>(`${V1}/scopes`), 'service.scope-list');
    expect(data.truncated).toBe(false);
    expect(data.scopes.map((s) => s.scopeId).sort()).toEqual([scopeIds.lessons, scopeIds.owners].sort());
    expect(data.scopes.find((s) => s.scopeId === scopeIds.lessons)).toEqual({
      scopeId: scopeIds.lessons,
      name: 'Lessons',
      workspaceId: chain.workspaceId,
      vaultId: chain.vaultId,
      pathPrefixes: ['Lessons/'],
      tags: [],
    });
    expect(ok(await get<ScopeList>(`${V1}/scopes?workspaceId=${chain.workspaceId}`), 'service.scope-list').scopes).toHaveLength(2);
    expect(ok(await get<ScopeList>(`${V1}/scopes?workspaceId=${reader.workspaceId}`), 'service.scope-list').scopes).toEqual([]);
    // The other customer's product sees its own customer's scope only.
    expect(ok(await get<ScopeList>(`${V1}/scopes`, readerToken), 'service.scope-list').scopes.map((s) => s.scopeId)).toEqual([scopeIds.readerLessons]);
    expectRuntimeProblem(await get(`${V1}/scopes?workspaceId=not-a-uuid`), 400, 'invalid_request');
  });

  it('getScopeContext: the scope, its vault, its audience and the customer role the server resolved', async () => {
    const data = ok(await get(`${V1}/scopes/${scopeIds.lessons}/context`), 'service.scope-context');
    expect(data).toEqual({
      scopeId: scopeIds.lessons,
      name: 'Lessons',
      workspaceId: chain.workspaceId,
      vaultId: chain.vaultId,
      pathPrefixes: ['Lessons/'],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
      customerRole: 'owner',
    });
    expectRuntimeProblem(await get(`${V1}/scopes/${scopeIds.peopleOnly}/context`), 404, 'scope_not_found');
    expectRuntimeProblem(await get(`${V1}/scopes/${scopeIds.readerLessons}/context`), 404, 'scope_not_found');
  });

  it('getEffectiveScopePolicy: publish on a publish grant; on a read grant without notes.publish, not, with its reasons', async () => {
    const publish = ok(await get<ScopePolicy>(`${V1}/scopes/${scopeIds.lessons}/policy`), 'service.scope-policy');
    expect(publish).toMatchObject({ scopeId: scopeIds.lessons, read: true, publish: true, grant: 'publish', credentialScopes: ['notes.publish'], reasons: [] });
    const read = ok(await get<ScopePolicy>(`${V1}/scopes/${scopeIds.readerLessons}/policy`, readerToken), 'service.scope-policy');
    expect(read).toMatchObject({ scopeId: scopeIds.readerLessons, read: true, publish: false, grant: 'read', credentialScopes: ['media.read'] });
    expect(read.reasons.map((r) => r.code).sort()).toEqual(['insufficient_scope', 'vault_grant_read_only']);
    for (const reason of read.reasons) expect(reason.message).toEqual(expect.any(String));
    // The policy is what the server enforces: the reader's apply is refused.
    const applied = await callRuntime(gateway, readerToken, 'POST', `${vaultPath(reader)}/notes/publish`, {
      json: { path: 'Lessons/refused.md', content: '# Refused\n', dryRun: false },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expectRuntimeProblem(applied, 403, 'insufficient_scope');
  });

  it('getScopeIntelligence: open commitments and questions of the notes in the scope only', async () => {
    const publish = async (path: string, content: string) => {
      const answer = await callRuntime(gateway, token, 'POST', `${vaultPath(chain)}/notes/publish`, {
        json: { path, content, dryRun: false },
        headers: { 'Idempotency-Key': randomUUID() },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    };
    await publish('Lessons/week-1.md', '# Week 1\n\n- [ ] Grade the essays 📅 2026-12-01\n- [x] Print the handouts\n\n> [!question] Should the quiz move to Friday?\n');
    await publish('Staff/budget.md', '# Budget\n\n- [ ] Order tablets 📅 2026-11-15\n\n> [!question] Who pays for the tablets?\n');
    const data = ok(await get<ScopeIntelligence>(`${V1}/scopes/${scopeIds.lessons}/intelligence`), 'service.scope-intelligence');
    expect(data.scopeId).toBe(scopeIds.lessons);
    expect(data.commitments).toEqual([expect.objectContaining({ text: expect.stringContaining('Grade the essays'), closed: false, due: '2026-12-01' })]);
    expect(data.questions).toEqual([expect.objectContaining({ text: expect.stringContaining('Should the quiz move to Friday?'), answered: false })]);
    expect(data.truncated).toEqual({ decisions: false, questions: false, commitments: false });
    // The owners' scope (every path) sees both notes' open items.
    const all = ok(await get<ScopeIntelligence>(`${V1}/scopes/${scopeIds.owners}/intelligence`), 'service.scope-intelligence');
    expect(all.commitments.map((c) => c.due).sort()).toEqual(['2026-11-15', '2026-12-01']);
    expect(all.questions).toHaveLength(2);
  });

  it('createSharedMemoryCandidate: needs a key, refuses a reused key, and stays out of getScopeMemory until a person accepts it', async () => {
    const memory = async () => ok(await get<{ entries: MemoryEntry[] }>(`${V1}/scopes/${scopeIds.lessons}/memory`), 'service.scope-memory').entries;
    const rows = async () => gateway.db.query<{ id: string; status: string }>(`SELECT id, status FROM runtime_memory_candidates WHERE scope_id = $1 ORDER BY created_at`, [scopeIds.lessons]);
    const proposal = { title: 'Quiz day', body: 'Quizzes are on Fridays.', evidence: [{ path: 'Lessons/week-1.md' }] };

    expectRuntimeProblem(await propose(scopeIds.lessons, proposal, null), 400, 'idempotency_key_required');
    expect(await rows()).toEqual([]);

    const key = randomUUID();
    const first = await propose(scopeIds.lessons, proposal, key);
    const candidate = ok(first, 'service.memory-candidate');
    expect(candidate).toMatchObject({ scopeId: scopeIds.lessons, ...proposal, status: 'candidate', decidedAt: null });
    expectRuntimeProblem(await propose(scopeIds.lessons, { ...proposal, body: 'Quizzes are on Mondays.' }, key), 422, 'idempotency_key_reused');
    expect(await rows()).toEqual([{ id: candidate.id, status: 'candidate' }]);
    expect(await memory()).toEqual([]);

    const rejectedCandidate = ok(await propose(scopeIds.lessons, { title: 'Wrong', body: 'Quizzes are never.' }), 'service.memory-candidate');
    const { runtimeAdmin } = gateway.services;
    // The customer (a person with the vault's write permission) decides; the product never can.
    await runtimeAdmin.decideMemoryCandidate(chain.customer.accountId, candidate.id, 'accepted');
    await runtimeAdmin.decideMemoryCandidate(chain.customer.accountId, rejectedCandidate.id, 'rejected');
    const entries = await memory();
    expect(entries).toEqual([expect.objectContaining({ id: candidate.id, title: 'Quiz day', status: 'accepted', decidedAt: expect.any(String) })]);
    expect(JSON.stringify(entries)).not.toContain(rejectedCandidate.id);
    // Another scope's memory does not show it, nor does another customer's product reach it.
    expect(ok(await get<{ entries: MemoryEntry[] }>(`${V1}/scopes/${scopeIds.owners}/memory`), 'service.scope-memory').entries).toEqual([]);
    expectRuntimeProblem(await get(`${V1}/scopes/${scopeIds.lessons}/memory`, readerToken), 404, 'scope_not_found');
    expectRuntimeProblem(await propose(scopeIds.lessons, proposal, randomUUID(), readerToken), 404, 'scope_not_found');
    // Invalid input is refused, and stores nothing.
    expectRuntimeProblem(await propose(scopeIds.lessons, { title: '', body: 'x' }), 400, 'invalid_request');
    expect((await rows()).map((r) => r.status).sort()).toEqual(['accepted', 'rejected']);
  });

  // A stored answer holds its dates as ISO strings: the output schema takes them as such, so a replay answers them.
  it('createSharedMemoryCandidate: a retry with the same key replays the stored candidate', async () => {
    const proposal = { title: 'Retried', body: 'Sent twice.' };
    const key = randomUUID();
    const candidate = ok(await propose(scopeIds.owners, proposal, key), 'service.memory-candidate');
    const retry = await propose(scopeIds.owners, proposal, key);
    expect(retry.headers.get('idempotent-replayed'), JSON.stringify(retry.body)).toBe('true');
    expect(ok(retry, 'service.memory-candidate')).toEqual(candidate);
    expect(await gateway.db.query(`SELECT id FROM runtime_memory_candidates WHERE scope_id = $1`, [scopeIds.owners])).toEqual([{ id: candidate.id }]);
  });

  it('getWorkspace and bindHostedVault: the grant as the customer made it; binding records when and grants nothing', async () => {
    const before = ok(await get<Workspace>(`${V1}/workspaces/${chain.workspaceId}`), 'service.workspace');
    expect(before.workspace).toEqual({ id: chain.workspaceId, name: expect.any(String) });
    expect(before.vaults).toEqual([{ workspaceId: chain.workspaceId, vaultId: chain.vaultId, name: expect.any(String), access: 'publish', boundAt: null }]);
    expectRuntimeProblem(await get(`${V1}/workspaces/${reader.workspaceId}`), 404, 'workspace_not_assigned');
    expectRuntimeProblem(await get(`${V1}/workspaces/${randomUUID()}`), 404, 'workspace_not_assigned');

    const bound = ok(await callRuntime<GrantedVault & Json>(gateway, token, 'POST', `${V1}/workspaces/${chain.workspaceId}/vaults/${chain.vaultId}/bind`), 'service.hosted-vault');
    expect(bound).toEqual({
      workspaceId: chain.workspaceId,
      vaultId: chain.vaultId,
      name: before.vaults[0]!.name,
      access: 'publish',
      provider: 'hosted',
      readOnly: false,
      approvalPolicy: 'open',
      boundAt: expect.any(String),
    });
    const after = ok(await get<Workspace>(`${V1}/workspaces/${chain.workspaceId}`), 'service.workspace');
    expect(after.vaults[0]).toEqual({ ...before.vaults[0], boundAt: bound.boundAt });

    // A read grant binds as read, and stays read.
    const readBound = ok(await callRuntime<GrantedVault>(gateway, readerToken, 'POST', `${V1}/workspaces/${reader.workspaceId}/vaults/${reader.vaultId}/bind`, { json: {} }), 'service.hosted-vault');
    expect(readBound.access).toBe('read');
    expect(ok(await get<ScopePolicy>(`${V1}/scopes/${scopeIds.readerLessons}/policy`, readerToken), 'service.scope-policy').publish).toBe(false);
    // Another customer's vault cannot be bound, whichever workspace names it; nor can the route be given a mapping.
    const foreign = await callRuntime(gateway, token, 'POST', `${V1}/workspaces/${reader.workspaceId}/vaults/${reader.vaultId}/bind`);
    expectRuntimeProblem(foreign, 404, 'workspace_not_assigned');
    expectRuntimeProblem(await callRuntime(gateway, token, 'POST', `${V1}/workspaces/${chain.workspaceId}/vaults/${reader.vaultId}/bind`), 404, 'vault_not_granted');
    const withMapping = await callRuntime(gateway, token, 'POST', `${V1}/workspaces/${chain.workspaceId}/vaults/${chain.vaultId}/bind`, {
      json: { mappingId: reader.customer.mapping.id },
    });
    expectRuntimeProblem(withMapping, 400, 'invalid_request');
    const grants = await gateway.db.query<{ bound_at: Date | null }>(`SELECT bound_at FROM runtime_vault_grants WHERE installation_id = $1`, [reader.installation.id]);
    expect(grants).toHaveLength(1);
  });

  it('getDomainComposition: the education pack; a brand shows in presentation and changes no other answer', async () => {
    const composition = ok(await get<Composition>(`${V1}/domain-composition`), 'service.domain-composition');
    expect(composition.domainPack).toMatchObject({ slug: 'education', title: expect.any(String) });
    expect(composition.domainPack!.entityKinds.length).toBeGreaterThan(0);
    expect(composition.domainPack!.relationshipKinds.length).toBeGreaterThan(0);
    expect(Object.keys(composition).sort()).toEqual(['brand', 'domainPack', 'experience']);

    // Every other answer of the product, before the brand is set.
    const others = async () => {
      const paths = [
        `${V1}/capabilities`,
        `${V1}/workspaces/${chain.workspaceId}`,
        `${V1}/scopes`,
        `${V1}/scopes/${scopeIds.lessons}/context`,
        `${V1}/scopes/${scopeIds.lessons}/policy`,
        `${V1}/scopes/${scopeIds.lessons}/intelligence`,
        `${V1}/scopes/${scopeIds.lessons}/memory`,
        `${vaultPath(chain)}/notes`,
        `${vaultPath(chain)}/notes/content?path=Lessons%2Fweek-1.md`,
        `${vaultPath(chain)}/notes/trash`,
      ];
      const answers = await Promise.all(paths.map((path) => get(path)));
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const context = await get<{ presentation: Composition } & Json>(`${V1}/context`);
      const { presentation, ...authority } = ok(context, 'service.runtime-context');
      return { answers: answers.map((a) => [a.body.kind, a.body.status, a.body.data]), authority, presentation };
    };
    const unbranded = await others();

    const brand = {
      displayName: 'Tidewater Learning',
      colors: { primary: '#1a5fb4', accent: '#e66100', background: '#ffffff', text: '#1b1b1b' },
      logoUrl: 'https://cdn.tidewater.example/logo.svg',
      tagline: 'Plans that teach',
    };
    await gateway.services.runtimeAdmin.setBrand(chain.orgAdmin.accountId, chain.organization.id, brand);

    const branded = await others();
    expect(branded.answers).toEqual(unbranded.answers);
    expect(branded.authority).toEqual(unbranded.authority);
    expect(branded.presentation.brand).toMatchObject(brand);
    expect(branded.presentation.brand).not.toEqual(unbranded.presentation.brand);
    expect(branded.presentation.domainPack).toEqual(unbranded.presentation.domainPack);
    const after = ok(await get<Composition>(`${V1}/domain-composition`), 'service.domain-composition');
    expect(after.brand).toEqual(branded.presentation.brand);
    expect(after.domainPack).toEqual(composition.domainPack);
    expect(after.experience).toEqual(composition.experience);
    // Another organization's product keeps its own presentation.
    const readerComposition = ok(await get<Composition>(`${V1}/domain-composition`, readerToken), 'service.domain-composition');
    expect(readerComposition.brand.displayName).not.toBe(brand.displayName);
  });
  it('an experience pack hides a capability from the product\'s navigation only: the capability and the publish still work', async () => {
    const pack = {
      version: 1,
      navigation: [
        { id: 'notes', label: 'Notes', capability: 'notes.list' },
        { id: 'publish', label: 'Publish', capability: 'notes.publish' },
      ],
      capabilityVisibility: { 'notes.publish': 'hidden' },
    };
    await gateway.services.runtimeAdmin.updateProduct(chain.orgAdmin.accountId, chain.product.id, { experiencePack: pack });
    const composition = ok(await get<{ experience: { navigation: Array<{ capability: string }> } }>(`${V1}/domain-composition`), 'service.domain-composition');
    expect(composition.experience.navigation.map((item) => item.capability)).toEqual(['notes.list']);
    const capabilities = ok(await get<{ capabilities: Array<{ id: string; availability: string }>; granted: string[] }>(`${V1}/capabilities`), 'service.runtime-capabilities');
    expect(capabilities.capabilities.find((c) => c.id === 'notes.publish')?.availability).toBe('available');
    expect(capabilities.granted).toContain('notes.publish');
    const published = await callRuntime(gateway, token, 'POST', `${vaultPath(chain)}/notes/publish`, {
      json: { path: 'Lessons/hidden-but-allowed.md', content: '# Still allowed\n', dryRun: false },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
  });
});
