import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { snapshotTables, type Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { NoteAction } from './transaction-contract.ts';

// Applies to one mapping that arrive together share one database transaction (group commit). Each keeps its own
// checks, answer, key and provenance; a refused one writes nothing, whatever its group does.
describe('applied note transactions that share a commit', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('apply-group'));
    // A mapping shares commits once this process knows it is hosted (a remote one never does): any resolution tells it.
    await services.vaults.resolveMapping(owner.accountId, owner.mapping.id, 'read');
  });
  afterAll(() => db.close());

  const apply = (key: string, actions: NoteAction[]) => {
    const input = { actor: owner.actor, mappingId: owner.mapping.id, actions, capability: 'direct' as const };
    const shared = services.notes.shareTransaction(input)!;
    expect(shared).toBeDefined();
    return services.idempotency.runShared(
      { accountId: owner.accountId, key, operation: 'runNoteTransaction', input: actions },
      { ...shared, present: (result) => result },
    );
  };
  const version = async () =>
    (await db.query<{ v: number }>('SELECT content_version AS v FROM vaults WHERE id = $1', [owner.mapping.vaultId]))[0]!.v;
  const events = () =>
    db.query<{ kind: string; path: string; idempotency_key: string }>(
      'SELECT kind, path, idempotency_key FROM provenance_events WHERE vault_id = $1 ORDER BY seq',
      [owner.mapping.vaultId],
    );

  it('applies each member with its own key and events, in one transaction after the first', async () => {
    const before = await version();
    const members = ['a', 'b', 'c', 'd'].map((name) => ({
      key: `key-${name}`,
      actions: [
        { type: 'write-note' as const, path: `g/${name}-1.md`, content: `# ${name} one\n\nLinks [[${name}-2]].\n` },
        { type: 'write-note' as const, path: `g/${name}-2.md`, content: `# ${name} two\n` },
      ],
    }));
    const outcomes = await Promise.all(members.map((m) => apply(m.key, m.actions)));
    for (const outcome of outcomes) {
      expect(outcome.replayed).toBe(false);
      if (!outcome.replayed) expect(outcome.value.actions.map((a) => a.status)).toEqual(['create', 'create']);
    }
    // The first ran alone; the three that arrived meanwhile shared one transaction, one version step.
    expect(await version()).toBe(before + 2);
    const recorded = await events();
    expect(recorded.map((e) => [e.idempotency_key, e.path])).toEqual(members.flatMap((m) => m.actions.map((a) => [m.key, a.path])));
    expect(recorded.every((e) => e.kind === 'note.created')).toBe(true);
    const links = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM note_links WHERE vault_id = $1', [owner.mapping.vaultId]);
    expect(links[0]!.count).toBe(4);
  });

  it('refuses a stale member whole, writing none of its actions, while the others of its group commit', async () => {
    const events0 = (await events()).length;
    const stale = [
      { type: 'write-note' as const, path: 's/fresh.md', content: 'would be new\n' },
      { type: 'write-note' as const, path: 'g/a-2.md', content: 'late\n', expectedHash: contentHash('not what is there\n') },
    ];
    const results = await Promise.allSettled([
      apply('s-first', [{ type: 'write-note', path: 's/first.md', content: 'first\n' }]),
      apply('s-ok', [{ type: 'delete-note', path: 'g/b-1.md', expectedHash: contentHash('# b one\n\nLinks [[b-2]].\n') }]),
      apply('s-stale', stale),
      apply('s-ok-2', [{ type: 'write-note', path: 's/second.md', content: 'second\n' }]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'stale_revision' });
    const paths = (await db.query<{ path: string }>('SELECT path FROM notes WHERE vault_id = $1 ORDER BY path', [owner.mapping.vaultId])).map((r) => r.path);
    expect(paths).not.toContain('s/fresh.md');
    expect(paths).not.toContain('g/b-1.md');
    expect(paths).toEqual(expect.arrayContaining(['s/first.md', 's/second.md', 'g/a-2.md']));
    const trash = await db.query<{ original_path: string; deleted_by: string }>('SELECT original_path, deleted_by FROM trash_entries WHERE vault_id = $1', [
      owner.mapping.vaultId,
    ]);
    expect(trash).toEqual([{ original_path: 'g/b-1.md', deleted_by: owner.accountId }]);
    expect((await events()).length).toBe(events0 + 3);
    const refusal = await db.query<{ outcome: string }>("SELECT outcome FROM idempotency_keys WHERE key = 's-stale'");
    expect(JSON.parse(refusal[0]!.outcome)).toMatchObject({ kind: 'error', code: 'stale_revision' });
  });

  it('gives a move that rewrites links no group, and its runner refuses members that may not share one', async () => {
    const move = { type: 'move-note' as const, path: 'g/a-2.md', newPath: 'g/a-moved.md', expectedHash: contentHash('# a two\n'), rewriteLinks: true };
    const input = { actor: owner.actor, mappingId: owner.mapping.id, capability: 'direct' as const };
    expect(services.notes.shareTransaction({ ...input, actions: [move] })).toBeUndefined();
    expect(services.notes.shareTransaction({ ...input, actions: [{ type: 'write-note', path: '../escape.md', content: 'x' }] })).toBeUndefined();

    const write = (content: string) => services.notes.shareTransaction({ ...input, actions: [{ type: 'write-note', path: 'o/same.md', content }] })!;
    const [one, two] = [write('one\n'), write('two\n')];
    const before = await snapshotTables(db);
    await expect(
      db.transaction((sql) =>
        one.runGroup(sql, [{ payload: one.payload, key: 'o-1' }, { payload: two.payload, key: 'o-2' }], {
          admitted: Promise.resolve([true, true]),
          settle: () => Promise.resolve(),
        }),
      ),
    ).rejects.toThrow(/two transactions of one group touch path:o\/same\.md/);
    expect(await snapshotTables(db)).toBe(before);
  });
});
