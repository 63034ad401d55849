/**
 * Saved views, watches and findings as agents and scripts use them: managed on the Developer REST API (a preview by
 * default, applied with an Idempotency-Key), read with the MCP tools query_saved_knowledge_view, get_watch_findings
 * and list_saved_knowledge_views through the MCP SDK client (which checks every structured result against the tool's
 * output schema); views pinned or latest; one answer, not_found, for every scope or view the caller may not use; a
 * watch that finds what a governed write changed in its scope and nothing for another scope; bounds and refusals
 * with nothing changed; and no tool or route that changes a finding's review state.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOwner } from './support/fixtures.ts';
import { type Structured } from './support/mcp-client.ts';
import { useMcpSuite } from './support/mcp-suite.ts';
import { restClient, type RestClient } from './support/rest-client.ts';
import { hashOf, seedNotes } from './support/rest-transactions.ts';

const NOTES = {
  'Alpha/Plan.md': '# Plan\n\n- [ ] Ship the pilot [owner:: Ana] 📅 2026-12-01 ^ship\n- [ ] Order tablets [owner:: Jonas] 📅 2026-12-20\n',
  'Alpha/ADR-1.md': '---\ntype: decision\nstatus: accepted\ndecided: 2026-11-01\n---\n# ADR-1: SQLite on the device\n',
  'Beta/Chores.md': '# Chores\n\n- [ ] Beta chore [owner:: Ana]\n',
};

const TABLES = ['knowledge_views', 'knowledge_view_versions', 'knowledge_watches', 'knowledge_watch_matches', 'knowledge_watch_findings'];

describe('saved knowledge views, watches and findings over REST and MCP', () => {
  const suite = useMcpSuite('views');
  const { call } = suite;
  let api: RestClient;
  let alpha: string;
  let beta: string;
  let peopleOnly: string;
  let viewId: string;
  let watchId: string;
  const hashes: Record<string, string> = {};
  const mappingId = () => suite.owner.mapping.id;
  const snapshot = async () => JSON.stringify(await Promise.all(TABLES.map((t) => suite.gateway.db.query(`SELECT * FROM ${t} ORDER BY 1, 2`))));
  const rows = (value: unknown) => value as Structured[];

  it('publishes the three tools with output schemas as read-only', async () => {
    api = restClient(suite.gateway, suite.owner.token);
    Object.assign(hashes, await seedNotes(api, mappingId(), NOTES));
    const { services } = suite.gateway;
    const scope = async (name: string, folder: string[], agents = true) =>
      (await services.scopes.create(suite.owner.actor, mappingId(), { name, pathPrefixes: folder, tags: [], audience: { minimumRole: 'viewer', agents } })).id;
    alpha = await scope('Alpha', ['Alpha']);
    beta = await scope('Beta', ['Beta']);
    peopleOnly = await scope('People only', [], false);
    const { tools } = await suite.client.listTools();
    for (const name of ['query_saved_knowledge_view', 'get_watch_findings', 'list_saved_knowledge_views']) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.outputSchema, name).toBeDefined();
      expect(tool!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool!.inputSchema.required).toEqual(expect.arrayContaining(['mappingId', 'contextScopeId']));
    }
    const capabilities = await call('get_intelligence_capabilities', { mappingId: mappingId() });
    expect(rows(capabilities.data.reads).filter((r) => /saved|watch/.test(String(r.tool)))).toEqual([
      { tool: 'list_saved_knowledge_views', scopeBound: true, defaultResults: 50, maxResults: 50, paged: false },
      { tool: 'query_saved_knowledge_view', scopeBound: true, defaultResults: 50, maxResults: 200, paged: true },
      { tool: 'get_watch_findings', scopeBound: true, defaultResults: 50, maxResults: 200, paged: true },
    ]);
        // No tool moves a finding's review state, and no tool takes an operation selector.
    expect(tools.map((t) => t.name).filter((n) => /(^|_)(acknowledge|dismiss|resolve|review|finding_state)/.test(n))).toEqual([]);
    expect(tools.filter((t) => Object.keys((t.inputSchema.properties ?? {}) as object).includes('operation')).map((t) => t.name)).toEqual([]);
  });

  it('creates a view as a preview by default, applies it once per Idempotency-Key, and replays a retry', async () => {
    const body = { mappingId: mappingId(), contextScopeId: alpha, name: 'Open work', definition: { kinds: ['commitment'], owner: 'ana' } };
    const before = await snapshot();
    const preview = await api.post('/knowledge/views', { json: body });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ dryRun: true, applied: false, view: { id: null, name: 'Open work', latestVersion: 1 }, version: { version: 1, definition: { kinds: ['commitment'], owner: 'ana', sort: 'path', limit: 50 } } });
    expect(await snapshot()).toBe(before);
    const keyless = await api.post('/knowledge/views', { json: { ...body, dryRun: false } });
    expect([keyless.status, (keyless.body as Structured).code]).toEqual([400, 'idempotency_key_required']);
    expect(await snapshot()).toBe(before);

    const key = randomUUID();
    const applied = await api.post<Structured>('/knowledge/views', { json: { ...body, dryRun: false }, headers: { 'idempotency-key': key } });
    expect(applied.status, applied.text).toBe(200);
    viewId = applied.body.view.id as string;
    const again = await api.post<Structured>('/knowledge/views', { json: { ...body, dryRun: false }, headers: { 'idempotency-key': key } });
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.view.id]).toEqual([200, 'true', viewId]);
    const listed = await call('list_saved_knowledge_views', { mappingId: mappingId(), contextScopeId: alpha });
    expect(rows(listed.data.views).map((v): unknown => [v.id, v.name, v.latestVersion])).toEqual([[viewId, 'Open work', 1]]);
  });

  it('answers the latest version by default and a pinned version when asked, with the id, name and version used', async () => {
    const revised = await api.post<Structured>('/knowledge/views/versions', {
      json: { mappingId: mappingId(), contextScopeId: alpha, viewId, name: 'All open work', definition: { kinds: ['commitment', 'decision'], sort: 'title' }, dryRun: false },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(revised.status, revised.text).toBe(200);
    expect(revised.body.version).toMatchObject({ version: 2, name: 'All open work' });

    const latest = await call('query_saved_knowledge_view', { mappingId: mappingId(), contextScopeId: alpha, viewId });
    expect(latest.isError).toBe(false);
    expect(latest.data.view).toMatchObject({ id: viewId, name: 'All open work', version: 2, latestVersion: 2 });
    expect(rows(latest.data.records).map((r): unknown => [r.kind, r.status])).toEqual([
      ['decision', 'candidate'],
      ['commitment', 'open'],
      ['commitment', 'open'],
    ]);
    const pinned = await call('query_saved_knowledge_view', { mappingId: mappingId(), contextScopeId: alpha, viewId, version: 1 });
    expect(pinned.data.view).toMatchObject({ id: viewId, name: 'Open work', version: 1, latestVersion: 2 });
    expect(rows(pinned.data.records)).toEqual([expect.objectContaining({ kind: 'commitment', owner: 'Ana', due: '2026-12-01', evidence: expect.objectContaining({ path: 'Alpha/Plan.md', lines: [3, 3], blockId: 'ship' }) })]);
    // The same over REST, with a page of one and its cursor.
    const page = await api.get<Structured>('/knowledge/views/query', { query: { mappingId: mappingId(), contextScopeId: alpha, viewId, limit: 1 } });
    expect([page.status, page.body.records.length, page.body.truncated]).toEqual([200, 1, true]);
    const rest = await api.get<Structured>('/knowledge/views/query', { query: { mappingId: mappingId(), contextScopeId: alpha, viewId, limit: 200, cursor: page.body.nextCursor as string } });
    expect([rest.body.records.length, rest.body.truncated, rest.body.nextCursor]).toEqual([2, false, null]);
    const versions = await api.get<Structured>('/knowledge/views/versions', { query: { mappingId: mappingId(), contextScopeId: alpha, viewId } });
    expect(rows(versions.body.versions).map((v): unknown => v.version)).toEqual([2, 1]);
  });

  it("answers not_found, alike, for a foreign, guessed, malformed or out-of-audience scope, and for another scope's or a guessed view", async () => {
    const stranger = await createOwner(suite.gateway.services, 'stranger');
    const foreignScope = (await suite.gateway.services.scopes.create(stranger.actor, stranger.mapping.id, { name: 'Theirs', pathPrefixes: [], tags: [], audience: { minimumRole: 'viewer', agents: true } })).id;
    const cases: Array<[string, Record<string, string>]> = [
      ["another account's scope", { contextScopeId: foreignScope }],
      ['a guessed scope', { contextScopeId: randomUUID() }],
      ['a malformed scope', { contextScopeId: 'alpha' }],
      ['a people-only scope, to a token', { contextScopeId: peopleOnly }],
      ["another scope's view", { contextScopeId: beta, viewId: '' }],
      ['a guessed view', { viewId: randomUUID() }],
      ['a malformed view', { viewId: "1' OR '1'='1" }],
    ];
    const before = await snapshot();
    for (const [label, override] of cases) {
      // Alpha's view asked for in Beta, which the caller may use: only the view is unknown there.
      const args = { mappingId: mappingId(), contextScopeId: alpha, ...override, viewId: override.viewId === '' || override.viewId === undefined ? viewId : override.viewId };
      for (const tool of ['query_saved_knowledge_view', 'get_watch_findings', 'list_saved_knowledge_views']) {
        const input = tool === 'query_saved_knowledge_view' ? args : { mappingId: args.mappingId, contextScopeId: args.contextScopeId };
        if (tool !== 'query_saved_knowledge_view' && 'viewId' in override) continue;
        const result = await call(tool, input);
        expect([label, tool, result.isError, result.data.code]).toEqual([label, tool, true, 'not_found']);
        // One message for every scope the caller may not use, one for every view that is not the scope's.
        expect(result.data.message).toBe(label.endsWith('view') ? 'No such saved view in this scope, or it is not available to you.' : 'No such context scope for this mapping, or it is not available to you.');
      }
      const rest = await api.get<Structured>('/knowledge/views/query', { query: args });
      expect([label, rest.status, rest.body.code]).toEqual([label, 404, 'not_found']);
      const change = await api.post<Structured>('/knowledge/views/versions', { json: { ...args, name: 'Taken', definition: { kinds: ['decision'] }, dryRun: false }, headers: { 'idempotency-key': randomUUID() } });
      expect([label, change.status]).toEqual([label, 404]);
    }
    expect(await snapshot()).toBe(before);
  });

  it('records findings when a governed write changes the watched scope, and none when another scope changes', async () => {
    const made = await api.post<Structured>('/knowledge/watches', { json: { mappingId: mappingId(), contextScopeId: alpha, viewId, dryRun: false }, headers: { 'idempotency-key': randomUUID() } });
    expect(made.status, made.text).toBe(200);
    watchId = made.body.watch.id as string;
    const findings = async () => (await call('get_watch_findings', { mappingId: mappingId(), contextScopeId: alpha, watchId })).data;
    expect((await findings()).findings).toEqual([]);

    // Another scope changes, through the governed agent write tool: nothing for Alpha's watch.
    const writeNote = async (path: string, content: string) => {
      const result = await call('apply_note_writes', { mappingId: mappingId(), idempotencyKey: randomUUID(), notes: [{ path, content, expectedHash: hashes[path] }] });
      expect(result.isError, JSON.stringify(result.data)).toBe(false);
      hashes[path] = hashOf(content);
    };
    await writeNote('Beta/Chores.md', '# Chores\n\n- [ ] Beta chore [owner:: Ana]\n- [ ] Another one\n');
    expect((await findings()).findings).toEqual([]);

    await writeNote('Alpha/Plan.md', '# Plan\n\n- [x] Ship the pilot [owner:: Ana] 📅 2026-12-01 ^ship\n- [ ] Order tablets [owner:: Jonas] 📅 2026-12-20\n- [ ] Brief the crews\n');
    const data = await findings();
    expect(rows(data.findings).map((f): unknown => [f.change, f.record.title, f.state, f.viewVersion]).sort()).toEqual([
      ['matched', 'Brief the crews', 'new', 2],
      ['unmatched', 'Ship the pilot [owner:: Ana] 📅 2026-12-01', 'new', 2],
    ]);
    expect(rows(data.findings)[0]!.record.evidence).toMatchObject({ path: 'Alpha/Plan.md' });
    expect(rows(data.watches)).toEqual([expect.objectContaining({ id: watchId, viewId, pinnedVersion: null, overLimit: false, counts: { new: 2, acknowledged: 0, dismissed: 0, resolved: 0 } })]);
  });

  it('refuses a viewer, oversized or invalid definitions, and out-of-bounds limits, with nothing changed', async () => {
    const viewer = await createOwner(suite.gateway.services, 'viewer');
    const { token } = await suite.gateway.services.membership.invite(suite.owner.accountId, suite.owner.workspaceId, 'viewer');
    await suite.gateway.services.membership.acceptInvitation(viewer.accountId, token);
    const asViewer = restClient(suite.gateway, viewer.token);
    const before = await snapshot();
    const base = { mappingId: mappingId(), contextScopeId: alpha, dryRun: false };
    const key = () => ({ 'idempotency-key': randomUUID() });
    const forbidden = await asViewer.post<Structured>('/knowledge/views', { json: { ...base, name: 'Mine', definition: { kinds: ['decision'] } }, headers: key() });
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'forbidden']);
    const stop = await asViewer.delete<Structured>('/knowledge/watches', { query: { ...base, watchId }, headers: key() });
    expect([stop.status, stop.body.code]).toEqual([403, 'forbidden']);
    // A viewer still reads the view and its findings.
    expect((await asViewer.get('/knowledge/views/query', { query: { mappingId: mappingId(), contextScopeId: alpha, viewId } })).status).toBe(200);
    expect((await asViewer.get('/knowledge/watches/findings', { query: { mappingId: mappingId(), contextScopeId: alpha } })).status).toBe(200);

    for (const definition of [{ kinds: ['decision'], text: 'x'.repeat(5000) }, { kinds: ['decision'], limit: 201 }, { kinds: [] }, { kinds: ['decision'], sql: 'DROP TABLE notes' }, 'decision']) {
      const refused = await api.post<Structured>('/knowledge/views', { json: { ...base, name: 'Bad', definition }, headers: key() });
      expect([JSON.stringify(definition).slice(0, 40), refused.status, refused.body.code]).toEqual([JSON.stringify(definition).slice(0, 40), 400, 'invalid_request']);
    }
    const huge = await api.post('/knowledge/views', { raw: JSON.stringify({ ...base, name: 'Huge', definition: { kinds: ['decision'], text: 'y'.repeat(2_000_000) } }), headers: { ...key(), 'content-type': 'application/json' } });
    expect([400, 413]).toContain(huge.status);
    const wide = await call('query_saved_knowledge_view', { mappingId: mappingId(), contextScopeId: alpha, viewId, limit: 201 });
    expect(wide.isError).toBe(true);
    expect((await call('get_watch_findings', { mappingId: mappingId(), contextScopeId: alpha, cursor: 'forged' })).data.code).toBe('invalid_request');
    expect(await snapshot()).toBe(before);
  });

  it('has no route that changes a finding: review states move only on the workspace page', async () => {
    const [finding] = rows((await call('get_watch_findings', { mappingId: mappingId(), contextScopeId: alpha })).data.findings);
    const before = await snapshot();
    const openapi = (await (await fetch(`${suite.gateway.url}/api/dev/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const writes = Object.entries(openapi.paths).flatMap(([path, methods]) => Object.keys(methods).filter((m) => m !== 'get').map((m) => `${m} ${path}`));
    expect(writes.filter((w) => /finding|acknowledge|dismiss|resolve/i.test(w))).toEqual([]);
    for (const path of ['/knowledge/watches/findings', `/knowledge/watches/findings/${finding!.id}`, '/knowledge/findings/review']) {
      const response = await api.post(path, { json: { mappingId: mappingId(), contextScopeId: alpha, findingId: finding!.id, state: 'resolved' } });
      expect([path, response.status]).toEqual([path, 404]);
    }
    expect(await snapshot()).toBe(before);
  });
});
