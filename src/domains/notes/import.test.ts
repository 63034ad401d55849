import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, snapshotTables, type Owner } from '../../../test/support/fixtures.ts';
import type { Database } from '../../db/port.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { Services } from '../../app/services.ts';

describe('importing notes into a hosted vault', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let actor: Actor;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase());
    actor = { accountId: owner.accountId, credentialKind: 'operator', client: 'test' };
  });
  afterAll(() => db.close());

  const snapshot = () => snapshotTables({ query: (sql) => db.query(sql) });
  const events = () =>
    db.query<{ kind: string; path: string; before_revision: string | null; after_revision: string }>(
      'SELECT kind, path, before_revision, after_revision FROM provenance_events WHERE mapping_id = $1 ORDER BY seq',
      [owner.mapping.id],
    );

  it('creates, then reports unchanged, then updates, with one provenance event per change', async () => {
    const files = [
      { path: 'Home.md', content: '# Home\nSee [[Plan]].\n' },
      { path: 'Projects/Plan.md', content: '---\ntags: [a]\n---\n# The plan\n' },
    ];
    expect(await services.notes.importNotes(actor, owner.mapping.id, files)).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
      rejected: [],
    });
    expect(await services.notes.importNotes(actor, owner.mapping.id, files)).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    const changed = [{ path: 'Home.md', content: '# Home\nChanged.\n' }];
    expect(await services.notes.importNotes(actor, owner.mapping.id, changed)).toMatchObject({ updated: 1, unchanged: 0 });

    expect(await events()).toEqual([
      { kind: 'note.created', path: 'Home.md', before_revision: null, after_revision: contentHash(files[0]!.content) },
      { kind: 'note.created', path: 'Projects/Plan.md', before_revision: null, after_revision: contentHash(files[1]!.content) },
      { kind: 'note.updated', path: 'Home.md', before_revision: contentHash(files[0]!.content), after_revision: contentHash('# Home\nChanged.\n') },
    ]);
    const [plan] = await db.query('SELECT title, size, content_hash, path_key FROM notes WHERE path = $1', ['Projects/Plan.md']);
    expect(plan).toEqual({
      title: 'The plan',
      size: Buffer.byteLength(files[1]!.content),
      content_hash: contentHash(files[1]!.content),
      path_key: 'projects/plan.md',
    });
  });

  it('stores paths in NFC and counts sizes in UTF-8 bytes', async () => {
    await services.notes.importNotes(actor, owner.mapping.id, [{ path: 'Cafe\u0301.md', content: 'é€' }]);
    const rows = await db.query<{ path: string; size: number }>('SELECT path, size FROM notes WHERE path_key = $1', [
      'caf\u00e9.md',
    ]);
    expect(rows).toEqual([{ path: 'Caf\u00e9.md', size: 5 }]);
  });

  it('reports invalid paths, case-only duplicates and oversized files, and imports the rest', async () => {
    const result = await services.notes.importNotes(actor, owner.mapping.id, [
      { path: '../escape.md', content: 'x' },
      { path: 'Dup.md', content: 'one' },
      { path: 'dup.md', content: 'two' },
      { path: 'big.md', content: 'x'.repeat(4 * 1024 * 1024 + 1) },
    ]);
    expect(result.created).toBe(1);
    expect(result.rejected.map((r) => [r.path, r.code])).toEqual([
      ['../escape.md', 'invalid_path'],
      ['dup.md', 'conflict'],
      ['big.md', 'payload_too_large'],
    ]);
  });

  it('reports names that Windows and synced drives refuse as invalid paths, naming the rule, and stores none of them', async () => {
    const before = await snapshot();
    const files = ['Hostile/CON.md', 'nul.md', 'COM1.md', 'Notes /a.md', 'a./b.md', 'What?.md'].map((path) => ({ path, content: 'x' }));
    const result = await services.notes.importNotes(actor, owner.mapping.id, files);
    expect(result).toEqual({
      created: 0,
      updated: 0,
      unchanged: 0,
      rejected: [
        { path: 'Hostile/CON.md', code: 'invalid_path', reason: expect.stringContaining('reserved device name') },
        { path: 'nul.md', code: 'invalid_path', reason: expect.stringContaining('reserved device name') },
        { path: 'COM1.md', code: 'invalid_path', reason: expect.stringContaining('reserved device name') },
        { path: 'Notes /a.md', code: 'invalid_path', reason: expect.stringContaining('ends in a dot or a space') },
        { path: 'a./b.md', code: 'invalid_path', reason: expect.stringContaining('ends in a dot or a space') },
        { path: 'What?.md', code: 'invalid_path', reason: expect.stringContaining('refuse < > : " | ? *') },
      ],
    });
    expect(await snapshot()).toBe(before);
  });

  it('a dry run reports what would happen and writes nothing', async () => {
    const before = await snapshot();
    const result = await services.notes.importNotes(
      actor,
      owner.mapping.id,
      [{ path: 'New.md', content: 'new' }, { path: 'Home.md', content: 'different' }],
      { dryRun: true },
    );
    expect(result).toMatchObject({ created: 1, updated: 1 });
    expect(await snapshot()).toBe(before);
  });

  it("refuses another account's mapping exactly like an unknown one, and changes nothing", async () => {
    const stranger = await createOwner(services, 'stranger');
    const strangerActor: Actor = { accountId: stranger.accountId, credentialKind: 'operator' };
    const before = await snapshot();
    const foreign = await services.notes
      .importNotes(strangerActor, owner.mapping.id, [{ path: 'x.md', content: 'x' }])
      .catch((e: { code: string; message: string }) => e);
    const unknown = await services.notes
      .importNotes(strangerActor, '00000000-0000-7000-8000-000000000000', [{ path: 'x.md', content: 'x' }])
      .catch((e: { code: string; message: string }) => e);
    const malformed = await services.notes
      .importNotes(strangerActor, 'not-a-uuid', [{ path: 'x.md', content: 'x' }])
      .catch((e: { code: string; message: string }) => e);
    for (const error of [foreign, unknown, malformed]) {
      expect(error).toMatchObject({ code: 'not_found', message: 'The mapping does not exist.' });
    }
    expect(await snapshot()).toBe(before);
  });

  it('a workspace viewer may read but not write', async () => {
    const viewer = await createOwner(services, 'viewer');
    await services.workspaces.setMemberRole(owner.workspaceId, viewer.accountId, 'viewer');
    const viewerActor: Actor = { accountId: viewer.accountId, credentialKind: 'operator' };
    expect(await services.notes.countNotes(viewerActor, owner.mapping.id)).toBeGreaterThan(0);
    const before = await snapshot();
    await expect(
      services.notes.importNotes(viewerActor, owner.mapping.id, [{ path: 'v.md', content: 'v' }]),
    ).rejects.toMatchObject({ code: 'forbidden' });
    expect(await snapshot()).toBe(before);
  });

  it('iterates every note in byte order of path, page by page', async () => {
    const pages: string[][] = [];
    for await (const page of services.notes.iterateNotes(actor, owner.mapping.id, 2)) pages.push(page.map((n) => n.path));
    const all = pages.flat();
    expect(pages.every((p) => p.length <= 2)).toBe(true);
    expect(all).toEqual([...all].sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b)))));
    expect(all).toHaveLength(await services.notes.countNotes(actor, owner.mapping.id));
  });

  it('serializes concurrent imports into one vault without losing a change', async () => {
    const batches = Array.from({ length: 6 }, (_, i) => [{ path: `concurrent/${i}.md`, content: `# ${i}\n` }, { path: 'shared.md', content: `v${i}` }]);
    const results = await Promise.all(batches.map((files) => services.notes.importNotes(actor, owner.mapping.id, files)));
    expect(results.reduce((n, r) => n + r.created + r.updated + r.unchanged, 0)).toBe(12);
    const shared = await db.query<{ kind: string; before_revision: string | null; after_revision: string }>(
      "SELECT kind, before_revision, after_revision FROM provenance_events WHERE path = 'shared.md' AND mapping_id = $1 ORDER BY seq",
      [owner.mapping.id],
    );
    // The revisions chain: each change starts from the one before it, in seq order.
    for (let i = 1; i < shared.length; i += 1) expect(shared[i]!.before_revision).toBe(shared[i - 1]!.after_revision);
  });
});
