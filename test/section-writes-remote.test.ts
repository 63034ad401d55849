import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteKind } from '../src/domains/providers/index.ts';
import type { Mapping } from '../src/domains/vaults/index.ts';
import {
  REMOTE_KINDS,
  connectOwnerAndStranger,
  createRemoteMapping,
  startRemoteSuite,
  syncEvery,
  type RemoteSuite,
} from './support/remote-gateway.ts';
import { snapshotOf } from './support/rest-client.ts';
import { hashOf } from './support/rest-transactions.ts';

// Section-level writes to remote mappings (docs/api.md#section-level-writes): the target is resolved against the
// note as the provider holds it, and the provider receives the whole note it makes.

const SEED = '# Plan\r\nfirst draft\r\n## Tasks\r\n- one\r\n';

describe('section-level writes to remote mappings', () => {
  const mappings = new Map<RemoteKind, Mapping>();
  let suite: RemoteSuite;

  beforeAll(async () => {
    suite = await startRemoteSuite();
    await Promise.all(
      REMOTE_KINDS.map(async (kind) => {
        suite.fixtures.get(kind)!.put('Plans/remote.md', SEED);
        const { connection } = await connectOwnerAndStranger(suite, kind);
        mappings.set(kind, await createRemoteMapping(suite, kind, suite.owner, connection.id, 'sections', { allowMcpNoteChanges: true }));
      }),
    );
    await syncEvery(suite.gateway, [...mappings.values()]);
  }, 60_000);

  afterAll(() => suite?.close());

  describe.each(REMOTE_KINDS)('%s', (kind) => {
    it('apply_note_writes and create_or_append_note with a heading target write the whole note to the provider', async () => {
      const mappingId = mappings.get(kind)!.id;
      const fixture = suite.fixtures.get(kind)!;
      const applied = await suite.owner.call('apply_note_writes', {
        mappingId,
        notes: [{ path: 'Plans/remote.md', content: 'second draft\n', target: { type: 'heading', heading: 'Plan', mode: 'replace' }, expectedHash: hashOf(SEED) }],
        idempotencyKey: `sections-${kind}-1`,
      });
      // Replacing "Plan" replaces its subtree too: the ## Tasks section is part of it.
      expect(applied.isError, JSON.stringify(applied.data)).toBe(false);
      expect(fixture.content('Plans/remote.md')).toBe('# Plan\r\nsecond draft\r\n');
      expect(applied.data.actions[0]).toMatchObject({ status: 'update', afterRevision: hashOf('# Plan\r\nsecond draft\r\n') });

      const appended = await suite.owner.call('create_or_append_note', {
        mappingId,
        path: 'Plans/remote.md',
        content: '- added',
        target: { type: 'heading', heading: 'Plan', mode: 'append' },
        dryRun: false,
        expectedHash: hashOf('# Plan\r\nsecond draft\r\n'),
        idempotencyKey: `sections-${kind}-2`,
      });
      expect(appended.isError, JSON.stringify(appended.data)).toBe(false);
      expect(fixture.content('Plans/remote.md')).toBe('# Plan\r\nsecond draft\r\n- added\r\n');

      const before = await snapshotOf(suite.gateway);
      const missing = await suite.owner.call('apply_note_writes', {
        mappingId,
        notes: [{ path: 'Plans/remote.md', content: 'x', target: { type: 'block', blockId: 'nope' }, expectedHash: hashOf('# Plan\r\nsecond draft\r\n- added\r\n') }],
        idempotencyKey: `sections-${kind}-3`,
      });
      expect(missing).toMatchObject({ isError: true, data: { code: 'target_not_found' } });
      expect(fixture.content('Plans/remote.md')).toBe('# Plan\r\nsecond draft\r\n- added\r\n');
      expect(await snapshotOf(suite.gateway)).toBe(before);
    });
  });
});
