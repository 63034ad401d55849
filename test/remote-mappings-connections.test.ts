import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_BUDGETS, type ProviderConnection, type RemoteKind } from '../src/domains/providers/index.ts';
import type { Mapping } from '../src/domains/vaults/index.ts';
import type { TestGateway } from './support/gateway.ts';
import {
  REMOTE_KINDS,
  connectProvider,
  newRemoteCaller,
  requestsDuring,
  startProviderFixture,
  startRemoteGateway,
  syncMapping,
  type ProviderFixture,
  type RemoteCaller,
} from './support/remote-gateway.ts';
import { expectProblem, hashOf } from './support/rest-transactions.ts';

/**
 * Provider connections and bounds of remote mappings through the real gateway, against each provider's fake:
 * an expired access token refreshed in the middle of a call, a grant revoked at the provider, a disconnect, a rate
 * limit longer than kgate waits, and the request and traversal bounds. GitHub runs as a GitHub App here, whose user
 * tokens expire and rotate (docs/providers/github.md; such a connection is recorded read only).
 */

const NOTE = '# Status\nAll green.\n';

describe('remote mappings through the gateway: connections and bounds', () => {
  const fixtures = new Map<RemoteKind, ProviderFixture>();
  let gateway: TestGateway;
  let owner: RemoteCaller;

  beforeAll(async () => {
    for (const kind of REMOTE_KINDS) fixtures.set(kind, await startProviderFixture(kind, { githubFlavor: 'github-app' }));
    gateway = await startRemoteGateway([...fixtures.values()]);
    owner = await newRemoteCaller(gateway, 'owner');
  }, 60_000);

  afterAll(async () => {
    await owner?.mcp.close();
    await gateway?.stop();
    for (const fixture of fixtures.values()) await fixture.close();
  });

  describe.each(REMOTE_KINDS)('%s', (kind: RemoteKind) => {
    let fixture: ProviderFixture;
    let connection: ProviderConnection;
    let mapping: Mapping;
    const tokenPath = () => new URL(fixture.env[`KGATE_${kind.toUpperCase()}_TOKEN_URL`]!).pathname;
    // The mapping's root is the folder `main`: its notes' paths are below it.
    const read = (path = 'status.md') => owner.call('get_note_content', { mappingId: mapping.id, path });

    beforeAll(async () => {
      fixture = fixtures.get(kind)!;
      fixture.put('main/status.md', NOTE);
      connection = await connectProvider(gateway, owner.owner.accountId, kind, true);
      mapping = await gateway.services.remoteMappings.create(owner.owner.accountId, {
        workspaceId: owner.owner.workspaceId,
        connectionId: connection.id,
        name: `${kind} main`,
        root: fixture.rootAt('main'),
        allowMcpNoteChanges: true,
      });
      expect((await syncMapping(gateway, mapping.id)).error).toBeUndefined();
    }, 60_000);

    it('an expired access token is refreshed during the call, which succeeds, and the connection keeps its capabilities', async () => {
      const before = await gateway.services.connections.get(owner.owner.accountId, connection.id);
      fixture.expireAccessTokens();
      let first: Awaited<ReturnType<typeof read>> | undefined;
      const sent = await requestsDuring(fixture, async () => {
        first = await read();
      });
      expect(first!.isError, JSON.stringify(first!.data)).toBe(false);
      expect(first!.data).toMatchObject({ content: NOTE, contentHash: hashOf(NOTE) });
      expect(sent.filter((request) => request.method === 'POST' && request.path === tokenPath())).toHaveLength(1);

      // The refreshed grant is the same grant: what it may do has not changed, and the next calls use the new token.
      const after = await gateway.services.connections.get(owner.owner.accountId, connection.id);
      expect(after).toMatchObject({ status: 'active', canRead: before.canRead, canWrite: before.canWrite });
      const again = await read();
      expect(again.isError, JSON.stringify(again.data)).toBe(false);
      const listed = await owner.call('list_vaults', {});
      const summary = (listed.data.vaults as Array<Record<string, unknown>>).find((vault) => vault.mappingId === mapping.id);
      expect(summary).toMatchObject({ readOnly: !before.canWrite, writeAccess: before.canWrite });
    });

    it('a provider rate limit longer than kgate waits answers provider_rate_limited, on a live read and in the sync', async () => {
      fixture.rateLimitNext(1, 120);
      expect(await read()).toMatchObject({ isError: true, data: { code: 'provider_rate_limited', details: { retryAfterSeconds: 120 } } });
      fixture.rateLimitNext(1, 120);
      const byPath = await owner.api.get('/notes/by-path', { query: { mappingId: mapping.id, path: 'status.md' } });
      expectProblem(byPath, 503, 'provider_rate_limited');
      expect(byPath.headers.get('retry-after')).toBe('120');

      fixture.put('main/later.md', '# Later\n');
      fixture.rateLimitNext(1, 120);
      const limited = await gateway.services.sync.syncNow(mapping.id);
      expect(limited).toMatchObject({ ran: true, status: 'rate_limited', error: { code: 'provider_rate_limited' } });
      const report = await gateway.services.sync.report(mapping.id);
      expect(report).toMatchObject({ status: 'rate_limited', lastErrorCode: 'provider_rate_limited' });
      // Nothing was lost: the next step picks the change up.
      expect((await syncMapping(gateway, mapping.id)).error).toBeUndefined();
      expect((await owner.call('search_notes', { mappingId: mapping.id, query: 'later' })).data.results).toMatchObject([{ path: 'later.md' }]);
    });

    it.runIf(kind === 'drive')('a live read over its request budget answers provider_limit_reached with the bound (Drive walks a path folder by folder)', async () => {
      // One folder lookup per level, then the file's: a path this deep needs more requests than one read may send.
      const folders = Array.from({ length: PROVIDER_BUDGETS.read.maxRequests }, (_, i) => `f${i + 1}`);
      const path = `${folders.join('/')}/deep.md`;
      fixture.put(`main/${path}`, '# Deep\n');
      const answer = await owner.call('get_note_content', { mappingId: mapping.id, path });
      expect(answer).toMatchObject({ isError: true, data: { code: 'provider_limit_reached', details: { bound: 'requests' } } });
      const rest = await owner.api.get('/notes/by-path', { query: { mappingId: mapping.id, path } });
      expect(expectProblem(rest, 503, 'provider_limit_reached')).toMatchObject({ bound: 'requests' });
    });

    it('a folder deeper than the traversal bound stops the sync with provider_limit_reached, and the report says why', async () => {
      const levels = Array.from({ length: 14 }, (_, i) => `level${i + 1}`).join('/');
      fixture.put(`deep/${levels}/bottom.md`, '# Bottom\n');
      const deep = await gateway.services.remoteMappings.create(owner.owner.accountId, {
        workspaceId: owner.owner.workspaceId,
        connectionId: connection.id,
        name: `${kind} deep`,
        root: fixture.rootAt('deep'),
      });
      const outcome = await syncMapping(gateway, deep.id);
      expect(outcome.error).toMatchObject({ code: 'provider_limit_reached' });
      expect(outcome.error!.message).toMatch(/deeper than 12/);
      expect(await gateway.services.sync.report(deep.id)).toMatchObject({ status: 'error', lastErrorCode: 'provider_limit_reached' });
    });

    it('a grant revoked at the provider turns calls into provider_disconnected and the connection shows revoked', async () => {
      fixture.revokeAll();
      expect(await read()).toMatchObject({ isError: true, data: { code: 'provider_disconnected' } });
      expect(await gateway.services.connections.get(owner.owner.accountId, connection.id)).toMatchObject({ status: 'revoked' });
      // The synchronized copy is not vault authority on its own: search refuses too, and the mapping reads read-only.
      expect(await owner.call('search_notes', { mappingId: mapping.id, query: 'green' })).toMatchObject({ isError: true, data: { code: 'provider_disconnected' } });
      expectProblem(await owner.api.get('/notes', { query: { mappingId: mapping.id } }), 409, 'provider_disconnected');
    });

    it('disconnecting revokes the grant at the provider and the mapping stops answering', async () => {
      fixture.put('again/status.md', NOTE);
      // Connecting the same provider account again revives its connection: the mapping made before the revocation
      // answers again, without being made anew.
      const again = await connectProvider(gateway, owner.owner.accountId, kind, true);
      expect(again).toMatchObject({ id: connection.id, status: 'active' });
      const revived = await read();
      expect(revived.isError, JSON.stringify(revived.data)).toBe(false);
      const second = await gateway.services.remoteMappings.create(owner.owner.accountId, {
        workspaceId: owner.owner.workspaceId,
        connectionId: again.id,
        name: `${kind} again`,
        root: fixture.rootAt('again'),
      });
      expect((await syncMapping(gateway, second.id)).error).toBeUndefined();
      expect((await owner.call('get_note_content', { mappingId: second.id, path: 'status.md' })).isError).toBe(false);
      expect(fixture.liveGrants()).toBe(1);

      const disconnected = await gateway.services.connections.disconnect(owner.owner.accountId, again.id);
      expect(disconnected).toMatchObject({ status: 'revoked' });
      expect(fixture.liveGrants()).toBe(0);
      expect(await owner.call('get_note_content', { mappingId: second.id, path: 'status.md' })).toMatchObject({ isError: true, data: { code: 'provider_disconnected' } });
      expect(await owner.call('search_notes', { mappingId: second.id, query: 'green' })).toMatchObject({ isError: true, data: { code: 'provider_disconnected' } });
    });
  });
});
