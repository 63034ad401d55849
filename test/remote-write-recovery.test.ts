import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../src/app/services.ts';
import type { Database } from '../src/db/port.ts';
import { createNoteMirror, createNotesService, type NotesService } from '../src/domains/notes/index.ts';
import { createRemoteNotes, type RemoteMapping } from '../src/domains/providers/index.ts';
import type { ProviderRequest } from '../src/domains/providers/port.ts';
import { contentHash } from '../src/kernel/hashing.ts';
import { openTestDatabase } from './support/database.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { ADAPTERS, fakeCallFactory, startRemoteFake, type RemoteFake } from './support/remote-fakes.ts';
import { insertRemoteMapping } from './support/remote-mappings.ts';

// The two steps of an applied remote change (src/domains/notes/remote-writes.ts) against each provider's fake:
// a crash between the provider write and its record is recovered by the same key without writing twice, and
// another device's change between kgate's live read and its write is a conflict that overwrites nothing.

let db: Database;
let services: Services;
const fakes = new Map<string, RemoteFake>();
let beforeSend: ((fake: RemoteFake, request: ProviderRequest) => void) | undefined;
let notes: NotesService;

beforeAll(async () => {
  ({ db } = await openTestDatabase());
  services = createServices(db);
  const onContentChanged = (vaultId: string) => services.authorityCache.forgetVault(vaultId);
  const mirror = createNoteMirror({ onContentChanged });
  const remote = createRemoteNotes({ db, adapters: ADAPTERS, callFor: fakeCallFactory(fakes, (fake, request) => beforeSend?.(fake, request)), mirror });
  notes = createNotesService(db, services.vaults, { onContentChanged, remote });
});
afterAll(async () => {
  await Promise.all([...fakes.values()].map((fake) => fake.close()));
  await db.close();
});

const isWrite = (request: ProviderRequest) => request.method !== 'GET' && !/list_folder|get_metadata|download|\/files\?|changes/.test(request.url);

