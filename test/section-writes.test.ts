import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { callTool, connectMcpClient } from './support/mcp-client.ts';
import { notePathUrl, restClient, snapshotOf, type ApiResponse, type RestClient } from './support/rest-client.ts';
import { expectRejected, hashOf } from './support/rest-transactions.ts';

// Section-level writes (docs/api.md#section-level-writes) over real HTTP: REST transactions and single-note writes,
// the MCP write tools, create_or_append_note and proposals. Only the target's bytes change; refusals change nothing.

type Target =
  | { type: 'heading'; heading: string; mode: 'replace' | 'append' }
  | { type: 'block'; blockId: string }
  | { type: 'frontmatter'; key: string };

interface Result {
  actions: Array<{
    status: string;
    path: string;
    beforeRevision: string | null;
    afterRevision: string | null;
    diff?: string;
    resultContent?: string;
    problem?: { code: string; detail: string; details?: Record<string, unknown> };
  }>;
  receipt?: { id: string };
  previewReceipt?: { id: string } | null;
}

const NOTE = [
  '---',
  'title:   "Plan"   # the title',
  'status: draft',
  '---',
  '# Plan',
  'Intro ^intro',
  '',
  '## Tasks',
  '- [ ] write ^t1',
  '- [ ] ship ^t2',
  '',
  '```md',
  '## Notes',
  '```',
  '## Notes',
  'old notes',
  '# Archive',
  '## Tasks',
  'done',
].join('\r\n');

