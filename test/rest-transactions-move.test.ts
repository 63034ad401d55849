import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { createOwner } from './support/fixtures.ts';
import { notePathUrl, restClient, snapshotOf, type ApiResponse, type RestClient } from './support/rest-client.ts';
import {
  allEvents,
  apply,
  expectProblem,
  hashOf,
  newKey,
  preview,
  seedNotes,
  type Action,
  type ActionResult,
  type TrashEntryBody,
} from './support/rest-transactions.ts';

// move-note in POST /api/dev/transactions: moves and renames, and with rewriteLinks the links of other notes
// that follow the moved note. Every refusal asserts that notes, trash, events and stored links are unchanged.
describe('POST /api/dev/transactions: move-note', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  async function vault(label: string): Promise<{ api: RestClient; mappingId: string }> {
    const owner = await createOwner(gateway.services, label);
    return { api: restClient(gateway, owner.token), mappingId: owner.mapping.id };
  }

  async function contentOf(api: RestClient, mappingId: string, path: string): Promise<string | undefined> {
    const response = await api.get<{ content: string }>(notePathUrl(path), { query: { mappingId } });
    if (response.status === 404) return undefined;
    expect(response.status, response.text).toBe(200);
    return response.body.content;
  }

  async function trashOf(api: RestClient, mappingId: string): Promise<TrashEntryBody[]> {
    const response = await api.get<{ entries: TrashEntryBody[] }>('/notes/trash', { query: { mappingId } });
    expect(response.status, response.text).toBe(200);
    return response.body.entries;
  }

  /** Notes, trash, events and every stored link of the database: equal before and after means nothing changed. */
  async function snapshot(): Promise<string> {
    return (await snapshotOf(gateway)) + JSON.stringify(await gateway.db.query('SELECT * FROM note_links ORDER BY note_id, ordinal'));
  }

  async function rejected(send: () => Promise<ApiResponse<unknown>>, status: number, code: string): Promise<Record<string, unknown>> {
    const before = await snapshot();
    const body = expectProblem(await send(), status, code);
    expect(await snapshot()).toBe(before);
    return body;
  }

  /** The stored links of a note as (target, heading) pairs, in note order. */
  async function storedLinks(mappingId: string, path: string): Promise<string[]> {
    const rows = await gateway.db.query<{ target: string; heading: string | null }>(
      `SELECT l.target, l.heading FROM note_links l JOIN notes n ON n.id = l.note_id
        JOIN mappings m ON m.vault_id = n.vault_id WHERE m.id = $1 AND n.path = $2 ORDER BY l.ordinal`,
      [mappingId, path],
    );
    return rows.map((row) => (row.heading ? `${row.target}#${row.heading}` : row.target));
  }

  /** A result without the fields only previews carry. */
  const applied = ({ diff: _diff, diffTruncated: _truncated, ...rest }: ActionResult) => rest;

  it('moves a note without touching links unless asked: same content, hash and row, one note.moved event, no trash', async () => {
    const { api, mappingId } = await vault('move-plain');
    const content = '# Idea\n\nA thought worth keeping.\n';
    const hashes = await seedNotes(api, mappingId, { 'drafts/idea.md': content, 'notes/ref.md': 'See [[idea]].\n' });
    const [row] = await gateway.db.query<{ id: string; created_at: Date }>("SELECT id, created_at FROM notes WHERE path = 'drafts/idea.md'");
    const action: Action = { type: 'move-note', path: 'drafts/idea.md', newPath: 'ideas/idea.md', expectedHash: hashes['drafts/idea.md']! };

    const before = await snapshot();
    const previewed = await preview(api, mappingId, [action]);
    expect(previewed.status, previewed.text).toBe(200);
    expect(previewed.body.actions).toEqual([
      {
        index: 0,
        type: 'move-note',
        path: 'drafts/idea.md',
        newPath: 'ideas/idea.md',
        status: 'move',
        beforeRevision: hashOf(content),
        afterRevision: hashOf(content),
        diff: '--- a/drafts/idea.md\n+++ b/ideas/idea.md\n',
        diffTruncated: false,
      },
    ]);
    expect(await snapshot()).toBe(before);

    const key = newKey();
    const response = await apply(api, mappingId, [action], key);
    expect(response.status, response.text).toBe(200);
    expect(response.body.actions.map(applied)).toEqual(previewed.body.actions.map(applied));
    expect(await contentOf(api, mappingId, 'ideas/idea.md')).toBe(content);
    expect(await contentOf(api, mappingId, 'drafts/idea.md')).toBeUndefined();
    expect(await contentOf(api, mappingId, 'notes/ref.md')).toBe('See [[idea]].\n');
    // The row is the same note: same id and creation time, its stored links kept.
    expect(await gateway.db.query("SELECT id, created_at FROM notes WHERE path = 'ideas/idea.md'")).toEqual([row]);
    // The move counts as a change of the vault, so search and the link graph re-read the note at its new path.
    expect(
      await gateway.db.query(
        "SELECT n.content_version = v.content_version AS latest FROM notes n JOIN vaults v ON v.id = n.vault_id WHERE n.path = 'ideas/idea.md'",
      ),
    ).toEqual([{ latest: true }]);
    expect(await trashOf(api, mappingId)).toEqual([]);
    const events = (await allEvents(api, mappingId)).filter((e) => e.idempotencyKey === key);
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'note.moved',
        path: 'ideas/idea.md',
        beforeRevision: hashOf(content),
        afterRevision: hashOf(content),
        trashId: null,
        // The apply matched the preview above: its events name that preview's receipt (docs/proposals.md).
        details: { previousPath: 'drafts/idea.md', previewReceipt: previewed.body.receipt!.id, previewedAt: expect.any(String) },
      }),
    ]);
  });

  describe('with rewriteLinks', () => {
    const FRONTMATTER = '---\nrelated: "[[Roadmap]]"\ntags:   [ plan ,  q3 ]   # spacing kept\n---\n';
    const VAULT = {
      'Plans/Roadmap.md': '# Roadmap\n\nNext: [[Glossary]]; see [the list](./Backlog.md).\n',
      'Plans/Backlog.md': 'Items for [[Roadmap]].\n',
      'Home/Index.md': `${FRONTMATTER}Start with [[Roadmap]], then [[Plans/Roadmap#Q3 goals|the Q3 goals]].\n`,
      'Journal/2024-05-01.md': '![[Roadmap]]\n\nAlso [text](Plans/Roadmap.md).\n',
      // A note of the same name in another folder, and a note whose [[Roadmap]] means that one (its neighbour).
      'Clients/Roadmap.md': '# Client roadmap\n',
      'Clients/Acme.md': 'Our [[Roadmap]] is separate.\n',
      'Reference/Glossary.md': '# Glossary\n',
    };
    const AFTER = {
      'Archive/Roadmap 2024.md': '# Roadmap\n\nNext: [[Glossary]]; see [the list](../Plans/Backlog.md).\n',
      'Plans/Backlog.md': 'Items for [[Roadmap 2024]].\n',
      'Home/Index.md': `${FRONTMATTER}Start with [[Roadmap 2024]], then [[Archive/Roadmap 2024#Q3 goals|the Q3 goals]].\n`,
      'Journal/2024-05-01.md': '![[Roadmap 2024]]\n\nAlso [text](Archive/Roadmap%202024.md).\n',
    };

    async function staged(label: string) {
      const { api, mappingId } = await vault(label);
      const hashes = await seedNotes(api, mappingId, VAULT);
      const action: Action = {
        type: 'move-note',
        path: 'Plans/Roadmap.md',
        newPath: 'Archive/Roadmap 2024.md',
        expectedHash: hashes['Plans/Roadmap.md']!,
        rewriteLinks: true,
      };
      return { api, mappingId, hashes, action };
    }

    it('previews every note it would change, each with revisions and a diff, and changes nothing', async () => {
      const { api, mappingId, action } = await staged('move-preview');
      const before = await snapshot();
      const response = await preview(api, mappingId, [action]);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ dryRun: true, applied: false });
      expect(response.body.actions.map((a) => ({ ...a, diff: undefined }))).toEqual([
        {
          index: 0,
          type: 'move-note',
          path: 'Plans/Roadmap.md',
          newPath: 'Archive/Roadmap 2024.md',
          status: 'move',
          beforeRevision: hashOf(VAULT['Plans/Roadmap.md']),
          afterRevision: hashOf(AFTER['Archive/Roadmap 2024.md']),
          diff: undefined,
          diffTruncated: false,
          linksRewritten: 1,
          linksSkipped: 0,
        },
        ...(['Home/Index.md', 'Journal/2024-05-01.md', 'Plans/Backlog.md'] as const).map((path) => ({
          index: 0,
          type: 'rewrite-links',
          path,
          status: 'update',
          beforeRevision: hashOf(VAULT[path]),
          afterRevision: hashOf(AFTER[path]),
          diff: undefined,
          diffTruncated: false,
          linksRewritten: path === 'Plans/Backlog.md' ? 1 : 2,
          linksSkipped: 0,
        })),
      ]);
      const diffs = response.body.actions.map((a) => a.diff);
      expect(diffs[0]).toBe(
        '--- a/Plans/Roadmap.md\n+++ b/Archive/Roadmap 2024.md\n@@ -1,3 +1,3 @@\n # Roadmap\n \n-Next: [[Glossary]]; see [the list](./Backlog.md).\n+Next: [[Glossary]]; see [the list](../Plans/Backlog.md).\n',
      );
      expect(diffs[2]).toBe(
        '--- a/Journal/2024-05-01.md\n+++ b/Journal/2024-05-01.md\n@@ -1,3 +1,3 @@\n-![[Roadmap]]\n+![[Roadmap 2024]]\n \n-Also [text](Plans/Roadmap.md).\n+Also [text](Archive/Roadmap%202024.md).\n',
      );
      expect(await snapshot()).toBe(before);
    });

    it('applies exactly what the preview listed, keeps frontmatter bytes, and leaves links to the same-named note alone', async () => {
      const { api, mappingId, action } = await staged('move-apply');
      const previewed = await preview(api, mappingId, [action]);
      const key = newKey();
      const response = await apply(api, mappingId, [action], key);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ dryRun: false, applied: true });
      expect(response.body.actions.map(applied)).toEqual(previewed.body.actions.map(applied));

      for (const [path, content] of Object.entries(AFTER)) expect(await contentOf(api, mappingId, path)).toBe(content);
      expect((await contentOf(api, mappingId, 'Home/Index.md'))!.startsWith(FRONTMATTER)).toBe(true);
      expect(await contentOf(api, mappingId, 'Plans/Roadmap.md')).toBeUndefined();
      for (const path of ['Clients/Roadmap.md', 'Clients/Acme.md', 'Reference/Glossary.md'] as const) {
        expect(await contentOf(api, mappingId, path)).toBe(VAULT[path]);
      }
      expect(await trashOf(api, mappingId)).toEqual([]);

      const events = (await allEvents(api, mappingId)).filter((e) => e.idempotencyKey === key);
      const receipt = { previewReceipt: previewed.body.receipt!.id, previewedAt: expect.any(String) };
      expect(events.map((e) => [e.kind, e.path, e.beforeRevision, e.afterRevision, e.details])).toEqual([
        ['note.moved', 'Archive/Roadmap 2024.md', hashOf(VAULT['Plans/Roadmap.md']), hashOf(AFTER['Archive/Roadmap 2024.md']), { previousPath: 'Plans/Roadmap.md', ...receipt }],
        ...(['Home/Index.md', 'Journal/2024-05-01.md', 'Plans/Backlog.md'] as const).map((path) => [
          'note.updated',
          path,
          hashOf(VAULT[path]),
          hashOf(AFTER[path]),
          { via: 'link-rewrite', ...receipt },
        ]),
      ]);

      // The stored links (what the graph and later moves read) follow the new content.
      expect(await storedLinks(mappingId, 'Home/Index.md')).toEqual(['Roadmap 2024', 'Archive/Roadmap 2024#Q3 goals']);
      expect(await storedLinks(mappingId, 'Journal/2024-05-01.md')).toEqual(['Roadmap 2024', 'Archive/Roadmap 2024.md']);
      expect(await storedLinks(mappingId, 'Archive/Roadmap 2024.md')).toEqual(['Glossary', '../Plans/Backlog.md']);
      expect(await storedLinks(mappingId, 'Clients/Acme.md')).toEqual(['Roadmap']);
      const inventory = await api.get<{ notes: Array<{ path: string; title: string; revision: string }> }>('/notes', { query: { mappingId } });
      expect(inventory.body.notes.find((n) => n.path === 'Archive/Roadmap 2024.md')).toMatchObject({
        title: 'Roadmap',
        revision: hashOf(AFTER['Archive/Roadmap 2024.md']),
      });

      // A retry with the same key replays the same body and changes nothing.
      const before = await snapshot();
      const retry = await apply(api, mappingId, [action], key);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(response.text);
      expect(await snapshot()).toBe(before);
    });

    it('re-plans on the current notes when applying: a link added after the preview is rewritten too', async () => {
      const { api, mappingId, hashes, action } = await staged('move-replan');
      const previewed = await preview(api, mappingId, [action]);
      expect(previewed.body.actions.map((a) => a.path)).not.toContain('Clients/Acme.md');
      const edited = 'Our [[Roadmap]] is separate; the plan is [[Plans/Roadmap]].\n';
      const edit = await apply(api, mappingId, [{ type: 'write-note', path: 'Clients/Acme.md', content: edited, expectedHash: hashes['Clients/Acme.md']! }]);
      expect(edit.status, edit.text).toBe(200);

      const response = await apply(api, mappingId, [action]);
      expect(response.status, response.text).toBe(200);
      expect(response.body.actions.find((a) => a.path === 'Clients/Acme.md')).toMatchObject({
        type: 'rewrite-links',
        status: 'update',
        beforeRevision: hashOf(edited),
        linksRewritten: 1,
      });
      expect(await contentOf(api, mappingId, 'Clients/Acme.md')).toBe('Our [[Roadmap]] is separate; the plan is [[Archive/Roadmap 2024]].\n');
    });

    it('412 for a stale expectedHash and 428 without one, with nothing changed; the preview shows the conflict', async () => {
      const { api, mappingId, action } = await staged('move-stale');
      const stale = { ...action, expectedHash: hashOf('an older roadmap\n') };
      const body = await rejected(() => apply(api, mappingId, [stale]), 412, 'stale_revision');
      expect(body.problems).toEqual([{ index: 0, path: 'Plans/Roadmap.md', code: 'stale_revision', detail: expect.any(String) }]);
      const { expectedHash: _omitted, ...withoutHash } = action;
      await rejected(() => apply(api, mappingId, [withoutHash]), 428, 'precondition_required');
      const previewed = await preview(api, mappingId, [stale]);
      expect(previewed.body.actions).toEqual([expect.objectContaining({ status: 'conflict', problem: expect.objectContaining({ code: 'stale_revision' }) })]);
      expect(await contentOf(api, mappingId, 'Plans/Backlog.md')).toBe(VAULT['Plans/Backlog.md']);
    });

    it('409 when another action of the transaction writes a note the rewrite would change', async () => {
      const { api, mappingId, hashes, action } = await staged('move-overlap');
      const write: Action = { type: 'write-note', path: 'Plans/Backlog.md', content: 'Items for [[Roadmap]], edited.\n', expectedHash: hashes['Plans/Backlog.md']! };
      const body = await rejected(() => apply(api, mappingId, [action, write]), 409, 'conflict');
      expect(body.detail).toContain('Plans/Backlog.md (action 1)');
      const previewed = await preview(api, mappingId, [action, write]);
      expect(previewed.body.actions.map((a) => [a.type, a.status, a.problem?.code])).toEqual([
        ['move-note', 'conflict', 'conflict'],
        ['write-note', 'update', undefined],
      ]);
    });
  });

  it('renames by letter case only: same note, new spelling, links still resolve so none is rewritten', async () => {
    const { api, mappingId } = await vault('move-case');
    const hashes = await seedNotes(api, mappingId, { 'plans/roadmap.md': '# Roadmap\n', 'notes/a.md': '[[roadmap]]\n' });
    const key = newKey();
    const response = await apply(
      api,
      mappingId,
      [{ type: 'move-note', path: 'plans/roadmap.md', newPath: 'Plans/Roadmap.md', expectedHash: hashes['plans/roadmap.md']!, rewriteLinks: true }],
      key,
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.actions).toEqual([
      expect.objectContaining({ path: 'plans/roadmap.md', newPath: 'Plans/Roadmap.md', status: 'move', linksRewritten: 0, linksSkipped: 0 }),
    ]);
    const inventory = await api.get<{ notes: Array<{ path: string }> }>('/notes', { query: { mappingId } });
    expect(inventory.body.notes.map((n) => n.path)).toEqual(['Plans/Roadmap.md', 'notes/a.md']);
    expect(await contentOf(api, mappingId, 'notes/a.md')).toBe('[[roadmap]]\n');
    expect((await allEvents(api, mappingId)).filter((e) => e.idempotencyKey === key)).toEqual([
      expect.objectContaining({ kind: 'note.moved', path: 'Plans/Roadmap.md', details: { previousPath: 'plans/roadmap.md' } }),
    ]);
  });

  describe('refuses, changing nothing', () => {
    let api: RestClient;
    let mappingId: string;
    let hashes: Record<string, string>;

    beforeAll(async () => {
      ({ api, mappingId } = await vault('move-refusals'));
      hashes = await seedNotes(api, mappingId, { 'notes/a.md': 'alpha [[b]]\n', 'notes/b.md': 'bravo\n', 'Archive/Taken.md': 'taken\n' });
    });
    const moving = (fields: Partial<Extract<Action, { type: 'move-note' }>>, more: Action[] = []) => () =>
      apply(api, mappingId, [{ type: 'move-note', path: 'notes/b.md', newPath: 'notes/c.md', expectedHash: hashes['notes/b.md']!, ...fields }, ...more]);

    it('409 when the new path holds another note, also in another letter case', async () => {
      for (const newPath of ['Archive/Taken.md', 'archive/TAKEN.md']) {
        const body = await rejected(moving({ newPath, rewriteLinks: true }), 409, 'conflict');
        expect(body.detail).toContain('Archive/Taken.md');
      }
    });

    it('404 when there is no note to move', async () => {
      await rejected(moving({ path: 'notes/nothing.md' }), 404, 'not_found');
    });

    it('400 invalid_path for an invalid new path, naming the field', async () => {
      for (const newPath of ['../escape.md', 'notes/c.txt', 'notes//c.md']) {
        const body = await rejected(moving({ newPath }), 400, 'invalid_path');
        expect(body).toMatchObject({ index: 0, field: 'newPath', reason: expect.any(String) });
      }
    });

    it('400 invalid_path for a new path Windows refuses (a device name, a name ending in a dot), in preview and apply', async () => {
      const cases = [
        ['notes/CON.md', 'reserved_name'],
        ['Archive/nul.txt.md', 'reserved_name'],
        ['COM1/b.md', 'reserved_name'],
        ['notes./b.md', 'trailing_dot_or_space'],
      ] as const;
      for (const [newPath, reason] of cases) {
        const action: Action = { type: 'move-note', path: 'notes/b.md', newPath, expectedHash: hashes['notes/b.md']!, rewriteLinks: true };
        for (const send of [() => preview(api, mappingId, [action]), moving({ newPath, rewriteLinks: true })]) {
          const body = await rejected(send, 400, 'invalid_path');
          expect(body).toMatchObject({ index: 0, field: 'newPath', reason });
          expect(body.detail).toContain('Action 0: newPath:');
        }
      }
    });

    it('400 when another action touches either path of the move', async () => {
      await rejected(moving({}, [{ type: 'write-note', path: 'notes/C.md', content: 'x\n' }]), 400, 'invalid_request');
      await rejected(moving({}, [{ type: 'delete-note', path: 'notes/b.md', expectedHash: hashes['notes/b.md']! }]), 400, 'invalid_request');
    });

    it('400 for a move without newPath or with rewriteLinks that is not a boolean', async () => {
      const raw = (action: Record<string, unknown>) => () =>
        api.post('/transactions', { json: { mappingId, dryRun: false, actions: [action] }, headers: { 'idempotency-key': newKey() } });
      await rejected(raw({ type: 'move-note', path: 'notes/b.md', expectedHash: hashes['notes/b.md'] }), 400, 'invalid_request');
      await rejected(raw({ type: 'move-note', path: 'notes/b.md', newPath: 'notes/c.md', rewriteLinks: 'yes' }), 400, 'invalid_request');
    });
  });
});