describe.each(['dropbox', 'drive', 'github'] as const)('an applied change to a %s mapping', (kind) => {
  let fake: RemoteFake;
  let owner: Owner;
  let mapping: RemoteMapping;
  const sent: ProviderRequest[] = [];

  beforeAll(async () => {
    fake = await startRemoteFake(kind);
    owner = await createOwner(services, `recover-${kind}`);
    mapping = await insertRemoteMapping(db, { accountId: owner.accountId, workspaceId: owner.workspaceId, provider: kind, root: fake.root, canWrite: true, allowMcpNoteChanges: true });
    fakes.set(mapping.connectionId, fake);
    beforeSend = undefined;
    // The provider's store exists once something is in it (the GitHub fake makes its repository with the first file).
    fake.put('README.md', '# Notes\n');
  });

  const stage = (key: string, actions: Parameters<NotesService['stageTransaction']>[0]['actions']) =>
    notes.stageTransaction({ actor: owner.actor, mappingId: mapping.id, actions, capability: 'direct', scope: `account:${owner.accountId}`, key });
  const record = (key: string, staged: unknown) =>
    db.transaction((sql) => notes.runTransaction({ actor: owner.actor, mappingId: mapping.id, dryRun: false, actions: [], capability: 'direct', commit: { sql, key, staged } }));

  it('after a crash between the provider write and its record, the same key records what the provider holds, writing nothing again', async () => {
    const content = '# Recovered\n\nWritten once.\n';
    const first = await stage('k-crash', [{ type: 'write-note', path: 'Recovered.md', content }]);
    expect(first).toBeDefined();
    expect(fake.files().get('Recovered.md')?.toString('utf8')).toBe(content);
    // The process dies here: nothing is recorded, the intent stays.
    expect(await db.query('SELECT 1 FROM remote_write_intents WHERE idempotency_key = $1', ['k-crash'])).toHaveLength(1);

    sent.length = 0;
    beforeSend = (_fake, request) => sent.push(request);
    const retried = await stage('k-crash', [{ type: 'write-note', path: 'Recovered.md', content }]);
    beforeSend = undefined;
    expect(sent.filter(isWrite)).toEqual([]);
    const result = await record('k-crash', retried);
    expect(result.actions).toEqual([expect.objectContaining({ path: 'Recovered.md', status: 'create', afterRevision: contentHash(content) })]);

    const copy = await db.query<{ content: string }>('SELECT content FROM notes WHERE vault_id = $1 AND path = $2', [mapping.vaultId, 'Recovered.md']);
    expect(copy.map((row) => row.content)).toEqual([content]);
    const events = await db.query<{ kind: string; idempotency_key: string; account_id: string }>(
      "SELECT kind, idempotency_key, account_id FROM provenance_events WHERE mapping_id = $1 AND path = 'Recovered.md'",
      [mapping.id],
    );
    expect(events).toEqual([{ kind: 'note.created', idempotency_key: 'k-crash', account_id: owner.accountId }]);
    expect(await db.query('SELECT 1 FROM remote_write_intents WHERE idempotency_key = $1', ['k-crash'])).toHaveLength(0);
    expect([...fake.files().keys()].filter((path) => path.startsWith('Recovered'))).toEqual(['Recovered.md']);
  });

  it('another device writing between kgate’s live read and its write is a conflict: its content stays, nothing is recorded', async () => {
    fake.put('Shared.md', '# Shared\n\nfirst\n');
    const expectedHash = contentHash('# Shared\n\nfirst\n');
    let raced = false;
    // Counted from the download of kgate's live read: the first request of the write (Drive's version re-check comes
    // after the read's own after-download check), the moment just before it reaches the provider.
    const raceAt = kind === 'drive' ? 2 : 1;
    let afterDownload = -1;
    beforeSend = (_fake, request) => {
      if (raced) return;
      if (afterDownload >= 0) afterDownload += 1;
      if (fake.isDownload(request)) afterDownload = 0;
      if (afterDownload === raceAt) {
        raced = true;
        fake.put('Shared.md', '# Shared\n\nthe other device\n');
      }
    };
    await expect(stage('k-race', [{ type: 'write-note', path: 'Shared.md', content: '# Shared\n\nkgate\n', expectedHash }])).rejects.toMatchObject({ code: 'conflict' });
    beforeSend = undefined;
    expect(raced).toBe(true);
    expect(fake.files().get('Shared.md')?.toString('utf8')).toBe('# Shared\n\nthe other device\n');
    expect(await db.query('SELECT 1 FROM remote_write_intents WHERE idempotency_key = $1', ['k-race'])).toHaveLength(0);
    expect(await db.query("SELECT 1 FROM provenance_events WHERE mapping_id = $1 AND path = 'Shared.md'", [mapping.id])).toHaveLength(0);
  });

  it('refuses two notes under one key, a stale expected hash, and an import, changing nothing at the provider or in the copy', async () => {
    const before = new Map(fake.files());
    await expect(stage('k-two', [
      { type: 'write-note', path: 'One.md', content: '1' },
      { type: 'write-note', path: 'Two.md', content: '2' },
    ])).rejects.toMatchObject({ code: 'one_note_per_key' });
    await expect(stage('k-stale', [{ type: 'write-note', path: 'Shared.md', content: 'x', expectedHash: contentHash('not what it holds') }])).rejects.toMatchObject({ code: 'stale_revision' });
    // An operator's import writes hosted vaults only: into a remote mapping's copy it would bypass the provider.
    await expect(services.notes.importNotes(owner.actor, mapping.id, [{ path: 'Imported.md', content: '# Imported\n' }])).rejects.toMatchObject({ code: 'invalid_request' });
    expect(fake.files()).toEqual(before);
    expect(await db.query("SELECT 1 FROM notes WHERE vault_id = $1 AND path = 'Imported.md'", [mapping.vaultId])).toHaveLength(0);
  });
});
