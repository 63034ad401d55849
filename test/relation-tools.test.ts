/**
 * find_related, get_relationship_explanation and get_contradictions over MCP (the SDK client, which checks each
 * result against the tool's outputSchema) and REST (GET /api/dev/knowledge/...), on notes written through the
 * governed write path, read through a context scope of Projects/ (Hidden/ is outside it).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../src/surfaces/operations/operation.ts';
import { RELATION_OPERATIONS } from '../src/surfaces/operations/relation-operations.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { callTool, connectMcpClient, type Structured } from './support/mcp-client.ts';
import { restClient, snapshotOf, type RestClient } from './support/rest-client.ts';
import { apply, hashOf, seedNotes } from './support/rest-transactions.ts';

const NOTES: Record<string, string> = {
  'Projects/Alpha.md': '---\ntype: project\nid: alpha\nowner: Ana\ndepends_on: "[[Delta]]"\n---\n# Alpha rollout plan\n\nSee [[Beta]], ![[Gamma]] and [[Beta#^claim]].\nAlso [[Secret]].\n\nGoal. ^goal\n',
  'Projects/Beta.md': '# Beta\n\nA claim. ^claim\n\nNext: [[Epsilon]].\n',
  'Projects/Gamma.md': '# Gamma\n\nBack to [[Alpha]].\n',
  'Projects/Delta.md': '# Delta\n\nSee [[Alpha#^goal]].\n',
  'Projects/Epsilon.md': '# Epsilon\n',
  'Projects/Alpha status.md': '---\ntype: project\nid: alpha\nstatus: active\n---\n# Alpha status\n',
  'Projects/Alpha rollout checklist.md': '# Alpha rollout checklist\n',
  'Projects/D1.md': '---\ntype: decision\nstatus: accepted\nsubject: "[[Alpha]]"\n---\n# Use Alpha\n',
  'Projects/D2.md': '---\ntype: decision\nstatus: proposed\n---\n# Use Beta\n',
  'Hidden/Secret.md': '# Secret\n\n[[Alpha]]\n',
};
const D2_CONTRADICTS = '---\ntype: decision\nstatus: proposed\ncontradicts: "[[D1]]"\n---\n# Use Beta\n';

const operation = (id: string) => RELATION_OPERATIONS.find((o) => o.id === id) as AnyOperation;

describe('relation tools over MCP and REST', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let client: Client;
  let mappingId: string;
  let contextScopeId: string;
  let scope: { mappingId: string; contextScopeId: string };

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'relations');
    mappingId = owner.mapping.id;
    api = restClient(gateway, owner.token);
    await seedNotes(api, mappingId, NOTES);
    const created = await gateway.services.scopes.create(owner.actor, mappingId, {
      name: 'Projects',
      pathPrefixes: ['Projects/'],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
    });
    contextScopeId = created.id;
    scope = { mappingId, contextScopeId };
    client = await connectMcpClient(gateway.url, owner.token);
    // Listing the tools makes the SDK client check every later result against its outputSchema.
    await client.listTools();
  });
  afterAll(async () => {
    await client.close();
    await gateway.stop();
  });

  const call = async (name: string, args: Record<string, unknown>) => callTool(client, name, args);
  const get = (path: string, query: Record<string, string | number | boolean | undefined>, token?: string) =>
    api.get<Structured>(path, { query, ...(token ? { token } : {}) });

  it('lists the three tools read-only, with output schemas, saying that lexical similarity is labelled as such', async () => {
    const { tools } = await client.listTools();
    for (const name of ['find_related', 'get_relationship_explanation', 'get_contradictions']) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.annotations, name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool?.inputSchema.required).toEqual(expect.arrayContaining(['mappingId', 'contextScopeId']));
      expect(tool?.outputSchema).toBeDefined();
    }
    expect(tools.find((t) => t.name === 'find_related')?.description).toContain('lexical similarity is labelled as such');
  });

  it('find_related answers every type over MCP, the same as over REST, and changes nothing', async () => {
    const before = await snapshotOf(gateway);
    const result = await call('find_related', { ...scope, path: 'Projects/Alpha.md', limit: 200 });
    expect(result.isError, JSON.stringify(result.data)).toBe(false);
    operation('findRelated').output.parse(result.data);
    const types = new Set((result.data.related as Structured[]).map((i) => `${i.type}:${i.path}`));
    for (const expected of [
      'explicit:Projects/Beta.md',
      'explicit:Projects/Gamma.md',
      'explicit:Projects/Delta.md',
      'decision:Projects/D1.md',
      'evidence:Projects/Beta.md',
      'evidence:Projects/Delta.md',
      'temporal:Projects/Alpha status.md',
      'semantic:Projects/Alpha rollout checklist.md',
      'derived:Projects/Epsilon.md',
    ]) {
      expect(types, expected).toContain(expected);
    }
    const semantic = (result.data.related as Structured[]).find((i) => i.type === 'semantic')!;
    expect(semantic).toMatchObject({ method: 'lexical', sharedTerms: ['alpha', 'rollout'] });
    // [[Secret]] and the link from Hidden/Secret.md: withheld, never named.
    expect(result.data).toMatchObject({ mappingId, contextScopeId, withheld: 2, withheldByType: { explicit: 2 }, truncated: false, nextCursor: null });
    expect(JSON.stringify(result.data)).not.toContain('Hidden');

    const rest = await get('/knowledge/related', { ...scope, path: 'Projects/Alpha.md', limit: 200 });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toEqual(result.data);
    const onlyTwo = await fetch(`${gateway.url}/api/dev/knowledge/related?mappingId=${mappingId}&contextScopeId=${contextScopeId}&path=Projects/Alpha.md&types=temporal&types=semantic`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    const onlyTwoBody = (await onlyTwo.json()) as Structured;
    expect(onlyTwo.status).toBe(200);
    expect((onlyTwoBody.related as Structured[]).map((i): unknown => i.type)).toEqual(['temporal', 'semantic']);
    expect(await snapshotOf(gateway)).toBe(before);
  });

  it('pages find_related with a cursor: truncated answers say so, and the pages add up to the whole', async () => {
    const whole = await call('find_related', { ...scope, path: 'Projects/Alpha.md', limit: 200 });
    const seen: Structured[] = [];
    let cursor: string | undefined;
    for (let k = 0; k < 20; k += 1) {
      const page = await call('find_related', { ...scope, path: 'Projects/Alpha.md', limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.isError).toBe(false);
      seen.push(...(page.data.related as Structured[]));
      if (page.data.nextCursor === null) break;
      expect(page.data.truncated).toBe(true);
      cursor = page.data.nextCursor as string;
    }
    expect(seen).toEqual(whole.data.related);
    const rest = await get('/knowledge/related', { ...scope, path: 'Projects/Alpha.md', limit: 2 });
    expect(rest.body).toMatchObject({ truncated: true, nextCursor: expect.any(String) });
  });

  it('get_relationship_explanation gives evidence and freshness, over MCP and REST; a note outside the scope is not_found like a missing one', async () => {
    const args = { ...scope, from: 'Projects/Alpha.md', to: 'Projects/Delta.md', type: 'evidence' };
    const result = await call('get_relationship_explanation', args);
    expect(result.isError, JSON.stringify(result.data)).toBe(false);
    operation('getRelationshipExplanation').output.parse(result.data);
    expect(result.data).toMatchObject({
      holds: true,
      relations: [{ type: 'evidence', direction: 'incoming', relation: 'cites_block', evidence: [{ path: 'Projects/Delta.md', text: '[[Alpha#^goal]]', quote: 'See [[Alpha#^goal]].' }] }],
      from: { path: 'Projects/Alpha.md', revision: hashOf(NOTES['Projects/Alpha.md']!), storedAtSource: 'observation_receipt', knowledgeCurrent: true },
      to: { path: 'Projects/Delta.md', knowledgeCurrent: true },
    });
    const rest = await get('/knowledge/relationship', args);
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toEqual(result.data);

    const semantic = await call('get_relationship_explanation', { ...args, to: 'Projects/Alpha rollout checklist.md', type: 'semantic' });
    expect(semantic.data).toMatchObject({ holds: true, lexical: { method: 'lexical', threshold: 0.3 }, relations: [{ method: 'lexical' }] });

    const outside = await call('get_relationship_explanation', { ...args, to: 'Hidden/Secret.md' });
    const missing = await call('get_relationship_explanation', { ...args, to: 'Projects/Nope.md' });
    expect(outside).toMatchObject({ isError: true, data: { code: 'not_found' } });
    expect(withoutRequestId(outside.data)).toEqual(withoutRequestId(missing.data));
    const restOutside = await get('/knowledge/relationship', { ...args, to: 'Hidden/Secret.md' });
    expect([restOutside.status, restOutside.body.code]).toEqual([404, 'not_found']);
  });

  it('get_contradictions keeps a tension added and then removed as resolved, with both history entries', async () => {
    const empty = await call('get_contradictions', scope);
    expect(empty.data).toMatchObject({ tensions: [], truncated: false, nextCursor: null });
    const plain = hashOf(NOTES['Projects/D2.md']!);
    expect((await apply(api, mappingId, [{ type: 'write-note', path: 'Projects/D2.md', content: D2_CONTRADICTS, expectedHash: plain }])).status).toBe(200);
    const open = await call('get_contradictions', scope);
    expect(open.isError, JSON.stringify(open.data)).toBe(false);
    expect(open.data.tensions).toEqual([
      expect.objectContaining({
        state: 'open',
        holder: expect.objectContaining({ path: 'Projects/D2.md', decisions: [expect.objectContaining({ status: 'candidate', statusInNote: 'proposed' })] }),
        target: expect.objectContaining({ path: 'Projects/D1.md', targetAsWritten: 'D1', decisions: [expect.objectContaining({ status: 'candidate', statusInNote: 'accepted' })] }),
      }),
    ]);
    expect((await apply(api, mappingId, [{ type: 'write-note', path: 'Projects/D2.md', content: NOTES['Projects/D2.md']!, expectedHash: hashOf(D2_CONTRADICTS) }])).status).toBe(200);
    const resolved = await call('get_contradictions', scope);
    operation('getContradictions').output.parse(resolved.data);
    const [tension] = resolved.data.tensions as Structured[];
    expect(tension).toMatchObject({ state: 'resolved', resolution: [{ reason: 'relation_removed', side: null }] });
    expect(tension!.history.versions).toEqual([
      expect.objectContaining({ revision: hashOf(D2_CONTRADICTS), retiredAt: expect.any(String), retiredRevision: plain }),
    ]);
    expect((tension!.history.events as Structured[]).map((e): unknown[] => [e.type, e.beforeRevision, e.afterRevision])).toEqual([
      ['record.added', plain, hashOf(D2_CONTRADICTS)],
      ['record.removed', hashOf(D2_CONTRADICTS), plain],
    ]);
    const rest = await get('/knowledge/contradictions', scope);
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toEqual(resolved.data);
    const openOnly = await get('/knowledge/contradictions', { ...scope, includeResolved: false });
    expect(openOnly.body).toMatchObject({ tensions: [], truncated: false });
  });

  it("answers a guessed scope id and another account's scope exactly as not_found, and says nothing else", async () => {
    const stranger = await createOwner(gateway.services, 'relations-stranger');
    const theirs = await gateway.services.scopes.create(stranger.actor, stranger.mapping.id, {
      name: 'Theirs',
      pathPrefixes: [],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
    });
    const guessed = await call('find_related', { mappingId, contextScopeId: '00000000-0000-7000-8000-000000000000', path: 'Projects/Alpha.md' });
    const foreignScope = await call('find_related', { mappingId, contextScopeId: theirs.id, path: 'Projects/Alpha.md' });
    const foreignMapping = await call('get_contradictions', { mappingId: stranger.mapping.id, contextScopeId: theirs.id });
    const malformed = await call('get_contradictions', { mappingId, contextScopeId: 'not-a-scope' });
    expect(guessed).toMatchObject({ isError: true, data: { code: 'not_found' } });
    for (const other of [foreignScope, malformed]) expect(withoutRequestId(other.data)).toEqual(withoutRequestId(guessed.data));
    expect(foreignMapping).toMatchObject({ isError: true, data: { code: 'not_found' } });
    expect(JSON.stringify([guessed, foreignScope, foreignMapping])).not.toMatch(/Alpha|Theirs|tensions|related/);
    // The stranger's own token cannot reach this mapping's scope either.
    const byStranger = await get('/knowledge/contradictions', scope, stranger.token);
    expect([byStranger.status, byStranger.body.code]).toEqual([404, 'not_found']);
  });

  it('says device_encrypted for a mapping whose bodies the server cannot read', async () => {
    const sealed = await createOwner(gateway.services, 'relations-sealed');
    const sealedScope = await gateway.services.scopes.create(sealed.actor, sealed.mapping.id, {
      name: 'All',
      pathPrefixes: [],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
    });
    await gateway.services.vaults.updateMappingFlags(sealed.mapping.id, { deviceEncrypted: true });
    const response = await get('/knowledge/contradictions', { mappingId: sealed.mapping.id, contextScopeId: sealedScope.id }, sealed.token);
    expect([response.status, response.body.code]).toEqual([409, 'device_encrypted']);
  });

  it('refuses bad input with invalid_request: a malformed cursor, an unknown type, an oversize limit, an unknown field', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['find_related', { ...scope, path: 'Projects/Alpha.md', cursor: 'bm9wZQ' }],
      ['find_related', { ...scope, path: 'Projects/Alpha.md', types: ['telepathic'] }],
      ['find_related', { ...scope, path: 'Projects/Alpha.md', limit: 201 }],
      ['find_related', { ...scope, path: 'Projects/Alpha.md', limit: 0 }],
      ['find_related', { ...scope, path: 'Projects/Alpha.md', depth: 3 }],
      ['find_related', { ...scope }],
      ['get_relationship_explanation', { ...scope, from: 'Projects/Alpha.md', to: 'Projects/Beta.md', type: 'semantically' }],
      ['get_relationship_explanation', { ...scope, from: 'Projects/Alpha.md', to: 'Projects/Alpha.md', type: 'explicit' }],
      ['get_contradictions', { ...scope, cursor: 'WyJhIl0' }],
      ['get_contradictions', { ...scope, limit: 1000 }],
      ['get_contradictions', { ...scope, includeResolved: 'yes' }],
    ];
    for (const [name, args] of cases) {
      const result = await call(name, args);
      expect(result, `${name} ${JSON.stringify(args)}`).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    }
    const rest: Array<[string, Record<string, string | number>]> = [
      ['/knowledge/related', { ...scope, path: 'Projects/Alpha.md', cursor: 'bm9wZQ' }],
      ['/knowledge/related', { ...scope, path: 'Projects/Alpha.md', types: 'telepathic' }],
      ['/knowledge/related', { ...scope, path: 'Projects/Alpha.md', limit: 201 }],
      ['/knowledge/relationship', { ...scope, from: 'Projects/Alpha.md', to: 'Projects/Beta.md', type: 'nope' }],
      ['/knowledge/contradictions', { ...scope, limit: 'many' }],
    ];
    for (const [path, query] of rest) {
      const response = await get(path, query);
      expect([response.status, response.body.code], `${path} ${JSON.stringify(query)}`).toEqual([400, 'invalid_request']);
    }
    const badPath = await call('find_related', { ...scope, path: '../Alpha.md' });
    expect(badPath).toMatchObject({ isError: true, data: { code: 'invalid_path' } });
  });
});

/** A failure's body without its request id, which differs per call. */
function withoutRequestId(data: Structured): Structured {
  const { requestId, ...rest } = data;
  void requestId;
  return rest;
}
