/**
 * The scope-bound knowledge reads, as an agent calls them: listed with their output schemas (the MCP SDK client
 * validates every structured result against them), answering only through a context scope the caller may use now,
 * bounded, and never treating a decision found in a note as decided until a person confirms it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../src/kernel/principal.ts';
import { createOwner } from './support/fixtures.ts';
import { callTool, connectMcpClient, type Structured } from './support/mcp-client.ts';
import { useMcpSuite } from './support/mcp-suite.ts';
import { restClient } from './support/rest-client.ts';
import { apply, hashOf, seedNotes } from './support/rest-transactions.ts';

/** A list in a structured result. */
const rows = <T = Structured>(value: unknown): T[] => value as T[];

const NOTES = {
  'Decisions/Use SQLite.md':
    '---\ntype: decision\nstatus: accepted\ndecided: 2026-01-10\nsubject: Storage\nsupersedes: "[[Use CouchDB]]"\n---\n# Use SQLite on the device\n\nWe chose it.\n',
  'Decisions/Use CouchDB.md': '---\ntype: decision\nstatus: superseded\ndecided: 2025-06-01\n---\n# Use CouchDB\n',
  'Projects/Review.md':
    '# Review\n\n> [!decision] Ship offline first\n> The numbers in [[Benchmarks#^result]] and [[Secret plan]] say so.\n^ship\n\n' +
    '> [!question] Do we need CRDTs?\n\n- [ ] Write the migration [owner:: [[Ana Ruiz]]] 📅 2026-12-01\n- [ ] Undated follow-up\n- [x] Closed task 📅 2026-11-01\n',
  'Projects/Benchmarks.md': '# Benchmarks\n\nA full sync takes 2 s offline. ^result\n',
  'Entities/Tidewater.md': '---\ntype: project\nid: tidewater\nstatus: planning\nvalid_from: 2026-01-01\n---\n# Tidewater\n',
  'Private/Secret plan.md': '# Secret plan\n\n- [ ] Hidden commitment 📅 2026-01-01\n\n> [!question] Hidden question?\n',
};

