import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { notePathUrl, restClient, snapshotOf, type RestClient } from './support/rest-client.ts';
import {
  allEvents,
  apply,
  hashOf,
  newKey,
  preview,
  seedNotes,
  type Action,
  type TrashEntryBody,
} from './support/rest-transactions.ts';

// The happy paths of POST /api/dev/transactions: previews, atomic applies, rename, restore, the 100-action limit.
// Refusals live in rest-transactions-rejections.test.ts, idempotency and races in rest-transactions-concurrency.
describe('POST /api/dev/transactions', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  /** A new owner with an empty hosted vault, and a client speaking as them. */
  async function vault(label: string): Promise<{ owner: Owner; api: RestClient; mappingId: string }> {
    const owner = await createOwner(gateway.services, label);
    return { owner, api: restClient(gateway, owner.token), mappingId: owner.mapping.id };
  }

  async function readNote(api: RestClient, mappingId: string, path: string) {
    return api.get<{ content: string; contentHash: string; path: string }>(notePathUrl(path), { query: { mappingId } });
  }

  async function trashOf(api: RestClient, mappingId: string): Promise<TrashEntryBody[]> {
    const response = await api.get<{ entries: TrashEntryBody[] }>('/notes/trash', { query: { mappingId } });
    expect(response.status, response.text).toBe(200);
    return response.body.entries;
  }

  /** Seeds the notes every status of a preview needs, and one trash entry; returns the hashes and the trash id. */
  async function stage(api: RestClient, mappingId: string) {
    const hashes = await seedNotes(api, mappingId, {
      'notes/update.md': 'line one\nline two\n',
      'notes/delete.md': 'to be deleted\n',
      'notes/same.md': 'same\n',
      'notes/stale.md': 'stale\n',
      'notes/restore.md': 'restore me\n',
    });
    const deleted = await apply(api, mappingId, [{ type: 'delete-note', path: 'notes/restore.md', expectedHash: hashes['notes/restore.md']! }]);
    expect(deleted.status, deleted.text).toBe(200);
    return { hashes, trashId: deleted.body.actions[0]!.trashId! };
  }

  it('previews by default: a status, both revisions and a unified diff per action, and changes nothing', async () => {
    const { api, mappingId } = await vault('preview');
    const { hashes, trashId } = await stage(api, mappingId);
    const actions: Action[] = [
      { type: 'write-note', path: 'notes/new.md', content: 'brand new\n' },
      { type: 'write-note', path: 'notes/update.md', content: 'line one\nline 2\n' },
      { type: 'delete-note', path: 'notes/delete.md' },
      { type: 'restore-note', trashId, path: 'notes/restore.md' },
      { type: 'write-note', path: 'notes/same.md', content: 'same\n' },
      { type: 'write-note', path: 'notes/stale.md', content: 'mine\n', expectedHash: hashOf('what I saw\n') },
    ];
    const before = await snapshotOf(gateway);
    const response = await preview(api, mappingId, actions);
    expect(response.status, response.text).toBe(200);
    expect(await snapshotOf(gateway)).toBe(before);
    expect(response.body).toMatchObject({ mappingId, dryRun: true, applied: false });

    const [create, update, del, restore, noop, conflict] = response.body.actions;
    expect(create).toMatchObject({ index: 0, type: 'write-note', status: 'create', beforeRevision: null, afterRevision: hashOf('brand new\n') });
    expect(create!.diff).toContain('--- /dev/null\n+++ b/notes/new.md\n');
    expect(create!.diff).toContain('\n+brand new\n');

    expect(update).toMatchObject({ status: 'update', beforeRevision: hashes['notes/update.md'], afterRevision: hashOf('line one\nline 2\n') });
    expect(update!.diff).toContain('--- a/notes/update.md\n+++ b/notes/update.md\n');
    expect(update!.diff).toMatch(/\n line one\n-line two\n\+line 2\n/);
    expect(update!.diffTruncated).toBe(false);

    expect(del).toMatchObject({ type: 'delete-note', status: 'delete', beforeRevision: hashes['notes/delete.md'], afterRevision: null });
    // A preview names no trash entry: it would never exist.
    expect(del).not.toHaveProperty('trashId');
    expect(del!.diff).toContain('--- a/notes/delete.md\n+++ /dev/null\n');
    expect(del!.diff).toContain('\n-to be deleted\n');

    expect(restore).toMatchObject({ type: 'restore-note', status: 'restore', beforeRevision: null, afterRevision: hashOf('restore me\n'), trashId });
    expect(restore!.diff).toContain('\n+restore me\n');

    expect(noop).toMatchObject({ status: 'no-op', beforeRevision: hashes['notes/same.md'], afterRevision: hashes['notes/same.md'] });

    expect(conflict).toMatchObject({
      status: 'conflict',
      beforeRevision: hashes['notes/stale.md'],
      problem: { code: 'stale_revision' },
    });
    for (const result of [create, update, del, restore, noop]) expect(result).not.toHaveProperty('problem');

    // dryRun: true says the same thing out loud.
    const explicit = await api.post<typeof response.body>('/transactions', { json: { mappingId, dryRun: true, actions } });
    expect(explicit.status).toBe(200);
    expect(explicit.body.actions.map((a) => a.status)).toEqual(['create', 'update', 'delete', 'restore', 'no-op', 'conflict']);
    expect(await snapshotOf(gateway)).toBe(before);
  });

  it('previews what an apply would refuse as conflicts with their problem, without failing', async () => {
    const { api, mappingId } = await vault('preview-conflicts');
    const { hashes, trashId } = await stage(api, mappingId);
    await seedNotes(api, mappingId, { 'notes/restore.md': 'someone took the place\n' });
    const before = await snapshotOf(gateway);
    const response = await preview(api, mappingId, [
      { type: 'delete-note', path: 'notes/missing.md' },
      { type: 'restore-note', trashId, path: 'notes/restore.md' },
      { type: 'write-note', path: 'notes/ghost.md', content: 'x', expectedHash: hashes['notes/same.md']! },
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body.actions.map((a) => [a.status, a.problem?.code])).toEqual([
      ['conflict', 'not_found'],
      ['conflict', 'conflict'],
      ['conflict', 'stale_revision'],
    ]);
    expect(await snapshotOf(gateway)).toBe(before);
  });

  it('applies create, update, delete, restore and no-op together, with one event per change', async () => {
    const { api, mappingId } = await vault('apply');
    const { hashes, trashId } = await stage(api, mappingId);
    const eventsBefore = await allEvents(api, mappingId);
    const key = newKey();
    const response = await apply(
      api,
      mappingId,
      [
        { type: 'write-note', path: 'notes/new.md', content: 'brand new\n' },
        { type: 'write-note', path: 'notes/update.md', content: 'line one\nline 2\n', expectedHash: hashes['notes/update.md']! },
        { type: 'delete-note', path: 'notes/delete.md', expectedHash: hashes['notes/delete.md']! },
        { type: 'restore-note', trashId, path: 'notes/restore.md' },
        { type: 'write-note', path: 'notes/same.md', content: 'same\n', expectedHash: hashes['notes/same.md']! },
      ],
      key,
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ mappingId, dryRun: false, applied: true });
    expect(response.body.actions.map((a) => a.status)).toEqual(['create', 'update', 'delete', 'restore', 'no-op']);
    for (const result of response.body.actions) expect(result).not.toHaveProperty('diff');
    const deleteTrashId = response.body.actions[2]!.trashId!;
    expect(deleteTrashId).toMatch(/^[0-9a-f-]{36}$/);

    expect((await readNote(api, mappingId, 'notes/new.md')).body.content).toBe('brand new\n');
    expect((await readNote(api, mappingId, 'notes/update.md')).body).toMatchObject({ content: 'line one\nline 2\n', contentHash: hashOf('line one\nline 2\n') });
    expect((await readNote(api, mappingId, 'notes/delete.md')).status).toBe(404);
    expect((await readNote(api, mappingId, 'notes/restore.md')).body.content).toBe('restore me\n');
    expect((await trashOf(api, mappingId)).map((e) => [e.trashId, e.originalPath])).toEqual([[deleteTrashId, 'notes/delete.md']]);

    const events = (await allEvents(api, mappingId)).slice(eventsBefore.length);
    expect(events.map((e) => [e.kind, e.path, e.beforeRevision, e.afterRevision, e.trashId, e.idempotencyKey])).toEqual([
      ['note.created', 'notes/new.md', null, hashOf('brand new\n'), null, key],
      ['note.updated', 'notes/update.md', hashes['notes/update.md'], hashOf('line one\nline 2\n'), null, key],
      ['note.deleted', 'notes/delete.md', hashes['notes/delete.md'], null, deleteTrashId, key],
      ['note.restored', 'notes/restore.md', null, hashOf('restore me\n'), trashId, key],
    ]);
  });

  it('renames a note as write-note of the new path plus delete-note of the old one, in one transaction', async () => {
    const { owner, api, mappingId } = await vault('rename');
    const content = '# Idea\n\nA thought worth keeping.\n';
    const { 'drafts/idea.md': hash } = await seedNotes(api, mappingId, { 'drafts/idea.md': content });
    const key = newKey();
    const response = await apply(
      api,
      mappingId,
      [
        { type: 'write-note', path: 'ideas/idea.md', content },
        { type: 'delete-note', path: 'drafts/idea.md', expectedHash: hash! },
      ],
      key,
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.actions.map((a) => [a.path, a.status])).toEqual([
      ['ideas/idea.md', 'create'],
      ['drafts/idea.md', 'delete'],
    ]);
    const trashId = response.body.actions[1]!.trashId!;

    expect((await readNote(api, mappingId, 'ideas/idea.md')).body).toMatchObject({ content, contentHash: hash });
    expect((await readNote(api, mappingId, 'drafts/idea.md')).status).toBe(404);
    const [entry, ...others] = await trashOf(api, mappingId);
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ trashId, originalPath: 'drafts/idea.md', contentHash: hash, deletedBy: owner.accountId });

    const events = (await allEvents(api, mappingId)).filter((e) => e.idempotencyKey === key);
    expect(events.map((e) => [e.kind, e.path, e.trashId])).toEqual([
      ['note.created', 'ideas/idea.md', null],
      ['note.deleted', 'drafts/idea.md', trashId],
    ]);
    expect(events[1]!.seq).toBe(events[0]!.seq + 1);
  });

  it('restores a deleted note from its trash id and original path; the entry leaves the trash listing', async () => {
    const { api, mappingId } = await vault('restore');
    const content = 'I will be back.\n';
    const { 'archive/back.md': hash } = await seedNotes(api, mappingId, { 'archive/back.md': content });
    const deleted = await apply(api, mappingId, [{ type: 'delete-note', path: 'archive/back.md', expectedHash: hash! }]);
    expect(deleted.status).toBe(200);
    const trashId = deleted.body.actions[0]!.trashId!;
    expect((await trashOf(api, mappingId)).map((e) => e.trashId)).toEqual([trashId]);

    const restored = await apply(api, mappingId, [{ type: 'restore-note', trashId, path: 'archive/back.md' }]);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.actions[0]).toMatchObject({ status: 'restore', beforeRevision: null, afterRevision: hash, trashId });
    expect((await readNote(api, mappingId, 'archive/back.md')).body).toMatchObject({ content, contentHash: hash });
    expect(await trashOf(api, mappingId)).toEqual([]);

    // The note can be deleted again, which makes a second, independent trash entry.
    const again = await apply(api, mappingId, [{ type: 'delete-note', path: 'archive/back.md', expectedHash: hash! }]);
    expect(again.status).toBe(200);
    expect(again.body.actions[0]!.trashId).not.toBe(trashId);
    expect((await trashOf(api, mappingId)).map((e) => e.trashId)).toEqual([again.body.actions[0]!.trashId]);
  });

  it('deletes a note named in another letter case, and reports, trashes and records its stored path', async () => {
    const { api, mappingId } = await vault('case');
    const { 'Projects/Plan.md': hash } = await seedNotes(api, mappingId, { 'Projects/Plan.md': 'plan\n' });
    const key = newKey();
    const response = await apply(api, mappingId, [{ type: 'delete-note', path: 'projects/plan.md', expectedHash: hash! }], key);
    expect(response.status, response.text).toBe(200);
    expect(response.body.actions[0]).toMatchObject({ path: 'Projects/Plan.md', status: 'delete' });
    const [entry] = await trashOf(api, mappingId);
    expect(entry!.originalPath).toBe('Projects/Plan.md');
    expect((await allEvents(api, mappingId)).find((e) => e.idempotencyKey === key)?.path).toBe('Projects/Plan.md');
    const restored = await apply(api, mappingId, [{ type: 'restore-note', trashId: entry!.trashId, path: 'Projects/Plan.md' }]);
    expect(restored.status, restored.text).toBe(200);
  });

  it('accepts 100 actions in one transaction and applies all of them', async () => {
    const { api, mappingId } = await vault('hundred');
    const actions: Action[] = Array.from({ length: 100 }, (_, i) => ({
      type: 'write-note',
      path: `bulk/note-${String(i).padStart(3, '0')}.md`,
      content: `# Note ${i}\n`,
    }));
    const previewed = await preview(api, mappingId, actions);
    expect(previewed.status, previewed.text).toBe(200);
    expect(previewed.body.actions).toHaveLength(100);

    const response = await apply(api, mappingId, actions);
    expect(response.status, response.text).toBe(200);
    expect(response.body.actions.every((a) => a.status === 'create')).toBe(true);
    const listed = await api.get<{ notes: { path: string }[] }>('/notes', { query: { mappingId } });
    expect(listed.body.notes.map((n) => n.path)).toEqual(actions.map((a) => a.path));
    expect((await allEvents(api, mappingId)).filter((e) => e.kind === 'note.created')).toHaveLength(100);
  });

  it('takes the mapping from the X-Service-Mapping header as well as from the body', async () => {
    const { api, mappingId } = await vault('header');
    const actions: Action[] = [{ type: 'write-note', path: 'h/a.md', content: 'a\n' }];
    const response = await api.post<{ mappingId: string; applied: boolean }>('/transactions', {
      json: { dryRun: false, actions },
      headers: { 'x-service-mapping': mappingId, 'idempotency-key': newKey() },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ mappingId, applied: true });
    expect((await readNote(api, mappingId, 'h/a.md')).body.content).toBe('a\n');
  });

  it('keeps paths canonical: an NFD path is stored and reported in NFC', async () => {
    const { api, mappingId } = await vault('nfc');
    const response = await apply(api, mappingId, [{ type: 'write-note', path: 'notes/cafe\u0301.md', content: 'coffee\n' }]);
    expect(response.status, response.text).toBe(200);
    expect(response.body.actions[0]!.path).toBe('notes/caf\u00e9.md');
    expect((await readNote(api, mappingId, 'notes/caf\u00e9.md')).body.content).toBe('coffee\n');
  });
});
