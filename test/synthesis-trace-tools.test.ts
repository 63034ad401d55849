/**
 * get_living_synthesis and get_execution_trace as an agent calls them (MCP SDK client) and scripts publish sessions
 * (REST): the brief labelled with its review state and built deterministically, no model drafting; sessions
 * published with bounds and idempotency, reconstructed with every gap reason, and nothing readable through a scope
 * or session the caller may not use.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../src/kernel/principal.ts';
import { callTool, connectMcpClient } from './support/mcp-client.ts';
import { useMcpSuite } from './support/mcp-suite.ts';
import { restClient, type RestClient } from './support/rest-client.ts';
import { apply, expectProblem, hashOf, seedNotes } from './support/rest-transactions.ts';

/** A list in a structured result. */
const rows = <T>(value: unknown): T[] => value as T[];

const NOTES: Record<string, string> = {
  'Projects/Plan.md': '# Plan\n\n- [ ] Ship the pilot 📅 2026-12-01\n\n> [!question] Who pays for tiles?\n',
  'Projects/Spec.md': '# Spec\n\nThe spec.\n',
  'Projects/Gone.md': '# Gone soon\n\n- [ ] Vanishing task\n',
  'Private/Secret.md': '# Secret\n\n- [ ] Hidden task\n',
};

describe('living synthesis and execution traces', () => {
  const suite = useMcpSuite('traces');
  let api: RestClient;
  let scopeId: string;
  let otherScopeId: string;
  const mappingId = () => suite.owner.mapping.id;
  const person = (): Actor => ({ accountId: suite.owner.accountId, credentialKind: 'session' });
  const sessions = async () => JSON.stringify(await suite.gateway.db.query('SELECT * FROM trace_sessions ORDER BY id'));
  const publish = (body: Record<string, unknown>, key: string | null = randomUUID(), client = api) =>
    client.post('/traces/sessions', { json: { mappingId: mappingId(), contextScopeId: scopeId, dryRun: false, ...body }, headers: key === null ? {} : { 'idempotency-key': key } });
  /** A refused publish: its problem, and no session stored. */
  async function refused(send: () => ReturnType<typeof publish>, status: number, code: string): Promise<Record<string, unknown>> {
    const before = await sessions();
    const body = expectProblem(await send(), status, code);
    expect(await sessions()).toBe(before);
    return body;
  }
  const step = (summary: string, references: unknown[] = []) => ({ summary, references });

  it('lists both tools with output schemas, read-only', async () => {
    api = restClient(suite.gateway, suite.owner.token);
    await seedNotes(api, mappingId(), NOTES);
    const { services } = suite.gateway;
    scopeId = (await services.scopes.create(person(), mappingId(), { name: 'Projects', pathPrefixes: ['Projects'], tags: [], audience: { minimumRole: 'viewer', agents: true } })).id;
    otherScopeId = (await services.scopes.create(person(), mappingId(), { name: 'Everything', pathPrefixes: [], tags: [], audience: { minimumRole: 'viewer', agents: true } })).id;
    const { tools } = await suite.client.listTools();
    for (const name of ['get_living_synthesis', 'get_execution_trace']) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.outputSchema, name).toBeDefined();
      expect(tool!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    // Nothing accepts, builds or publishes through MCP.
    // Verbs as words of the name: search_published_intelligence reads what was published, it publishes nothing.
    expect(tools.map((t) => t.name).filter((n) => /(^|_)(accept|rebuild|build|publish)(_|$)/.test(n))).toEqual([]);
  });

  it('answers the brief with its review state: unbuilt, then drafts a person built, never trusted until accepted', async () => {
    const first = await suite.call('get_living_synthesis', { mappingId: mappingId(), contextScopeId: scopeId });
    expect(first.isError, JSON.stringify(first.data)).toBe(false);
    expect(first.data).toMatchObject({ method: 'deterministic', modelDrafting: { available: false } });
    expect(rows<{ state: string; build: unknown }>(first.data.sections).map((s) => [s.state, s.build])).toEqual(Array(6).fill(['unbuilt', null]));

    const scope = await suite.gateway.services.scopes.authorize(person(), mappingId(), scopeId);
    await suite.gateway.services.synthesis.rebuild(person(), scope);
    const built = await suite.call('get_living_synthesis', { mappingId: mappingId(), contextScopeId: scopeId, sections: ['open-commitments'] });
    expect(built.data.sections).toHaveLength(1);
    expect(built.data.sections[0]).toMatchObject({ section: 'open-commitments', state: 'draft', trusted: false, build: { method: 'deterministic', acceptedAt: null, truncated: false } });
    expect(rows<{ evidence: { path: string } }>(built.data.sections[0].build.items).map((i) => i.evidence.path)).toEqual(['Projects/Plan.md', 'Projects/Gone.md']);
    // The same answer over REST, from the same operation.
    const rest = await api.get('/knowledge/synthesis', { query: { mappingId: mappingId(), contextScopeId: scopeId } });
    expect(rest.status, rest.text).toBe(200);
    expect((rest.body.sections as unknown[]).length).toBe(6);
  });

  it('refuses malformed, oversized and unkeyed sessions with nothing stored', async () => {
    const good = { sessionId: 'run-1', title: 'Planning run', steps: [step('Read the plan')] };
    await refused(() => publish(good, null), 400, 'idempotency_key_required');
    await refused(() => publish({ ...good, steps: [] }), 400, 'invalid_request');
    await refused(() => publish({ ...good, sessionId: 'has spaces' }), 400, 'invalid_request');
    await refused(() => publish({ ...good, steps: Array.from({ length: 201 }, (_, i) => step(`step ${i}`)) }), 400, 'invalid_request');
    await refused(() => publish({ ...good, steps: [step('x', Array.from({ length: 21 }, () => ({ kind: 'proposal', proposalId: 'p' })))] }), 400, 'invalid_request');
    // 50 steps of 20 references each: 1,000 references; one more is too many.
    const many = Array.from({ length: 50 }, () => step('x', Array.from({ length: 20 }, () => ({ kind: 'proposal', proposalId: 'p' }))));
    await refused(() => publish({ ...good, steps: [...many, step('x', [{ kind: 'proposal', proposalId: 'p' }])] }), 400, 'invalid_request');
    await refused(() => publish({ ...good, steps: [step('x', [{ kind: 'note', path: '../escape.md', revision: 'r' }])] }), 400, 'invalid_request');
    await refused(() => publish({ ...good, steps: [step('x', [{ kind: 'file', path: 'a.md' }])] }), 400, 'invalid_request');
    await refused(() => publish({ ...good, steps: [step('x', [{ kind: 'note', path: 'a.md', revision: 'r', extra: 1 }])] }), 400, 'invalid_request');
    await refused(() => publish({ ...good, startedAt: '2026-11-25T10:00:00Z', endedAt: '2026-11-25T09:00:00Z' }), 400, 'invalid_request');
    await refused(() => publish({ ...good, contextScopeId: randomUUID() }), 404, 'not_found');
  });

  it('publishes once: a retry with the same key replays, the same key with another body or the same session id again is refused', async () => {
    const body = { sessionId: 'run-1', title: 'Planning run', agent: 'claude-code', steps: [step('Read the plan', [{ kind: 'note', path: 'Projects/Plan.md', revision: hashOf(NOTES['Projects/Plan.md']!) }])] };
    // A preview (the default) makes every check and stores nothing.
    const before = await sessions();
    const preview = await api.post('/traces/sessions', { json: { mappingId: mappingId(), contextScopeId: scopeId, ...body } });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ dryRun: true, applied: false, session: { sessionId: 'run-1', stepCount: 1, referenceCount: 1 } });
    expect(await sessions()).toBe(before);
    const key = randomUUID();
    const first = await publish(body, key);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ dryRun: false, applied: true, session: { sessionId: 'run-1', stepCount: 1, referenceCount: 1, publishedByYou: true, agent: 'claude-code' } });
    const stored = await sessions();
    const replay = await publish(body, key);
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(replay.body).toEqual(first.body);
    expect(await sessions()).toBe(stored);
    await refused(() => publish({ ...body, title: 'Another title' }, key), 422, 'idempotency_key_reused');
    await refused(() => publish(body), 409, 'conflict');
    await refused(() => api.post('/traces/sessions', { json: { mappingId: mappingId(), contextScopeId: scopeId, ...body } }), 409, 'conflict');
  });

  it('reconstructs a session with every gap reason, never filling one in', async () => {
    const { services, db } = suite.gateway;
    const plan = hashOf(NOTES['Projects/Plan.md']!);
    const scope = await services.scopes.authorize(person(), mappingId(), scopeId);
    const records = (await services.knowledge.commitments(scope.slice, { limit: 10 })).items;
    const gone = records.find((r) => r.evidence.path === 'Projects/Gone.md')!;
    const ship = records.find((r) => r.evidence.path === 'Projects/Plan.md')!;
    const secret = (await db.query<{ record_id: string }>(`SELECT record_id FROM knowledge_records WHERE path = 'Private/Secret.md'`))[0]!.record_id;
    // Proposals: one in the scope's folder, one outside it, and an id that names none.
    const proposing = (path: string) =>
      services.proposals.propose({ actor: suite.owner.actor, capability: 'direct', mappingId: mappingId(), kind: 'action', title: `Write ${path}`, writes: [{ path, content: '# proposed\n' }], deletions: [] });
    const proposalId = (await proposing('Projects/Proposed.md')).proposal.id;
    const outsideProposalId = (await proposing('Private/Proposed.md')).proposal.id;
    const published = await publish({
      sessionId: 'run-2',
      title: 'Follow-ups',
      steps: [
        step('Read notes', [
          { kind: 'note', path: 'Projects/Plan.md', revision: plan },
          { kind: 'note', path: 'Projects/Spec.md', revision: hashOf(NOTES['Projects/Spec.md']!) },
          { kind: 'note', path: 'Projects/Gone.md', revision: hashOf(NOTES['Projects/Gone.md']!) },
          { kind: 'note', path: 'Private/Secret.md', revision: hashOf(NOTES['Private/Secret.md']!) },
          { kind: 'note', path: 'Projects/Never written.md', revision: 'sha256:0' },
        ]),
        step('Used records', [
          { kind: 'record', recordId: ship.id, revision: plan },
          { kind: 'record', recordId: ship.id, revision: hashOf('# Plan as it was before\n') },
          { kind: 'record', recordId: gone.id },
          { kind: 'record', recordId: secret },
          { kind: 'record', recordId: 'guessed' },
        ]),
        step('Proposed and ran locally', [
          { kind: 'proposal', proposalId },
          { kind: 'proposal', proposalId: outsideProposalId },
          { kind: 'proposal', proposalId: randomUUID() },
          { kind: 'local', label: 'Local test run on the laptop' },
        ]),
      ],
    });
    expect(published.status, published.text).toBe(200);
    // After publishing: the spec changes (stale), the gone note is deleted (not_found, and its record with it).
    const edited = await apply(api, mappingId(), [
      { type: 'write-note', path: 'Projects/Spec.md', content: '# Spec\n\nThe spec, revised.\n', expectedHash: hashOf(NOTES['Projects/Spec.md']!) },
      { type: 'delete-note', path: 'Projects/Gone.md', expectedHash: hashOf(NOTES['Projects/Gone.md']!) },
    ]);
    expect(edited.status, edited.text).toBe(200);

    const trace = await suite.call('get_execution_trace', { mappingId: mappingId(), contextScopeId: scopeId, sessionId: 'run-2' });
    expect(trace.isError, JSON.stringify(trace.data)).toBe(false);
    const outcome = (i: number) => rows<{ status: string; reason: string | null }>(trace.data.steps[i].references).map((r) => [r.status, r.reason]);
    expect(outcome(0)).toEqual([
      ['resolved', null],
      ['gap', 'stale'],
      ['gap', 'not_found'],
      ['gap', 'outside_scope'],
      ['gap', 'not_found'],
    ]);
    expect(trace.data.steps[0].references[1]).toMatchObject({ path: 'Projects/Spec.md', currentRevision: hashOf('# Spec\n\nThe spec, revised.\n') });
    // The note outside the scope is named as published, and nothing of it is read.
    expect(trace.data.steps[0].references[3]).toMatchObject({ path: 'Private/Secret.md', currentRevision: null });
    expect(outcome(1)).toEqual([
      ['resolved', null],
      ['gap', 'stale'],
      ['gap', 'not_found'],
      ['gap', 'not_found'],
      ['gap', 'not_found'],
    ]);
    expect(trace.data.steps[1].references[1]).toMatchObject({ path: 'Projects/Plan.md', recordKind: 'commitment', currentRevision: plan });
    expect(trace.data.steps[1].references[3]).toMatchObject({ path: null, recordKind: null, currentRevision: null });
    expect(outcome(2)).toEqual([
      ['resolved', null],
      ['gap', 'outside_scope'],
      ['gap', 'not_found'],
      ['gap', 'unpublished'],
    ]);
    expect(trace.data.steps[2].references[0]).toMatchObject({ proposalId, proposalState: 'proposed', label: 'Write Projects/Proposed.md' });
    // A proposal outside the scope is named as published: neither its title nor its state is told.
    expect(trace.data.steps[2].references[1]).toMatchObject({ proposalId: outsideProposalId, proposalState: null, label: null });
    expect(trace.data).toMatchObject({ gaps: { not_found: 6, outside_scope: 2, stale: 2, unpublished: 1 }, unresolved: 0, complete: false, truncated: false });

    // A session belongs to the scope it was published into: through another scope of the same mapping it is not_found.
    const wide = await suite.call('get_execution_trace', { mappingId: mappingId(), contextScopeId: otherScopeId, sessionId: 'run-2' });
    expect(wide.data.code).toBe('not_found');

    // Paging over steps.
    const page = await suite.call('get_execution_trace', { mappingId: mappingId(), contextScopeId: scopeId, sessionId: 'run-2', limit: 2 });
    expect(page.data).toMatchObject({ truncated: true, complete: false });
    expect(rows<{ index: number }>(page.data.steps).map((s) => s.index)).toEqual([0, 1]);
    const rest = await suite.call('get_execution_trace', { mappingId: mappingId(), contextScopeId: scopeId, sessionId: 'run-2', cursor: page.data.nextCursor });
    expect(rows<{ index: number }>(rest.data.steps).map((s) => s.index)).toEqual([2]);
    expect(rest.data.nextCursor).toBeNull();

    const listed = await api.get('/traces/sessions', { query: { mappingId: mappingId(), contextScopeId: scopeId } });
    expect(listed.status, listed.text).toBe(200);
    expect((listed.body.sessions as Array<{ sessionId: string }>).map((s) => s.sessionId)).toEqual(['run-2', 'run-1']);
  });

  it('answers not_found for a guessed, foreign or unusable scope or session, and refuses publishing to a viewer', async () => {
    const notFound = { isError: true, data: { code: 'not_found' } };
    const args = { mappingId: mappingId(), contextScopeId: scopeId, sessionId: 'run-2' };
    expect(await suite.call('get_execution_trace', { ...args, sessionId: 'run-3' })).toMatchObject(notFound);
    expect(await suite.call('get_execution_trace', { ...args, contextScopeId: randomUUID() })).toMatchObject(notFound);
    expect(await suite.call('get_execution_trace', { ...args, contextScopeId: 'not-a-uuid' })).toMatchObject(notFound);
    expect(await suite.call('get_living_synthesis', { mappingId: mappingId(), contextScopeId: randomUUID() })).toMatchObject(notFound);

    // Another account: the owner's scope and session are not_found, through MCP and REST alike.
    const { services } = suite.gateway;
    const stranger = await services.onboarding.bootstrapOwner({ email: `stranger-${randomUUID()}@example.test` });
    const theirs = await connectMcpClient(suite.gateway.url, stranger.token);
    try {
      expect(await callTool(theirs, 'get_execution_trace', args)).toMatchObject(notFound);
      expect(await callTool(theirs, 'get_living_synthesis', { mappingId: mappingId(), contextScopeId: scopeId })).toMatchObject(notFound);
      const strangerScope = (await services.scopes.create({ accountId: stranger.accountId, credentialKind: 'session' }, stranger.mapping.id, { name: 'Theirs', pathPrefixes: [], tags: [], audience: { minimumRole: 'viewer', agents: true } })).id;
      // Their own scope with the owner's session id: the session is the owner's scope's, not theirs.
      expect(await callTool(theirs, 'get_execution_trace', { mappingId: stranger.mapping.id, contextScopeId: strangerScope, sessionId: 'run-2' })).toMatchObject(notFound);
    } finally {
      await theirs.close();
    }
    const strangerApi = restClient(suite.gateway, stranger.token);
    await refused(() => publish({ sessionId: 'intruder', title: 'x', steps: [step('x')] }, randomUUID(), strangerApi), 404, 'not_found');

    // A viewer of the workspace reads the traces but may not publish.
    const viewer = await services.onboarding.bootstrapOwner({ email: `viewer-${randomUUID()}@example.test` });
    const { token } = await services.membership.invite(suite.owner.accountId, suite.owner.workspaceId, 'viewer');
    await services.membership.acceptInvitation(viewer.accountId, token);
    const viewerApi = restClient(suite.gateway, viewer.token);
    const read = await viewerApi.get('/traces/session', { query: args });
    expect(read.status, read.text).toBe(200);
    await refused(() => publish({ sessionId: 'viewer-run', title: 'x', steps: [step('x')] }, randomUUID(), viewerApi), 403, 'forbidden');
  });
});
