import { describe, expect, it } from 'vitest';
import { useMcpSuite } from './support/mcp-suite.ts';
import { snapshotOf } from './support/rest-client.ts';

describe('governed writes over MCP, as an agent does them', () => {
  const suite = useMcpSuite();
  const { call } = suite;

  it('preview, apply, read back, stale apply refused with nothing changed, replay returns the same result', async () => {
    const mappingId = suite.owner.mapping.id;
    const preview = await call('preview_note_writes', { mappingId, notes: [{ path: 'Plans/q1.md', content: '# Q1\n- ship\n' }] });
    expect(preview.isError).toBe(false);
    expect(preview.data.actions[0]).toMatchObject({ status: 'create', beforeRevision: null });
    expect(preview.data.actions[0].diff).toContain('+# Q1');

    const approved = [{ path: 'Plans/q1.md', content: '# Q1\n- ship\n' }];
    const applied = await call('apply_note_writes', { mappingId, notes: approved, idempotencyKey: 'agent-1' });
    expect(applied.data).toMatchObject({ applied: true, actions: [{ status: 'create' }] });

    const read = await call('get_note_content', { mappingId, path: 'Plans/q1.md' });
    expect(read.data.content).toBe('# Q1\n- ship\n');
    const firstHash = read.data.contentHash as string;

    const update = await call('apply_note_writes', {
      mappingId,
      notes: [{ path: 'Plans/q1.md', content: '# Q1\n- ship\n- measure\n', expectedHash: firstHash }],
      idempotencyKey: 'agent-2',
    });
    expect(update.data.actions[0]).toMatchObject({ status: 'update', beforeRevision: firstHash });

    const before = await snapshotOf(suite.gateway);
    const stale = await call('apply_note_writes', {
      mappingId,
      notes: [{ path: 'Plans/q1.md', content: '# Q1\n- overwrite\n', expectedHash: firstHash }],
      idempotencyKey: 'agent-3',
    });
    expect(stale).toMatchObject({ isError: true, data: { code: 'stale_revision' } });
    expect(await snapshotOf(suite.gateway)).toBe(before);

    const replay = await call('apply_note_writes', { mappingId, notes: approved, idempotencyKey: 'agent-1' });
    expect(replay.data).toEqual({ ...applied.data, replayed: true });
    expect(await snapshotOf(suite.gateway)).toBe(before);
  });

  it('preview tools reject a dryRun override, and applying needs the current hash', async () => {
    const before = await snapshotOf(suite.gateway);
    const override = await call('preview_note_writes', { mappingId: suite.owner.mapping.id, dryRun: false, notes: [{ path: 'x/y.md', content: 'x' }] });
    expect(override).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    const noHash = await call('apply_note_writes', { mappingId: suite.owner.mapping.id, notes: [{ path: 'Plans/q1.md', content: 'x' }], idempotencyKey: 'agent-4' });
    expect(noHash).toMatchObject({ isError: true, data: { code: 'precondition_required' } });
    const noKey = await call('apply_note_writes', { mappingId: suite.owner.mapping.id, notes: [{ path: 'n/new.md', content: 'x' }] });
    expect(noKey).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    const reused = await call('apply_note_writes', { mappingId: suite.owner.mapping.id, notes: [{ path: 'n/other.md', content: 'x' }], idempotencyKey: 'agent-1' });
    expect(reused).toMatchObject({ isError: true, data: { code: 'idempotency_key_reused' } });
    expect(await snapshotOf(suite.gateway)).toBe(before);
  });

  it('deletions go through preview and apply with hashes, into the trash', async () => {
    const read = await call('get_note_content', { mappingId: suite.owner.mapping.id, path: 'Plans/q1.md' });
    const preview = await call('preview_note_deletions', { mappingId: suite.owner.mapping.id, notes: [{ path: 'Plans/q1.md' }] });
    expect(preview.data.actions[0]).toMatchObject({ status: 'delete', beforeRevision: read.data.contentHash });
    const missingHash = await call('apply_note_deletions', { mappingId: suite.owner.mapping.id, notes: [{ path: 'Plans/q1.md' }], idempotencyKey: 'del-0' });
    expect(missingHash).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    const applied = await call('apply_note_deletions', {
      mappingId: suite.owner.mapping.id,
      notes: [{ path: 'Plans/q1.md', expectedHash: read.data.contentHash }],
      idempotencyKey: 'del-1',
    });
    expect(applied.data.actions[0]).toMatchObject({ status: 'delete', trashId: expect.any(String) });
    const gone = await call('get_note_content', { mappingId: suite.owner.mapping.id, path: 'Plans/q1.md' });
    expect(gone).toMatchObject({ isError: true, data: { code: 'not_found' } });
    const trash = await suite.gateway.db.query('SELECT original_path FROM trash_entries WHERE id = $1', [applied.data.actions[0].trashId]);
    expect(trash).toEqual([{ original_path: 'Plans/q1.md' }]);
  });

  it('create_or_append_note previews by default, creates, then appends on a new line with the current hash', async () => {
    const mappingId = suite.owner.mapping.id;
    const preview = await call('create_or_append_note', { mappingId, path: 'Log/today.md', content: 'first' });
    expect(preview.data).toMatchObject({ dryRun: true, applied: false, actions: [{ status: 'create' }] });
    await call('create_or_append_note', { mappingId, path: 'Log/today.md', content: 'first', dryRun: false, idempotencyKey: 'log-1' });
    const appendPreview = await call('create_or_append_note', { mappingId, path: 'Log/today.md', content: 'second' });
    expect(appendPreview.data.actions[0].diff).toContain('+second');
    const withoutHash = await call('create_or_append_note', { mappingId, path: 'Log/today.md', content: 'second', dryRun: false, idempotencyKey: 'log-2' });
    expect(withoutHash).toMatchObject({ isError: true, data: { code: 'precondition_required' } });
    const hash = (await call('get_note_content', { mappingId, path: 'Log/today.md' })).data.contentHash;
    await call('create_or_append_note', { mappingId, path: 'Log/today.md', content: 'second', dryRun: false, expectedHash: hash, idempotencyKey: 'log-3' });
    expect((await call('get_note_content', { mappingId, path: 'Log/today.md' })).data.content).toBe('first\nsecond');
  });

  it('refuses paths Windows and synced drives refuse, in preview, apply and create_or_append_note alike, changing nothing', async () => {
    const mappingId = suite.owner.mapping.id;
    const cases = [
      ['Hostile/CON.md', 'reserved_name'],
      ['Notes /a.md', 'trailing_dot_or_space'],
      ['Why?.md', 'reserved_character'],
    ] as const;
    for (const [path, reason] of cases) {
      const before = await snapshotOf(suite.gateway);
      const refusals = [
        await call('preview_note_writes', { mappingId, notes: [{ path: 'ok/first.md', content: 'x' }, { path, content: 'x' }] }),
        await call('apply_note_writes', { mappingId, notes: [{ path: 'ok/first.md', content: 'x' }, { path, content: 'x' }], idempotencyKey: `portable-${reason}` }),
      ];
      for (const refused of refusals) {
        expect(refused).toMatchObject({ isError: true, data: { code: 'invalid_path', details: { reason, index: 1, field: 'path' } } });
      }
      const appended = await call('create_or_append_note', { mappingId, path, content: 'x' });
      expect(appended).toMatchObject({ isError: true, data: { code: 'invalid_path', details: { reason } } });
      expect(await snapshotOf(suite.gateway)).toBe(before);
    }
  });

  it('needs the owner\'s "Allow hosted MCP note changes" switch on that mapping', async () => {
    await suite.gateway.services.vaults.updateMappingFlags(suite.owner.mapping.id, { allowMcpNoteChanges: false });
    try {
      const vaults = await call('list_vaults', {});
      expect(vaults.data.vaults[0]).toMatchObject({ writeAccess: false });
      const before = await snapshotOf(suite.gateway);
      const refused = await call('apply_note_writes', { mappingId: suite.owner.mapping.id, notes: [{ path: 'n/a.md', content: 'x' }], idempotencyKey: 'switch-1' });
      expect(refused).toMatchObject({ isError: true, data: { code: 'mcp_changes_disabled' } });
      expect(await snapshotOf(suite.gateway)).toBe(before);
    } finally {
      await suite.gateway.services.vaults.updateMappingFlags(suite.owner.mapping.id, { allowMcpNoteChanges: true });
    }
  });
});