describe('knowledge tools', () => {
  const suite = useMcpSuite('knowledge');
  const { call } = suite;
  let scopeId: string;
  let peopleOnlyId: string;
  let hashes: Record<string, string>;
  const args = (extra: Record<string, unknown> = {}) => ({ mappingId: suite.owner.mapping.id, contextScopeId: scopeId, ...extra });
  const session = (): Actor => ({ accountId: suite.owner.accountId, credentialKind: 'session' });
  const reviews = async () => (await suite.gateway.db.query('SELECT * FROM decision_reviews ORDER BY id')).length;

  it('are listed with output schemas and read-only annotations, once scopes exist to use', async () => {
    hashes = await seedNotes(restClient(suite.gateway, suite.owner.token), suite.owner.mapping.id, NOTES);
    const { services } = suite.gateway;
    const owner = suite.owner.actor;
    scopeId = (
      await services.scopes.create(owner, suite.owner.mapping.id, {
        name: 'Tidewater',
        pathPrefixes: ['Decisions', 'Projects', 'Entities'],
        tags: [],
        audience: { minimumRole: 'viewer', agents: true },
      })
    ).id;
    peopleOnlyId = (
      await services.scopes.create(owner, suite.owner.mapping.id, { name: 'People only', pathPrefixes: [], tags: [], audience: { minimumRole: 'viewer', agents: false } })
    ).id;
    const { tools } = await suite.client.listTools();
    const names = ['get_intelligence_capabilities', 'get_decisions', 'get_decision_evidence', 'get_temporal_records', 'get_changes', 'get_open_questions', 'get_commitments'];
    for (const name of names) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.outputSchema, name).toBeDefined();
      expect(tool!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    // Nothing that confirms, rejects or supersedes a decision is a tool.
    expect(tools.map((t) => t.name).filter((n) => /confirm|supersede|^review|_review/.test(n))).toEqual([]);
  });

  it('tells the caller which scopes they may use: a people-only scope is not offered to a token', async () => {
    const result = await call('get_intelligence_capabilities', { mappingId: suite.owner.mapping.id });
    expect(result.isError).toBe(false);
    expect(rows<{ contextScopeId: string }>(result.data.scopes).map((s) => s.contextScopeId)).toEqual([scopeId]);
    expect(result.data.semantic).toMatchObject({ method: 'lexical', embeddingModel: null });
    // The owner's own token through MCP on a mapping that allows agents' changes: both proposal tools are available.
    expect(rows<{ tool: string; available: boolean }>(result.data.proposals).map((p) => [p.tool, p.available])).toEqual([
      ['propose_knowledge_change', true],
      ['propose_action', true],
    ]);
  });

  it('returns decisions from notes only as labelled candidates until a person confirms one', async () => {
    const first = await call('get_decisions', args());
    expect(first.isError).toBe(false);
    expect(rows<{ title: string; status: string; candidate: boolean }>(first.data.decisions).map((d) => [d.title, d.status, d.candidate])).toEqual([
      ['Use CouchDB', 'candidate', true],
      ['Use SQLite on the device', 'candidate', true],
      ['Ship offline first', 'candidate', true],
    ]);
    const sqlite = first.data.decisions[1];
    expect(sqlite).toMatchObject({ statusInNote: 'accepted', validFrom: '2026-01-10', subject: 'Storage', review: null });
    expect(sqlite.evidence).toMatchObject({ path: 'Decisions/Use SQLite.md', revision: hashes['Decisions/Use SQLite.md'], lines: [1, 7] });
    expect(typeof sqlite.knownFrom).toBe('string');

    // An agent's credential cannot confirm, whatever its role: nothing is recorded.
    const { slice, role } = await suite.gateway.services.scopes.authorize(session(), suite.owner.mapping.id, scopeId);
    await expect(
      suite.gateway.services.knowledge.reviewDecision({ actor: suite.owner.actor, role, slice, recordId: sqlite.id, verdict: 'confirmed' }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    expect(await reviews()).toBe(0);
    // A person at the workspace does.
    const confirmed = await suite.gateway.services.knowledge.reviewDecision({ actor: session(), role, slice, recordId: sqlite.id, verdict: 'confirmed', comment: 'Agreed in review' });
    expect(confirmed).toMatchObject({ status: 'confirmed', candidate: false, review: { verdict: 'confirmed', comment: 'Agreed in review' } });
    const couch = first.data.decisions[0];
    await suite.gateway.services.knowledge.reviewDecision({ actor: session(), role, slice, recordId: couch.id, verdict: 'superseded', supersededBy: sqlite.id });

    const onlyDecided = await call('get_decisions', args({ statuses: ['confirmed', 'superseded'] }));
    expect(rows<{ title: string; status: string }>(onlyDecided.data.decisions).map((d) => [d.title, d.status])).toEqual([
      ['Use CouchDB', 'superseded'],
      ['Use SQLite on the device', 'confirmed'],
    ]);
    expect(onlyDecided.data.decisions[0].validUntil).toEqual(expect.any(String));
  });

  it('makes an edited decision a candidate again, and an agent writing "accepted" confirms nothing', async () => {
    const api = restClient(suite.gateway, suite.owner.token);
    const path = 'Decisions/Use SQLite.md';
    const edited = NOTES[path].replace('subject: Storage', 'subject: Storage and sync');
    expect((await apply(api, suite.owner.mapping.id, [{ type: 'write-note', path, content: edited, expectedHash: hashes[path]! }])).status).toBe(200);
    hashes[path] = hashOf(edited);
    const decisions = await call('get_decisions', args());
    const sqlite = rows<{ title: string }>(decisions.data.decisions).find((d) => d.title === 'Use SQLite on the device');
    expect(sqlite).toMatchObject({ status: 'candidate', candidate: true, statusInNote: 'accepted', review: null });
    const confirmed = await call('get_decisions', args({ statuses: ['confirmed'] }));
    expect(confirmed.data.decisions).toEqual([]);
  });

  it("shows a decision's evidence where the scope reaches, and withholds the rest", async () => {
    const { data } = await call('get_decisions', args());
    const ship = rows<{ id: string; title: string }>(data.decisions).find((d) => d.title === 'Ship offline first')!;
    const evidence = await call('get_decision_evidence', args({ decisionId: ship.id }));
    expect(evidence.isError, JSON.stringify(evidence.data)).toBe(false);
    expect(evidence.data.source.text).toContain('[!decision] Ship offline first');
    expect(evidence.data.citations).toEqual([
      expect.objectContaining({ path: 'Projects/Benchmarks.md', blockId: 'result', source: expect.objectContaining({ text: expect.stringContaining('2 s offline') }) }),
    ]);
    expect(evidence.data.withheld).toBe(1);
    // A decision note's source is the whole note: what was decided (frontmatter) and why (body).
    const sqlite = rows<{ id: string; title: string }>(data.decisions).find((d) => d.title === 'Use SQLite on the device')!;
    const note = await call('get_decision_evidence', args({ decisionId: sqlite.id }));
    expect(note.data.source).toMatchObject({ path: 'Decisions/Use SQLite.md', lines: [1, 10], truncated: false });
    expect(note.data.source.text).toContain('We chose it.');
    const missing = await call('get_decision_evidence', args({ decisionId: 'no-such-decision' }));
    expect(missing).toMatchObject({ isError: true, data: { code: 'not_found' } });
  });

  it('lists open commitments soonest due first, by owner, and questions, only inside the scope', async () => {
    const open = await call('get_commitments', args());
    expect(rows<{ owner: string | null; due: string | null }>(open.data.commitments).map((c) => [c.owner, c.due])).toEqual([
      ['Ana Ruiz', '2026-12-01'],
      [null, null],
    ]);
    const all = await call('get_commitments', args({ includeClosed: true }));
    expect(all.data.commitments).toHaveLength(3);
    const ana = await call('get_commitments', args({ owner: 'ana ruiz' }));
    expect(ana.data.commitments).toHaveLength(1);
    const questions = await call('get_open_questions', args());
    expect(rows<{ text: string }>(questions.data.questions).map((q) => q.text)).toEqual(['Do we need CRDTs?']);
    // Paging: one at a time, with a cursor, and a truncation flag that says more exist.
    const page1 = await call('get_commitments', args({ includeClosed: true, limit: 2 }));
    expect(page1.data).toMatchObject({ truncated: true, nextCursor: expect.any(String) });
    const page2 = await call('get_commitments', args({ includeClosed: true, limit: 2, cursor: page1.data.nextCursor }));
    expect(page2.data).toMatchObject({ truncated: false, nextCursor: null });
    expect(rows<{ id: string }>([...rows(page1.data.commitments), ...rows(page2.data.commitments)]).map((c) => c.id)).toEqual(rows<{ id: string }>(all.data.commitments).map((c) => c.id));
  });

  it('answers each temporal mode; an author date in the past never moves what was known when', async () => {
    const api = restClient(suite.gateway, suite.owner.token);
    const path = 'Entities/Tidewater.md';
    const before = await call('get_temporal_records', args({ mode: 'current', entityType: 'project' }));
    expect(rows<{ property: string; value: unknown }>(before.data.records).map((r) => [r.property, r.value])).toEqual([['status', 'planning']]);
    await sleep(20);
    const between = new Date();
    await sleep(20);
    // Edited after the fact, claiming it has been building since 2020.
    const edited = '---\ntype: project\nid: tidewater\nstatus: building\nvalid_from: 2020-01-01\n---\n# Tidewater\n';
    expect((await apply(api, suite.owner.mapping.id, [{ type: 'write-note', path, content: edited, expectedHash: hashes[path]! }])).status).toBe(200);
    hashes[path] = hashOf(edited);

    const value = (r: { data: Structured }) => (r.data.records as Array<{ value: unknown }>).map((x) => x.value);
    expect(value(await call('get_temporal_records', args({ mode: 'current' })))).toEqual(['building']);
    expect(value(await call('get_temporal_records', args({ mode: 'known-at', at: between.toISOString() })))).toEqual(['planning']);
    expect(value(await call('get_temporal_records', args({ mode: 'known-at', at: new Date('2021-01-01').toISOString() })))).toEqual([]);
    expect(value(await call('get_temporal_records', args({ mode: 'known-at', at: new Date().toISOString() })))).toEqual(['building']);
    // Valid time is the author's claim: in 2021 it was "building", by the later note.
    expect(value(await call('get_temporal_records', args({ mode: 'valid-at', at: '2021-06-01T00:00:00Z' })))).toEqual(['building']);
    const history = await call('get_temporal_records', args({ mode: 'history', entityId: 'tidewater' }));
    expect(rows<{ value: unknown; current: boolean; knownUntil: string | null }>(history.data.records).map((r) => [r.value, r.current, r.knownUntil !== null])).toEqual([
      ['planning', false, true],
      ['building', true, false],
    ]);
    expect(history.data.withheldGoneSources).toBe(0);
  });

  it('reports content stored before receipts as unavailable for known-at, not guessed', async () => {
    await suite.gateway.db.query("UPDATE knowledge_records SET known_from = NULL WHERE kind = 'assertion'");
    const result = await call('get_temporal_records', args({ mode: 'known-at', at: new Date().toISOString() }));
    expect(result.data.records).toEqual([]);
    expect(result.data.unavailable).toEqual([expect.objectContaining({ entityId: 'tidewater', property: 'status', reason: 'observed_before_receipts' })]);
  });

  it('lists knowledge change events with revisions, from a cursor on', async () => {
    const all = await call('get_changes', args({ limit: 200 }));
    expect(all.isError).toBe(false);
    const superseded = rows<{ type: string }>(all.data.events).find((e) => e.type === 'assertion.superseded');
    expect(superseded).toMatchObject({ path: 'Entities/Tidewater.md', before: '"planning"', after: '"building"', afterRevision: hashes['Entities/Tidewater.md'] });
    expect(rows<{ path: string }>(all.data.events).some((e) => e.path.startsWith('Private/'))).toBe(false);
    const tail = await call('get_changes', args({ cursor: all.data.nextCursor }));
    expect(tail.data).toMatchObject({ events: [], truncated: false, nextCursor: all.data.nextCursor });
    const decisionsOnly = await call('get_changes', args({ recordKinds: ['decision'] }));
    expect(rows<{ recordKind: string }>(decisionsOnly.data.events).every((e) => e.recordKind === 'decision')).toBe(true);
  });

  it('answers a guessed, malformed, foreign or people-only scope exactly as one that does not exist', async () => {
    const other = await createOwner(suite.gateway.services, 'knowledge-other');
    const foreign = await suite.gateway.services.scopes.create(other.actor, other.mapping.id, {
      name: 'Theirs',
      pathPrefixes: [],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
    });
    const answers = [];
    for (const contextScopeId of ['00000000-0000-7000-8000-000000000000', 'not-a-scope', foreign.id, peopleOnlyId]) {
      answers.push(await call('get_decisions', args({ contextScopeId })));
    }
    for (const answer of answers) expect(answer).toMatchObject({ isError: true, data: { code: 'not_found' } });
    const messages = new Set(answers.map((a) => JSON.stringify({ ...a.data, requestId: undefined })));
    expect(messages.size).toBe(1);
    // Their scope on their mapping: the mapping itself is not theirs to name.
    const theirs = await call('get_commitments', { mappingId: other.mapping.id, contextScopeId: foreign.id });
    expect(theirs).toMatchObject({ isError: true, data: { code: 'not_found' } });
  });

  it("applies a member's role as it is now: a viewer's token reads a viewers' scope until the scope asks for editors", async () => {
    const { services } = suite.gateway;
    const viewer = await createOwner(services, 'knowledge-viewer');
    await services.workspaces.setMemberRole(suite.owner.workspaceId, viewer.accountId, 'viewer');
    const client = await connectMcpClient(suite.gateway.url, viewer.token);
    try {
      const asViewer = () => callTool(client, 'get_open_questions', args());
      expect((await asViewer()).isError).toBe(false);
      const editorsOnly = await services.scopes.create(suite.owner.actor, suite.owner.mapping.id, {
        name: 'Editors',
        pathPrefixes: [],
        tags: [],
        audience: { minimumRole: 'editor', agents: true },
      });
      expect(await callTool(client, 'get_open_questions', args({ contextScopeId: editorsOnly.id }))).toMatchObject({ isError: true, data: { code: 'not_found' } });
      const capabilities = await callTool(client, 'get_intelligence_capabilities', { mappingId: suite.owner.mapping.id });
      expect(rows<{ contextScopeId: string }>(capabilities.data.scopes).map((s) => s.contextScopeId)).toEqual([scopeId]);
      // The owner raises the scope's audience: the viewer's next call is refused, nothing replays what they could read.
      const current = (await services.scopes.listManaged(suite.owner.actor, suite.owner.mapping.id)).find((s) => s.id === scopeId)!;
      await services.scopes.update(suite.owner.actor, suite.owner.mapping.id, scopeId, { ...current, audience: { minimumRole: 'editor', agents: true } });
      try {
        expect(await asViewer()).toMatchObject({ isError: true, data: { code: 'not_found' } });
      } finally {
        await services.scopes.update(suite.owner.actor, suite.owner.mapping.id, scopeId, current);
      }
    } finally {
      await client.close();
    }
  });

  it('refuses malformed bounds and modes with invalid_request', async () => {
    for (const extra of [
      { limit: 0 },
      { limit: 201 },
      { cursor: 'garbage' },
      { mode: 'known-at' },
      { mode: 'current', at: '2026-01-01T00:00:00Z' },
      { mode: 'sometime' },
      { mode: 'valid-at', at: 'yesterday' },
    ]) {
      const tool = 'mode' in extra ? 'get_temporal_records' : 'get_commitments';
      const result = await call(tool, args(extra));
      expect(result, JSON.stringify(extra)).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    }
  });

  it('serves the same reads on the Developer REST API', async () => {
    const api = restClient(suite.gateway, suite.owner.token);
    const response = await api.get('/knowledge/commitments', { query: { mappingId: suite.owner.mapping.id, contextScopeId: scopeId, includeClosed: true } });
    expect(response.status, response.text).toBe(200);
    expect((response.body as { commitments: unknown[] }).commitments).toHaveLength(3);
    const unknown = await api.get('/knowledge/decisions', { query: { mappingId: suite.owner.mapping.id, contextScopeId: peopleOnlyId } });
    expect(unknown.status).toBe(404);
  });

  it('says device_encrypted for a mapping whose bodies the server never holds', async () => {
    await suite.gateway.services.vaults.updateMappingFlags(suite.owner.mapping.id, { deviceEncrypted: true });
    try {
      expect(await call('get_open_questions', args())).toMatchObject({ isError: true, data: { code: 'device_encrypted' } });
    } finally {
      await suite.gateway.services.vaults.updateMappingFlags(suite.owner.mapping.id, { deviceEncrypted: false });
    }
  });
});
