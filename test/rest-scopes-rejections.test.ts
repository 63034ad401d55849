import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient, type RestClient } from './support/rest-client.ts';
import { definition, expectScopesUnchanged, scopeRequests } from './support/rest-scopes.ts';

// Every refusal of the scope routes answers its stable code, previewed and applied alike, and changes nothing.
describe('context scope changes that are refused', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let scopes: ReturnType<typeof scopeRequests>;
  let mappingId: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'scope-rejections');
    api = restClient(gateway, owner.token);
    mappingId = owner.mapping.id;
    scopes = scopeRequests(api, mappingId);
    for (const name of ['Alpha', 'Beta']) {
      const created = await scopes.create({ name, pathPrefixes: [`${name}/`] }, true);
      expect(created.status, created.text).toBe(200);
      ids[name] = created.body.scope.id;
    }
  });
  afterAll(() => gateway.stop());

  const many = (n: number, make: (k: number) => string) => Array.from({ length: n }, (_, k) => make(k));

  /** Malformed definitions, each with what it breaks. */
  const MALFORMED: Array<[string, Record<string, unknown>]> = [
    ['a prefix that climbs out with ..', { pathPrefixes: ['../Secrets'] }],
    ['a prefix with .. inside', { pathPrefixes: ['Projects/../Secrets/'] }],
    ['an absolute prefix', { pathPrefixes: ['/etc/'] }],
    ['an empty prefix', { pathPrefixes: ['Projects/', ' '] }],
    ['a prefix with a control character', { pathPrefixes: ['Pro\u0000jects/'] }],
    ['an invalid tag (a space)', { tags: ['two words'] }],
    ['an invalid tag (digits only)', { tags: ['#2024'] }],
    ['an invalid tag (a lone #)', { tags: ['#'] }],
    ['a name of 101 characters', { name: 'n'.repeat(101) }],
    ['an empty name', { name: '' }],
    ['a name of spaces only', { name: '   ' }],
    ['21 prefixes', { pathPrefixes: many(21, (k) => `Folder ${k}/`) }],
    ['21 tags', { tags: many(21, (k) => `tag${k}`) }],
    ['an unknown minimum role', { audience: { minimumRole: 'superuser', agents: true } }],
    ['an audience without agents', { audience: { minimumRole: 'viewer' } }],
    ['an unknown field in the audience', { audience: { minimumRole: 'viewer', agents: true, everyone: true } }],
    ['an unknown top-level field', { public: true }],
    ['a name that is not a string', { name: 42 }],
    ['prefixes that are not a list', { pathPrefixes: 'Projects/' }],
  ];

  it.each(MALFORMED)('a creation with %s is invalid_request, previewed or applied', async (_what, change) => {
    for (const apply of [false, true]) {
      await expectScopesUnchanged(gateway, () => scopes.create({ name: 'New', ...change }, apply), 400, 'invalid_request');
    }
  });

  it.each(MALFORMED)('an update with %s is invalid_request, previewed or applied', async (_what, change) => {
    for (const apply of [false, true]) {
      await expectScopesUnchanged(gateway, () => scopes.update(ids.Alpha!, { ...definition('Alpha'), ...change }, apply), 400, 'invalid_request');
    }
  });

  it('an update must send the whole definition', async () => {
    for (const field of ['name', 'pathPrefixes', 'tags', 'audience'] as const) {
      const { [field]: _dropped, ...partial } = definition('Alpha');
      await expectScopesUnchanged(gateway, () => scopes.update(ids.Alpha!, partial, true), 400, 'invalid_request');
    }
  });

  it('a name another scope of the mapping has, in any letter case, is a conflict', async () => {
    for (const apply of [false, true]) {
      await expectScopesUnchanged(gateway, () => scopes.create({ name: 'alpha' }, apply), 409, 'conflict');
      await expectScopesUnchanged(gateway, () => scopes.create({ name: ' BETA ' }, apply), 409, 'conflict');
      await expectScopesUnchanged(gateway, () => scopes.update(ids.Beta!, definition('ALPHA'), apply), 409, 'conflict');
    }
    // A scope keeps its own name in another letter case.
    const renamed = await scopes.update(ids.Alpha!, definition('ALPHA', { pathPrefixes: ['Alpha/'] }), true);
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.scope.name).toBe('ALPHA');
  });

  /** A real id with its last digit changed (never to itself) and in upper case: a guess next to a real scope. */
  const guessedFrom = (id: string) => (id.slice(0, -1) + (id.endsWith('0') ? '1' : '0')).toUpperCase();

  it('an unknown, malformed or guessed scope id is not_found, the same answer, whatever name it asks for', async () => {
    const answers = [];
    for (const scopeId of [randomUUID(), 'not-a-uuid', guessedFrom(ids.Alpha!)]) {
      for (const apply of [false, true]) {
        // 'Beta' is taken: a guessed id is still not_found, never a conflict.
        answers.push(await expectScopesUnchanged(gateway, () => scopes.update(scopeId, definition('Beta'), apply), 404, 'not_found'));
        answers.push(await expectScopesUnchanged(gateway, () => scopes.remove(scopeId, apply), 404, 'not_found'));
      }
    }
    expect(new Set(answers.map((a) => a.detail)).size).toBe(1);
  });

  it('a missing or malformed mappingId is refused before anything is looked up', async () => {
    await expectScopesUnchanged(gateway, () => api.get('/scopes'), 400, 'invalid_request');
    await expectScopesUnchanged(gateway, () => api.get('/scopes', { query: { mappingId: 'nope' } }), 400, 'invalid_request');
    await expectScopesUnchanged(gateway, () => api.get('/scopes', { query: { mappingId: randomUUID() } }), 404, 'not_found');
    await expectScopesUnchanged(gateway, () => api.delete('/scopes', { query: { mappingId } }), 400, 'invalid_request');
  });

  it('a mapping holds at most 100 scopes: the 101st is a conflict', async () => {
    const other = await createOwner(gateway.services, 'scope-limit');
    for (let k = 0; k < 100; k++) {
      await gateway.services.scopes.create(other.actor, other.mapping.id, definition(`Scope ${k}`) as Parameters<typeof gateway.services.scopes.create>[2]);
    }
    const theirs = scopeRequests(restClient(gateway, other.token), other.mapping.id);
    expect((await theirs.list()).body.scopes).toHaveLength(100);
    for (const apply of [false, true]) {
      await expectScopesUnchanged(gateway, () => theirs.create({ name: 'One more' }, apply), 409, 'conflict');
    }
  });
});
