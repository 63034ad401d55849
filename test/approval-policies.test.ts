import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { callTool, connectMcpClient } from './support/mcp-client.ts';
import { restClient, snapshotOf, type RestClient } from './support/rest-client.ts';

// Preview receipts and the owner's approval policy (docs/proposals.md), through the real surfaces: every preview
// answers a receipt, every apply names the preview it matched, and under preview-first or people-approve an apply
// that the server cannot show was previewed (or, for agents, approved by a person) is refused with nothing changed.
describe('approval the server can show', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let agent: Client;
  let base: string;

  interface Result {
    actions: Array<{ status: string; path: string; beforeRevision: string | null; afterRevision: string | null }>;
    receipt?: { id: string; notesHash: string; againstHash: string; previewedAgainst: Array<{ path: string; revision: string | null }> };
    previewReceipt?: { id: string; previewedAt: string } | null;
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    base = gateway.url;
    owner = await createOwner(gateway.services, 'policies');
    api = restClient(gateway, owner.token);
    agent = await connectMcpClient(base, owner.token);
  });
  afterAll(async () => {
    await agent.close();
    await gateway.stop();
  });

  const mappingId = () => owner.mapping.id;
  const setPolicy = (policy: 'open' | 'preview-first' | 'people-approve') => gateway.services.vaults.setApprovalPolicy(owner.accountId, owner.mapping.id, policy);
  const preview = (path: string, content: string, over: { api?: RestClient; expectedHash?: string } = {}) =>
    (over.api ?? api).post<Result>('/notes', { json: { mappingId: mappingId(), path, content, dryRun: true, ...(over.expectedHash ? { expectedHash: over.expectedHash } : {}) } });
  const applyRest = (path: string, content: string, over: { api?: RestClient; expectedHash?: string } = {}) =>
    (over.api ?? api).post<Result & { code?: string; detail?: string }>('/notes', {
      json: { mappingId: mappingId(), path, content, dryRun: false, ...(over.expectedHash ? { expectedHash: over.expectedHash } : {}) },
      headers: { 'idempotency-key': randomUUID() },
    });
  const eventsFor = async (path: string) =>
    gateway.db.query<{ kind: string; details: Record<string, unknown> }>(
      `SELECT kind, details FROM provenance_events WHERE mapping_id = $1 AND path = $2 ORDER BY seq`,
      [mappingId(), path],
    );

  it('answers every preview with a receipt, and names the matched preview in the apply and its events (policy open)', async () => {
    const shown = await preview('Receipts/one.md', '# One\n');
    expect(shown.status).toBe(200);
    expect(shown.body.receipt).toMatchObject({
      id: expect.any(String),
      notesHash: expect.stringMatching(/^sha256:/),
      againstHash: expect.stringMatching(/^sha256:/),
      previewedAgainst: [{ path: 'Receipts/one.md', revision: null }],
    });
    const applied = await applyRest('Receipts/one.md', '# One\n');
    expect(applied.status).toBe(200);
    expect(applied.body.previewReceipt).toMatchObject({ id: shown.body.receipt!.id });
    expect(await eventsFor('Receipts/one.md')).toMatchObject([{ kind: 'note.created', details: { previewReceipt: shown.body.receipt!.id } }]);
    // Under the default policy an apply with no preview still applies (the spec's REST scripts), and says so.
    const unpreviewed = await applyRest('Receipts/two.md', '# Two\n');
    expect(unpreviewed.status).toBe(200);
    expect(unpreviewed.body.previewReceipt).toBeNull();
  });

  it('preview-first: refuses an apply with no preview, another credential\'s preview, a changed array, changed revisions or an old preview; applies a matching one', async () => {
    await setPolicy('preview-first');
    try {
      const other = await gateway.services.tokens.issueToken({ accountId: owner.accountId, name: 'other script' });
      const otherApi = restClient(gateway, other.token);
      const before = await snapshotOf(gateway);
      const refusals = [
        await applyRest('Policy/none.md', '# none\n'),
        await (async () => {
          await preview('Policy/other.md', '# other\n', { api: otherApi });
          return applyRest('Policy/other.md', '# other\n');
        })(),
        await (async () => {
          await preview('Policy/array.md', '# previewed\n');
          return applyRest('Policy/array.md', '# something else\n');
        })(),
        await (async () => {
          await preview('Policy/old.md', '# old\n');
          await gateway.db.query(`UPDATE preview_receipts SET created_at = created_at - interval '31 minutes' WHERE mapping_id = $1`, [mappingId()]);
          return applyRest('Policy/old.md', '# old\n');
        })(),
      ];
      for (const refused of refusals) expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 428, code: 'preview_required' });
      expect(await snapshotOf(gateway)).toBe(before);

      // A note changed between the preview and the apply: the preview no longer matches what is applied against.
      await preview('Policy/moving.md', '# v1\n');
      const seed = await applyRest('Policy/moving.md', '# v1\n');
      expect(seed.status).toBe(200);
      const v1 = seed.body.actions[0]!.afterRevision!;
      await preview('Policy/moving.md', '# v2\n', { expectedHash: v1 });
      await preview('Policy/moving.md', '# by someone\n', { api: otherApi, expectedHash: v1 });
      expect((await applyRest('Policy/moving.md', '# by someone\n', { api: otherApi, expectedHash: v1 })).status).toBe(200);
      const current = (await gateway.db.query<{ content_hash: string }>(`SELECT content_hash FROM notes WHERE path = 'Policy/moving.md'`))[0]!.content_hash;
      const stale = await applyRest('Policy/moving.md', '# v2\n', { expectedHash: current });
      expect({ status: stale.status, code: stale.body.code }).toEqual({ status: 428, code: 'preview_required' });

      const shown = await preview('Policy/yes.md', '# yes\n');
      const applied = await applyRest('Policy/yes.md', '# yes\n');
      expect(applied.status).toBe(200);
      expect(applied.body.previewReceipt?.id).toBe(shown.body.receipt!.id);
    } finally {
      await setPolicy('open');
    }
  });

  it('preview-first holds for agents too: apply_note_writes needs its preview_note_writes first', async () => {
    await setPolicy('preview-first');
    try {
      const notes = [{ path: 'Agents/a.md', content: '# a\n' }];
      const refused = await callTool(agent, 'apply_note_writes', { mappingId: mappingId(), notes, idempotencyKey: randomUUID() });
      expect(refused).toMatchObject({ isError: true, data: { code: 'preview_required' } });
      const shown = await callTool(agent, 'preview_note_writes', { mappingId: mappingId(), notes });
      expect(shown.data.receipt).toMatchObject({ id: expect.any(String) });
      const applied = await callTool(agent, 'apply_note_writes', { mappingId: mappingId(), notes, idempotencyKey: randomUUID() });
      expect(applied).toMatchObject({ isError: false, data: { applied: true, previewReceipt: { id: shown.data.receipt.id } } });
    } finally {
      await setPolicy('open');
    }
  });

  it('people-approve: an agent\'s direct apply is refused naming propose_action, even after a preview; its proposal is how it changes notes', async () => {
    await setPolicy('people-approve');
    try {
      const notes = [{ path: 'Agents/approved.md', content: '# approved\n' }];
      await callTool(agent, 'preview_note_writes', { mappingId: mappingId(), notes });
      const before = await snapshotOf(gateway);
      const refused = await callTool(agent, 'apply_note_writes', { mappingId: mappingId(), notes, idempotencyKey: randomUUID() });
      expect(refused).toMatchObject({ isError: true, data: { code: 'approval_required', details: { use: 'propose_action' } } });
      const appended = await callTool(agent, 'create_or_append_note', { mappingId: mappingId(), path: 'Agents/approved.md', content: '# approved\n', dryRun: false, idempotencyKey: randomUUID() });
      expect(appended).toMatchObject({ isError: true, data: { code: 'approval_required' } });
      expect(await snapshotOf(gateway)).toBe(before);
      const vaults = await callTool(agent, 'list_vaults', {});
      expect(vaults.data.vaults[0]).toMatchObject({ approvalPolicy: 'people-approve' });

      const proposed = await callTool(agent, 'propose_action', { mappingId: mappingId(), title: 'Add the approved note', notes });
      expect(proposed).toMatchObject({ isError: false, data: { created: true, proposal: { state: 'proposed' }, reviewUrl: expect.stringContaining('/proposals/') } });
      const id = proposed.data.proposal.id as string;
      const person = { accountId: owner.accountId, credentialKind: 'session' as const, credentialId: randomUUID() };
      await gateway.services.proposals.approve(person, mappingId(), id);
      const executed = await gateway.services.proposals.execute(person, mappingId(), id);
      expect(executed.state).toBe('executed');
      expect(await eventsFor('Agents/approved.md')).toMatchObject([{ kind: 'note.created' }]);

      // A script's personal token under people-approve: it may apply what it previewed (scripts are not agents).
      await preview('Scripts/s.md', '# s\n');
      expect((await applyRest('Scripts/s.md', '# s\n')).status).toBe(200);
      expect((await applyRest('Scripts/t.md', '# t\n')).body.code).toBe('preview_required');
    } finally {
      await setPolicy('open');
    }
  });

  it('refuses malformed, oversized, foreign and guessed proposal requests over REST with a stable code, storing nothing', async () => {
    const proposals = async () => JSON.stringify(await gateway.db.query('SELECT * FROM action_proposals ORDER BY seq'));
    const before = [await proposals(), await snapshotOf(gateway)];
    const stranger = await createOwner(gateway.services, 'stranger');
    const cases: Array<[Promise<{ status: number; body: Record<string, unknown> }>, number, string]> = [
      [api.post('/proposals', { json: { mappingId: mappingId(), title: 'Nothing' } }), 400, 'invalid_request'],
      [api.post('/proposals', { json: { mappingId: mappingId(), title: '', notes: [{ path: 'P/a.md', content: 'a' }] } }), 400, 'invalid_request'],
      [
        api.post('/proposals', {
          json: {
            mappingId: mappingId(),
            title: 'Too many',
            notes: Array.from({ length: 60 }, (_, k) => ({ path: `P/w${k}.md`, content: 'w' })),
            deletions: Array.from({ length: 41 }, (_, k) => ({ path: `P/d${k}.md` })),
          },
        }),
        400,
        'invalid_request',
      ],
      [api.post('/proposals/knowledge-change', { json: { mappingId: mappingId(), title: 'No scope', notes: [{ path: 'P/a.md', content: 'a' }] } }), 400, 'invalid_request'],
      [restClient(gateway, stranger.token).post('/proposals', { json: { mappingId: mappingId(), title: 'Theirs', notes: [{ path: 'P/a.md', content: 'a' }] } }), 404, 'not_found'],
      [api.get('/proposals', { query: { mappingId: mappingId(), state: 'proposed,bogus' } }), 400, 'invalid_request'],
      [api.get('/proposals/item', { query: { mappingId: mappingId(), id: randomUUID() } }), 404, 'not_found'],
      [api.get('/proposals/item', { query: { mappingId: mappingId(), id: 'not-an-id' } }), 404, 'not_found'],
      [restClient(gateway, stranger.token).get('/proposals', { query: { mappingId: mappingId() } }), 404, 'not_found'],
    ];
    for (const [request, status, code] of cases) {
      const response = await request;
      expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
    }
    expect([await proposals(), await snapshotOf(gateway)]).toEqual(before);
  });

  it('lets only the owner set the policy, and only to one of the three', async () => {
    const admin = await createOwner(gateway.services, 'admin');
    await gateway.services.workspaces.setMemberRole(owner.workspaceId, admin.accountId, 'admin');
    await expect(gateway.services.vaults.setApprovalPolicy(admin.accountId, mappingId(), 'people-approve')).rejects.toMatchObject({ code: 'not_found' });
    await expect(gateway.services.vaults.setApprovalPolicy(owner.accountId, mappingId(), 'everyone' as 'open')).rejects.toMatchObject({ code: 'invalid_request' });
    const mapping = await gateway.services.vaults.resolveMapping(owner.accountId, mappingId(), 'read');
    expect(mapping.approvalPolicy).toBe('open');
  });
});