describe('section-level writes', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let agent: Client;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'sections');
    api = restClient(gateway, owner.token);
    agent = await connectMcpClient(gateway.url, owner.token);
  });
  afterAll(async () => {
    await agent?.close();
    await gateway?.stop();
  });

  const mappingId = () => owner.mapping.id;
  const write = (path: string, content: string, target?: Target, expectedHash?: string) => ({
    type: 'write-note' as const,
    path,
    content,
    ...(target ? { target } : {}),
    ...(expectedHash ? { expectedHash } : {}),
  });
  const previewRest = (actions: unknown[]) => api.post<Result>('/transactions', { json: { mappingId: mappingId(), actions } });
  const applyRest = (actions: unknown[]): Promise<ApiResponse<Result>> =>
    api.post<Result>('/transactions', { json: { mappingId: mappingId(), dryRun: false, actions }, headers: { 'idempotency-key': randomUUID() } });
  const read = async (path: string) => {
    const response = await api.get<{ content: string; contentHash: string }>(notePathUrl(path), { query: { mappingId: mappingId() } });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const seed = async (path: string, content: string) => {
    const response = await applyRest([write(path, content)]);
    expect(response.status, response.text).toBe(200);
    return hashOf(content);
  };

  it('REST: previews the whole resulting note and its diff, applies it, and keeps every other byte (CRLF, frontmatter, no trailing newline)', async () => {
    const hash = await seed('Sections/plan.md', NOTE);
    const target: Target = { type: 'heading', heading: 'Plan > Tasks', mode: 'replace' };
    // The section ends at the next real heading of its level (the fenced one is code): its sibling ## Notes stays.
    const expected = NOTE.replace('- [ ] write ^t1\r\n- [ ] ship ^t2\r\n\r\n```md\r\n## Notes\r\n```\r\n', '- [x] all done\r\n');
    const shown = await previewRest([write('Sections/plan.md', '- [x] all done\n', target)]);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.actions[0]).toMatchObject({ status: 'update', beforeRevision: hash, afterRevision: hashOf(expected), resultContent: expected });
    expect(shown.body.actions[0]!.diff).toContain('+- [x] all done');

    const applied = await applyRest([write('Sections/plan.md', '- [x] all done\n', target, hash)]);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.previewReceipt).toMatchObject({ id: shown.body.receipt!.id });
    expect(applied.body.actions[0]).toMatchObject({ status: 'update', afterRevision: hashOf(expected) });
    expect(applied.body.actions[0]!.resultContent).toBeUndefined();
    expect(await read('Sections/plan.md')).toEqual(expect.objectContaining({ content: expected, contentHash: hashOf(expected) }));

    // A block and a frontmatter key in one transaction with another note: still one whole-note write each.
    const other = await seed('Sections/other.md', 'Other ^o\n');
    const both = await applyRest([
      write('Sections/plan.md', 'Introduction', { type: 'block', blockId: 'intro' }, hashOf(expected)),
      write('Sections/other.md', 'Changed', { type: 'block', blockId: 'o' }, other),
    ]);
    expect(both.status, both.text).toBe(200);
    expect((await read('Sections/plan.md')).content).toBe(expected.replace('Intro ^intro', 'Introduction ^intro'));
    expect((await read('Sections/other.md')).content).toBe('Changed ^o\n');

    const now = await read('Sections/plan.md');
    const status = await api.post<Result>('/notes', {
      json: { mappingId: mappingId(), path: 'Sections/plan.md', content: 'done', target: { type: 'frontmatter', key: 'status' }, dryRun: false, expectedHash: now.contentHash },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(status.status, status.text).toBe(200);
    expect((await read('Sections/plan.md')).content).toBe(now.content.replace('status: draft', 'status: done'));
  });

  it('REST: refuses a missing hash, note, heading or block, an ambiguous heading, a stale hash, a bad value or target, changing nothing', async () => {
    const hash = await seed('Sections/refuse.md', NOTE);
    const heading = (h: string): Target => ({ type: 'heading', heading: h, mode: 'append' });
    const refusals: Array<[() => Promise<ApiResponse<unknown>>, number, string]> = [
      [() => applyRest([write('Sections/refuse.md', 'x', heading('Plan'))]), 428, 'precondition_required'],
      [() => applyRest([write('Sections/missing.md', 'x', heading('Plan'), hash)]), 404, 'not_found'],
      [() => applyRest([write('Sections/refuse.md', 'x', heading('Nope'), hash)]), 422, 'target_not_found'],
      [() => applyRest([write('Sections/refuse.md', 'x', { type: 'block', blockId: 'nope' }, hash)]), 422, 'target_not_found'],
      [() => applyRest([write('Sections/refuse.md', 'x', heading('Tasks'), hash)]), 422, 'target_ambiguous'],
      [() => applyRest([write('Sections/refuse.md', 'x', heading('Plan'), hashOf('other'))]), 412, 'stale_revision'],
      [() => applyRest([write('Sections/refuse.md', 'a: [', { type: 'frontmatter', key: 'status' }, hash)]), 400, 'invalid_request'],
      [() => applyRest([write('Sections/refuse.md', 'x', { type: 'heading', heading: 'Plan' } as unknown as Target, hash)]), 400, 'invalid_request'],
      [() => applyRest([write('Sections/refuse.md', 'x', { type: 'block', blockId: '^t1' }, hash)]), 400, 'invalid_request'],
    ];
    const bodies: Array<Record<string, unknown>> = [];
    for (const [send, status, code] of refusals) bodies.push(await expectRejected(gateway, send, status, code));
    expect(bodies[2]).toMatchObject({ target: heading('Nope') });
    expect(bodies[4]).toMatchObject({ target: heading('Tasks'), matches: [8, 18] });
    expect((await read('Sections/refuse.md')).content).toBe(NOTE);

    // A preview reports the same problems per action, and writes nothing either.
    const before = await snapshotOf(gateway);
    const shown = await previewRest([write('Sections/refuse.md', 'x', heading('Tasks'))]);
    expect(shown.body.actions[0]).toMatchObject({ status: 'conflict', problem: { code: 'target_ambiguous', details: { matches: [8, 18] } } });
    expect(await snapshotOf(gateway)).toBe(before);
    expect((await read('Sections/refuse.md')).content).toBe(NOTE);
  });

  it('MCP: two agents edit different sections of one note in turn; a stale second apply is stale_revision', async () => {
    const other = await gateway.services.tokens.issueToken({ accountId: owner.accountId, name: 'second agent' });
    const second = await connectMcpClient(gateway.url, other.token);
    try {
      const hash = await seed('Sections/shared.md', NOTE);
      const first = { path: 'Sections/shared.md', content: 'first agent\n', target: { type: 'heading', heading: 'Archive', mode: 'append' } };
      const secondEdit = { path: 'Sections/shared.md', content: 'second agent', target: { type: 'heading', heading: 'Plan > Notes', mode: 'replace' } };
      const shownA = await callTool(agent, 'preview_note_writes', { mappingId: mappingId(), notes: [first] });
      const shownB = await callTool(second, 'preview_note_writes', { mappingId: mappingId(), notes: [secondEdit] });
      expect(shownA.data.actions[0]).toMatchObject({ beforeRevision: hash, resultContent: `${NOTE}\r\nfirst agent` });
      expect(shownB.data.actions[0]).toMatchObject({ beforeRevision: hash });
      const appliedA = await callTool(agent, 'apply_note_writes', { mappingId: mappingId(), notes: [{ ...first, expectedHash: hash }], idempotencyKey: randomUUID() });
      expect(appliedA.isError, JSON.stringify(appliedA.data)).toBe(false);

      const before = await snapshotOf(gateway);
      const stale = await callTool(second, 'apply_note_writes', { mappingId: mappingId(), notes: [{ ...secondEdit, expectedHash: hash }], idempotencyKey: randomUUID() });
      expect(stale).toMatchObject({ isError: true, data: { code: 'stale_revision' } });
      expect(await snapshotOf(gateway)).toBe(before);

      const again = await callTool(second, 'preview_note_writes', { mappingId: mappingId(), notes: [secondEdit] });
      const current = again.data.actions[0].beforeRevision as string;
      expect(current).toBe(appliedA.data.actions[0].afterRevision);
      const appliedB = await callTool(second, 'apply_note_writes', { mappingId: mappingId(), notes: [{ ...secondEdit, expectedHash: current }], idempotencyKey: randomUUID() });
      expect(appliedB.isError, JSON.stringify(appliedB.data)).toBe(false);
      expect(appliedB.data.previewReceipt).toMatchObject({ id: again.data.receipt.id });
      expect((await read('Sections/shared.md')).content).toBe(`${NOTE.replace('old notes\r\n', 'second agent\r\n')}\r\nfirst agent`);

      const refused = await callTool(agent, 'apply_note_writes', {
        mappingId: mappingId(),
        notes: [{ path: 'Sections/shared.md', content: 'x', target: { type: 'heading', heading: 'Tasks', mode: 'replace' }, expectedHash: appliedB.data.actions[0].afterRevision }],
        idempotencyKey: randomUUID(),
      });
      expect(refused).toMatchObject({ isError: true, data: { code: 'target_ambiguous', details: { matches: [8, 18] } } });
    } finally {
      await second.close();
    }
  });

  it('MCP: create_or_append_note appends under a heading; propose_action stores the whole note the target makes', async () => {
    const hash = await seed('Sections/log.md', '# Log\n- one\n\n# Later\n');
    const target = { type: 'heading', heading: 'Log', mode: 'append' };
    const shown = await callTool(agent, 'create_or_append_note', { mappingId: mappingId(), path: 'Sections/log.md', content: '- two', target });
    expect(shown.data.actions[0]).toMatchObject({ status: 'update', resultContent: '# Log\n- one\n- two\n\n# Later\n' });
    const applied = await callTool(agent, 'create_or_append_note', {
      mappingId: mappingId(),
      path: 'Sections/log.md',
      content: '- two',
      target,
      dryRun: false,
      expectedHash: hash,
      idempotencyKey: randomUUID(),
    });
    expect(applied.isError, JSON.stringify(applied.data)).toBe(false);
    const now = await read('Sections/log.md');
    expect(now.content).toBe('# Log\n- one\n- two\n\n# Later\n');

    const proposed = await callTool(agent, 'propose_action', {
      mappingId: mappingId(),
      title: 'Fill the later section',
      notes: [{ path: 'Sections/log.md', content: 'soon', target: { type: 'heading', heading: 'Later', mode: 'replace' } }],
    });
    expect(proposed.isError, JSON.stringify(proposed.data)).toBe(false);
    expect(proposed.data.proposal.actions).toEqual([
      { type: 'write-note', path: 'Sections/log.md', content: '# Log\n- one\n- two\n\n# Later\nsoon\n', expectedHash: now.contentHash },
    ]);
    // Nothing applied until a person approves it; then exactly the stored note.
    expect((await read('Sections/log.md')).content).toBe(now.content);
    const person = { accountId: owner.accountId, credentialKind: 'session' as const, credentialId: randomUUID() };
    await gateway.services.proposals.approve(person, mappingId(), proposed.data.proposal.id as string);
    const executed = await gateway.services.proposals.execute(person, mappingId(), proposed.data.proposal.id as string);
    expect(executed.state).toBe('executed');
    expect((await read('Sections/log.md')).content).toBe('# Log\n- one\n- two\n\n# Later\nsoon\n');
  });
});
