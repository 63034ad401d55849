import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import { insertRemoteMapping } from '../../../test/support/remote-mappings.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import { contentHash } from '../../kernel/hashing.ts';
import { createNoteMirror, type MirrorChange, type MirrorMapping, type NoteMirror } from './index.ts';

// The synchronized copy of a remote mapping through the real notes, search, knowledge and provenance services: what
// the mirror writes is read like any hosted note, each change is one event of the owner's sync, and nothing else.
describe('notes mirror', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let mapping: Awaited<ReturnType<typeof insertRemoteMapping>>;
  let mirror: NoteMirror;
  const forgotten: string[] = [];

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('mirror'));
    mapping = await insertRemoteMapping(db, { accountId: owner.accountId, workspaceId: owner.workspaceId, provider: 'dropbox', root: { kind: 'dropbox', path: '/Notes' } });
    mirror = createNoteMirror({
      onContentChanged: (vaultId) => forgotten.push(vaultId),
      observeChanges: (sql, vaultId, transitions) => services.knowledge.recordChanges(sql, vaultId, transitions),
    });
  });
  afterAll(() => db.close());

  const target = (): MirrorMapping => ({ ...mapping });
  const apply = (changes: MirrorChange[], to: MirrorMapping = target()) => db.transaction((tx) => mirror(tx, to, changes));
  const notes = () => db.query<{ path: string; content: string }>('SELECT path, content FROM notes WHERE vault_id = $1 ORDER BY path', [mapping.vaultId]);
  const events = () =>
    db.query<{ kind: string; path: string; credential_kind: string; credential_id: string; account_id: string; details: Record<string, unknown>; before_revision: string | null; after_revision: string | null }>(
      'SELECT kind, path, credential_kind, credential_id, account_id, details, before_revision, after_revision FROM provenance_events WHERE mapping_id = $1 ORDER BY seq',
      [mapping.id],
    );

  it('creates notes with their links, records one sync event each, and search and knowledge read them', async () => {
    const plan = '# Plan\n\n- [ ] Ship the mirror\n\nSee [[Ideas]].\n';
    const outcome = await apply([
      { path: 'Plan.md', content: plan, providerRevision: 'rev-1' },
      { path: 'Deep/Ideas.md', content: '# Ideas\n\nquokka\n', providerRevision: 'rev-2' },
    ]);
    expect(outcome).toEqual({ created: 2, updated: 0, removed: 0, unchanged: 0 });
    expect((await notes()).map((n) => n.path)).toEqual(['Deep/Ideas.md', 'Plan.md']);
    expect(forgotten).toContain(mapping.vaultId);
    const links = await db.query<{ target: string }>('SELECT target FROM note_links WHERE vault_id = $1', [mapping.vaultId]);
    expect(links.map((l) => l.target)).toEqual(['Ideas']);
    expect(await events()).toEqual([
      {
        kind: 'note.created',
        path: 'Plan.md',
        credential_kind: 'sync',
        credential_id: mapping.connectionId,
        account_id: owner.accountId,
        details: { via: 'sync', providerRevision: 'rev-1' },
        before_revision: null,
        after_revision: contentHash(plan),
      },
      expect.objectContaining({ kind: 'note.created', path: 'Deep/Ideas.md', details: { via: 'sync', providerRevision: 'rev-2' } }),
    ]);
    const found = await services.search.searchNotes(owner.actor, mapping.id, { query: 'quokka' });
    expect(found.results.map((r) => r.path)).toEqual(['Deep/Ideas.md']);
    const commitments = await services.knowledge.commitments({ vaultId: mapping.vaultId, pathPrefixes: [], tags: [] }, {});
    expect(commitments.items.map((c) => c.text)).toEqual(['Ship the mirror']);
  });

  it('records nothing for identical content, and an update with its diff and a case-only rename as one change', async () => {
    const before = (await events()).length;
    expect(await apply([{ path: 'Plan.md', content: '# Plan\n\n- [ ] Ship the mirror\n\nSee [[Ideas]].\n', providerRevision: 'rev-1b' }])).toMatchObject({ unchanged: 1 });
    expect(await events()).toHaveLength(before);
    expect(await apply([{ path: 'deep/ideas.md', content: '# Ideas\n\nquokka wallaby\n', providerRevision: 'rev-3' }])).toMatchObject({ updated: 1 });
    expect((await notes()).map((n) => n.path)).toEqual(['Plan.md', 'deep/ideas.md']);
    const last = (await events()).at(-1)!;
    expect(last).toMatchObject({ kind: 'note.updated', path: 'deep/ideas.md', details: { via: 'sync', providerRevision: 'rev-3', previousPath: 'Deep/Ideas.md' } });
    const diff = await db.query<{ diff: string }>('SELECT diff FROM provenance_events WHERE mapping_id = $1 ORDER BY seq DESC LIMIT 1', [mapping.id]);
    expect(diff[0]!.diff).toContain('+quokka wallaby');
  });

  it('removes a note without a trash entry, and its records go with it', async () => {
    expect(await apply([{ path: 'PLAN.md', content: null, providerRevision: null }, { path: 'Gone.md', content: null, providerRevision: null }])).toEqual({
      created: 0,
      updated: 0,
      removed: 1,
      unchanged: 1,
    });
    expect((await notes()).map((n) => n.path)).toEqual(['deep/ideas.md']);
    expect(await db.query('SELECT 1 FROM trash_entries WHERE vault_id = $1', [mapping.vaultId])).toEqual([]);
    expect((await events()).at(-1)).toMatchObject({ kind: 'note.deleted', path: 'Plan.md', after_revision: null, details: { via: 'sync', providerRevision: null } });
    const commitments = await services.knowledge.commitments({ vaultId: mapping.vaultId, pathPrefixes: [], tags: [] }, {});
    expect(commitments.items).toEqual([]);
  });

  it('refuses content for a device-encrypted mapping and writes nothing, while removals still go through', async () => {
    const encrypted = { ...target(), deviceEncrypted: true };
    const before = JSON.stringify([await notes(), await events()]);
    await expect(apply([{ path: 'Secret.md', content: 'ciphertext', providerRevision: 'r' }], encrypted)).rejects.toThrow(/keeps no content/);
    expect(JSON.stringify([await notes(), await events()])).toBe(before);
    expect(await apply([{ path: 'deep/ideas.md', content: null, providerRevision: null }], encrypted)).toMatchObject({ removed: 1 });
    expect(await notes()).toEqual([]);
  });

  it('records kgate’s own change of a remote note under its caller, key and details', async () => {
    await db.transaction((tx) =>
      mirror(tx, target(), [{ path: 'Mine.md', content: '# Mine\n', providerRevision: 'rev-9' }], {
        accountId: owner.accountId,
        credentialKind: 'oauth',
        client: 'agent',
        idempotencyKey: 'key-1',
        details: { via: 'remote-write' },
      }),
    );
    const rows = await db.query('SELECT credential_kind, client, idempotency_key, details FROM provenance_events WHERE mapping_id = $1 ORDER BY seq DESC LIMIT 1', [mapping.id]);
    expect(rows).toEqual([{ credential_kind: 'oauth', client: 'agent', idempotency_key: 'key-1', details: { via: 'remote-write', providerRevision: 'rev-9' } }]);
    await apply([{ path: 'Mine.md', content: null, providerRevision: null }]);
  });

  it('refuses two changes of one path in one call', async () => {
    await expect(apply([{ path: 'A.md', content: 'a', providerRevision: '1' }, { path: 'a.md', content: null, providerRevision: null }])).rejects.toThrow(/two mirror changes/);
    expect(await notes()).toEqual([]);
  });
});
