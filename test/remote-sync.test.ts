import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../src/app/services.ts';
import type { Database } from '../src/db/port.ts';
import { createNoteMirror } from '../src/domains/notes/index.ts';
import type { RemoteMapping } from '../src/domains/providers/contract.ts';
import { createSyncService, readSyncState, type SyncDeps, type SyncService, type SyncSettings } from '../src/domains/providers/index.ts';
import type { ProviderRequest, RemoteKind } from '../src/domains/providers/port.ts';
import type { Clock } from '../src/kernel/clock.ts';
import { openTestDatabase } from './support/database.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { ADAPTERS, fakeCallFactory, startRemoteFake, type RemoteFake } from './support/remote-fakes.ts';
import { insertRemoteMapping } from './support/remote-mappings.ts';

// Synchronization of remote mappings against each provider's local fake, through the real adapters, calls, notes
// mirror, search and knowledge services on a real database: the copy ends exactly as the provider holds it, after a
// full listing, after another device's edits, renames and deletes, and after failures and crashes mid-sync, with one
// provenance event per change and none twice.

let db: Database;
let services: Services;
let now = new Date('2026-11-26T09:00:00Z');
const clock: Clock = { now: () => now };
const fakes = new Map<string, RemoteFake>();
// Armed by a test: called before each request a fake receives through the engine's calls.
let onRequest: ((fake: RemoteFake, request: ProviderRequest) => void | Promise<void>) | undefined;

beforeAll(async () => {
  ({ db } = await openTestDatabase());
  services = createServices(db, clock);
});
afterAll(async () => {
  await Promise.all([...new Set(fakes.values())].map((fake) => fake.close()));
  await db.close();
});

/** The engine as the composition root builds it, with its mirror told to the same knowledge service. */
function syncService(settings: SyncSettings = {}, afterCommit?: SyncDeps['afterCommit']): SyncService {
  return createSyncService({
    db,
    adapters: ADAPTERS,
    callFor: fakeCallFactory(fakes, (fake, request) => onRequest?.(fake, request)),
    mirror: createNoteMirror({
      onContentChanged: (vaultId) => services.authorityCache.forgetVault(vaultId),
      observeChanges: (sql, vaultId, transitions) => services.knowledge.recordChanges(sql, vaultId, transitions),
    }),
    clock,
    settings: { random: () => 0.5, ...settings },
    onMappingChanged: (mappingId) => services.authorityCache.forgetMapping(mappingId),
    ...(afterCommit ? { afterCommit } : {}),
  });
}

async function newMapping(owner: Owner, fake: RemoteFake, deviceEncrypted = false): Promise<RemoteMapping> {
  const mapping = await insertRemoteMapping(db, { accountId: owner.accountId, workspaceId: owner.workspaceId, provider: fake.kind, root: fake.root, deviceEncrypted });
  fakes.set(mapping.connectionId, fake);
  return mapping;
}

async function mirrorOf(mapping: RemoteMapping): Promise<Map<string, string>> {
  const rows = await db.query<{ path: string; content: string }>('SELECT path, content FROM notes WHERE vault_id = $1', [mapping.vaultId]);
  return new Map(rows.map((row) => [row.path, row.content]));
}

/** The notes the provider holds below the root: files named *.md (lower case, as note paths must be). */
function notesOf(fake: RemoteFake): Map<string, string> {
  return new Map([...fake.files()].filter(([path]) => path.endsWith('.md')).map(([path, content]) => [path.normalize('NFC'), content.toString('utf8')]));
}

async function eventsOf(mapping: RemoteMapping): Promise<Array<{ kind: string; path: string; credential_kind: string }>> {
  return db.query('SELECT kind, path, credential_kind FROM provenance_events WHERE mapping_id = $1 ORDER BY seq', [mapping.id]);
}

async function statesOf(mapping: RemoteMapping): Promise<Record<string, string>> {
  const rows = await db.query<{ path: string; state: string }>('SELECT path, state FROM remote_files WHERE mapping_id = $1', [mapping.id]);
  return Object.fromEntries(rows.map((row) => [row.path, row.state]));
}

async function syncToEnd(service: SyncService, mapping: RemoteMapping) {
  const outcome = await service.syncNow(mapping.id, { maxSteps: 20 });
  expect(outcome).toMatchObject({ ran: true, status: 'idle', caughtUp: true });
  return outcome!;
}

const KINDS: RemoteKind[] = ['dropbox', 'drive', 'github'];

describe.each(KINDS)('sync of a %s mapping', (kind) => {
  let fake: RemoteFake;
  let owner: Owner;
  let mapping: RemoteMapping;

  beforeAll(async () => {
    fake = await startRemoteFake(kind);
    owner = await createOwner(services, `sync-${kind}`);
    mapping = await newMapping(owner, fake);
  });

  it('copies every note of a folder tree, keeps rows of the other files, and search and knowledge read the copy', async () => {
    fake.put('Inbox.md', '# Inbox\n\n- [ ] Call the quokka keeper\n');
    fake.put('Projects/Alpha.md', '# Alpha\n\nLinks to [[Beta]].\n');
    fake.put('Projects/Deep/Beta.md', '# Beta\n\nwallaby\n');
    for (let n = 1; n <= 12; n += 1) fake.put(`Bulk/n${String(n).padStart(2, '0')}.md`, `# Note ${n}\n`);
    fake.put('Projects/diagram.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    fake.put('Readme.txt', 'not a note');
    fake.put('Shout.MD', '# not a valid note path\n');

    const outcome = await syncToEnd(syncService(), mapping);
    expect(await mirrorOf(mapping)).toEqual(notesOf(fake));
    expect(notesOf(fake).size).toBe(15);
    expect(outcome.counters.downloads).toBe(15);
    expect(await statesOf(mapping)).toMatchObject({ 'Projects/diagram.png': 'not_a_note', 'Readme.txt': 'not_a_note', 'Shout.MD': 'invalid_path', 'Inbox.md': 'synced' });
    const events = await eventsOf(mapping);
    expect(events).toHaveLength(15);
    expect(new Set(events.map((e) => `${e.kind} ${e.credential_kind}`))).toEqual(new Set(['note.created sync']));
    const state = await readSyncState(db, mapping.id);
    expect(state).toMatchObject({ status: 'idle', phase: 'incremental', failures: 0, notesSynced: 15, lastErrorCode: null });
    expect(state!.nextRunAt.getTime()).toBe(now.getTime() + 60_000);

    const found = await services.search.searchNotes(owner.actor, mapping.id, { query: 'wallaby' });
    expect(found.results.map((r) => r.path)).toEqual(['Projects/Deep/Beta.md']);
    const commitments = await services.knowledge.commitments({ vaultId: mapping.vaultId, pathPrefixes: [], tags: [] }, {});
    expect(commitments.items.map((c) => c.text)).toEqual(['Call the quokka keeper']);
  });

  it('follows another device’s edits, renames and deletes from the change cursor, downloading only what changed', async () => {
    const before = (await eventsOf(mapping)).length;
    fake.put('Inbox.md', '# Inbox\n\n- [x] Call the quokka keeper\n');
    fake.move('Projects/Alpha.md', 'Projects/Alpha renamed.md');
    fake.remove('Bulk/n01.md');
    fake.put('New.md', '# New\n');
    const outcome = await syncToEnd(syncService(), mapping);
    expect(await mirrorOf(mapping)).toEqual(notesOf(fake));
    expect(outcome.counters.downloads).toBeLessThanOrEqual(3);
    const events = (await eventsOf(mapping)).slice(before).map((e) => `${e.kind} ${e.path}`);
    expect(events.sort()).toEqual(
      ['note.updated Inbox.md', 'note.deleted Projects/Alpha.md', 'note.created Projects/Alpha renamed.md', 'note.deleted Bulk/n01.md', 'note.created New.md'].sort(),
    );
    const links = await db.query<{ path: string }>('SELECT n.path FROM note_links l JOIN notes n ON n.id = l.note_id WHERE l.vault_id = $1', [mapping.vaultId]);
    expect(links.map((l) => l.path)).toEqual(['Projects/Alpha renamed.md']);
    // Nothing changed since: a step finds nothing to do and records nothing.
    const again = await syncToEnd(syncService(), mapping);
    expect(again.counters.downloads).toBe(0);
    expect((await eventsOf(mapping)).length).toBe(before + 5);
  });

  it('takes every note below a folder removed at the provider out of the copy', async () => {
    fake.put('Archive/Old/one.md', '# One\n');
    fake.put('Archive/Old/two.md', '# Two\n');
    fake.put('Archive/keep.md', '# Keep\n');
    await syncToEnd(syncService(), mapping);
    expect([...(await mirrorOf(mapping)).keys()]).toEqual(expect.arrayContaining(['Archive/Old/one.md', 'Archive/Old/two.md']));
    // Dropbox reports this once, for the folder alone; the others name each file or relist.
    fake.remove('Archive/Old');
    await syncToEnd(syncService(), mapping);
    const copy = await mirrorOf(mapping);
    expect(copy).toEqual(notesOf(fake));
    expect([...copy.keys()].filter((path) => path.startsWith('Archive/'))).toEqual(['Archive/keep.md']);
  });

  it('resumes after a server error on the third download and after a crash between pages, losing and repeating nothing', async () => {
    const before = (await eventsOf(mapping)).length;
    for (let n = 1; n <= 16; n += 1) fake.put(`Batch/b${String(n).padStart(2, '0')}.md`, `# Batch ${n}\n`);
    let downloads = 0;
    onRequest = (target, request) => {
      // The third download and every retry of it meet a 503 (the call retries six times in all).
      if (target === fake && target.isDownload(request) && (downloads += 1) === 3) fake.failNext(6, 503);
    };
    const failed = await syncService().syncNow(mapping.id);
    onRequest = undefined;
    expect(failed).toMatchObject({ ran: true, status: 'error', error: { code: 'provider_unavailable' } });
    const afterFailure = await readSyncState(db, mapping.id);
    expect(afterFailure).toMatchObject({ status: 'error', failures: 1, lastErrorCode: 'provider_unavailable' });
    // Backoff: 30 s for a first failure, half of it jittered (random 0.5 here).
    expect(afterFailure!.nextRunAt.getTime()).toBe(now.getTime() + 22_500);
    expect(afterFailure!.lastError).not.toMatch(/Bearer|token/i);
    // The two downloads before the failure were kept.
    expect((await eventsOf(mapping)).length).toBe(before + 2);

    // A crash right after the next committed page: nothing of the step after it happens.
    let crashes = 0;
    const crashing = syncService({}, () => {
      if ((crashes += 1) === 1) throw new Error('the process died');
    });
    await expect(crashing.syncNow(mapping.id)).rejects.toThrow('the process died');
    expect(await readSyncState(db, mapping.id)).toMatchObject({ status: 'error', failures: 2, lastErrorCode: 'internal' });

    await syncToEnd(syncService(), mapping);
    expect(await mirrorOf(mapping)).toEqual(notesOf(fake));
    const events = (await eventsOf(mapping)).slice(before);
    expect(events).toHaveLength(16);
    expect(new Set(events.map((e) => e.path)).size).toBe(16);
    expect(await readSyncState(db, mapping.id)).toMatchObject({ status: 'idle', failures: 0, lastErrorCode: null });
  });

  it('ends a step that meets its request budget with what it did, and the next steps finish', async () => {
    // A mapping of its own: one folder, so that a listing page costs the adapter few requests.
    const small = await startRemoteFake(kind);
    const smallMapping = await newMapping(owner, small);
    for (let n = 1; n <= 9; n += 1) small.put(`s${n}.md`, `# Small ${n}\n`);
    const tight = syncService({ budget: { maxRequests: 8, maxBytes: 1024 * 1024, wallMs: 20_000 } });
    const first = await tight.syncNow(smallMapping.id);
    expect(first).toMatchObject({ status: 'pending', caughtUp: false });
    expect(first!.counters.downloads).toBeGreaterThan(0);
    expect((await readSyncState(db, smallMapping.id))!.nextRunAt.getTime()).toBe(now.getTime());
    const outcome = await tight.syncNow(smallMapping.id, { maxSteps: 20 });
    expect(outcome).toMatchObject({ status: 'idle', caughtUp: true });
    expect(await mirrorOf(smallMapping)).toEqual(notesOf(small));
    expect((await eventsOf(smallMapping)).length).toBe(9);
  });

  it('records a rate limit with the provider’s Retry-After, then recovers', async () => {
    fake.put('Limited.md', '# Limited\n');
    fake.rateLimitNext(1, 120);
    const limited = await syncService().syncNow(mapping.id);
    expect(limited).toMatchObject({ status: 'rate_limited', error: { code: 'provider_rate_limited' } });
    const state = await readSyncState(db, mapping.id);
    expect(state).toMatchObject({ status: 'rate_limited', lastErrorCode: 'provider_rate_limited', failures: 1 });
    expect(state!.nextRunAt.getTime()).toBe(now.getTime() + 120_000);
    // Not due yet: the maintenance loop leaves it alone until then.
    expect((await syncService().runDueSyncs({ limit: 10 })).map((r) => r.mappingId)).not.toContain(mapping.id);
    now = new Date(now.getTime() + 121_000);
    const due = await syncService().runDueSyncs({ limit: 10 });
    expect(due.find((r) => r.mappingId === mapping.id)?.outcome).toMatchObject({ status: 'idle' });
    expect(await mirrorOf(mapping)).toEqual(notesOf(fake));
  });

  it('keeps no copy of files too large, and reports paths two files share', async () => {
    fake.put('Huge.md', `# Huge\n\n${'x'.repeat(5000)}\n`);
    fake.duplicate?.('Twin.md');
    await syncToEnd(syncService({ maxNoteBytes: 4096 }), mapping);
    const copy = await mirrorOf(mapping);
    expect(copy.has('Huge.md')).toBe(false);
    const states = await statesOf(mapping);
    expect(states['Huge.md']).toBe('too_large');
    if (fake.duplicate) {
      expect(Object.entries(states).filter(([path]) => path.toLowerCase() === 'twin.md').map(([, state]) => state)).toEqual(['duplicate']);
      expect([...copy.keys()].filter((path) => path.toLowerCase() === 'twin.md')).toEqual([]);
    }
    const report = await syncService().report(mapping.id);
    const problems = report!.problems.map((p) => `${p.state} ${p.path.toLowerCase()}`).sort();
    expect(problems).toEqual([...(fake.duplicate ? ['duplicate twin.md'] : []), 'invalid_path shout.md', 'too_large huge.md']);
  });

  it('does not step a mapping another process holds', async () => {
    await db.query("UPDATE remote_sync SET lease_owner = 'other', lease_until = $2 WHERE mapping_id = $1", [mapping.id, new Date(now.getTime() + 60_000)]);
    expect(await syncService().syncNow(mapping.id)).toMatchObject({ ran: false });
    now = new Date(now.getTime() + 61_000);
    expect(await syncService().syncNow(mapping.id)).toMatchObject({ ran: true, status: 'idle' });
    // Two processes stepping it at once: one runs, the other finds it held. The provider answers slowly, so that the
    // step that took the lease still holds it when the other asks (on a quiet machine a step could end before).
    fake.put('Race.md', '# Race\n');
    onRequest = () => new Promise((resolve) => setTimeout(resolve, 150));
    const both = await Promise.all([syncService().syncNow(mapping.id), syncService().syncNow(mapping.id)]).finally(() => {
      onRequest = undefined;
    });
    expect(both.map((o) => o!.ran).sort()).toEqual([false, true]);
    expect((await mirrorOf(mapping)).get('Race.md')).toBe('# Race\n');
  });
});

describe.each(KINDS)('device-held encryption on %s', (kind) => {
  it('a mapping flagged encrypted records its notes as encrypted and copies nothing', async () => {
    const fake = await startRemoteFake(kind);
    const owner = await createOwner(services, `enc-${kind}`);
    const mapping = await newMapping(owner, fake, true);
    fake.put('Secret.md', 'ciphertext');
    fake.put('Deep/Other.md', 'ciphertext too');
    const outcome = await syncToEnd(syncService(), mapping);
    expect(outcome.counters.downloads).toBe(0);
    expect(await mirrorOf(mapping)).toEqual(new Map());
    expect(await statesOf(mapping)).toEqual({ 'Secret.md': 'encrypted', 'Deep/Other.md': 'encrypted' });
    expect(await eventsOf(mapping)).toEqual([]);
  });

  it('the marker file turns the flag on for good and empties a copy made before', async () => {
    const fake = await startRemoteFake(kind);
    const owner = await createOwner(services, `marker-${kind}`);
    const mapping = await newMapping(owner, fake);
    fake.put('Plain.md', '# Plain\n\n- [ ] Find the marker\n');
    await syncToEnd(syncService(), mapping);
    expect([...(await mirrorOf(mapping)).keys()]).toEqual(['Plain.md']);

    fake.put('.kgate-device-encrypted', '');
    fake.put('Later.md', 'ciphertext');
    await syncToEnd(syncService(), mapping);
    expect(await mirrorOf(mapping)).toEqual(new Map());
    expect(await statesOf(mapping)).toMatchObject({ 'Plain.md': 'encrypted', 'Later.md': 'encrypted', '.kgate-device-encrypted': 'not_a_note' });
    const flag = await db.query<{ device_encrypted: boolean }>('SELECT device_encrypted FROM mappings WHERE id = $1', [mapping.id]);
    expect(flag[0]!.device_encrypted).toBe(true);
    expect((await eventsOf(mapping)).map((e) => e.kind)).toEqual(['note.created', 'note.deleted']);
    const commitments = await services.knowledge.commitments({ vaultId: mapping.vaultId, pathPrefixes: [], tags: [] }, {});
    expect(commitments.items).toEqual([]);

    // Removing the marker turns nothing off: that is the owner's decision.
    fake.remove('.kgate-device-encrypted');
    await syncToEnd(syncService(), mapping);
    expect(await mirrorOf(mapping)).toEqual(new Map());
    expect((await db.query<{ device_encrypted: boolean }>('SELECT device_encrypted FROM mappings WHERE id = $1', [mapping.id]))[0]!.device_encrypted).toBe(true);
  });
});

describe.each(KINDS)('the owner switching device-held encryption on %s', (kind) => {
  it('on: the next step empties the copy made before; off: the next step copies every note again', async () => {
    const fake = await startRemoteFake(kind);
    const owner = await createOwner(services, `switch-${kind}`);
    const mapping = await newMapping(owner, fake);
    fake.put('Plain.md', '# Plain\n\n- [ ] Keep me\n');
    fake.put('Deep/Two.md', '# Two\n');
    await syncToEnd(syncService(), mapping);
    expect([...(await mirrorOf(mapping)).keys()].sort()).toEqual(['Deep/Two.md', 'Plain.md']);

    await services.vaults.setOwnerSwitches(owner.accountId, mapping.id, { deviceEncrypted: true });
    await syncToEnd(syncService(), mapping);
    expect(await mirrorOf(mapping)).toEqual(new Map());
    expect(await statesOf(mapping)).toEqual({ 'Plain.md': 'encrypted', 'Deep/Two.md': 'encrypted' });
    expect((await services.knowledge.commitments({ vaultId: mapping.vaultId, pathPrefixes: [], tags: [] }, {})).items).toEqual([]);

    await services.vaults.setOwnerSwitches(owner.accountId, mapping.id, { deviceEncrypted: false });
    await syncToEnd(syncService(), mapping);
    expect(await mirrorOf(mapping)).toEqual(notesOf(fake));
    expect(await statesOf(mapping)).toEqual({ 'Plain.md': 'synced', 'Deep/Two.md': 'synced' });
  });
});

describe('two Drive files of one name', () => {
  it('a second file at a synced path is listed again and reported; when one goes, the other is copied', async () => {
    const fake = await startRemoteFake('drive');
    const owner = await createOwner(services, 'twins');
    const mapping = await newMapping(owner, fake);
    fake.put('Solo.md', '# First\n');
    await syncToEnd(syncService(), mapping);
    expect(await mirrorOf(mapping)).toEqual(new Map([['Solo.md', '# First\n']]));
    const generation = (await readSyncState(db, mapping.id))!.generation;

    // Another device adds a second file of the same name: a change alone cannot tell it from a replacement.
    fake.duplicate!('Solo.md');
    await syncToEnd(syncService(), mapping);
    expect((await readSyncState(db, mapping.id))!.generation).toBeGreaterThan(generation);
    expect(await statesOf(mapping)).toEqual({ 'Solo.md': 'duplicate' });
    expect(await mirrorOf(mapping)).toEqual(new Map());

    // Two of the three go to the trash: the one left is the note again.
    const ids = (await db.query<{ file_id: string }>('SELECT file_id FROM remote_files WHERE mapping_id = $1', [mapping.id]))[0]!.file_id;
    expect(JSON.parse(ids)).toHaveLength(3);
    fake.removeOne!('Solo.md');
    fake.removeOne!('Solo.md');
    await syncToEnd(syncService(), mapping);
    expect(await statesOf(mapping)).toEqual({ 'Solo.md': 'synced' });
    expect(await mirrorOf(mapping)).toEqual(notesOf(fake));
  });
});

describe('leases', () => {
  it('a step whose lease another process took over stops and commits nothing more', async () => {
    const fake = await startRemoteFake('dropbox');
    const owner = await createOwner(services, 'lease');
    const mapping = await newMapping(owner, fake);
    for (let n = 1; n <= 12; n += 1) fake.put(`f${n}.md`, `# ${n}\n`);
    // After the step's first commit (its change cursor), its lease expires and another process takes the mapping.
    let commits = 0;
    const overtaken = syncService({}, async () => {
      if ((commits += 1) === 1) await db.query("UPDATE remote_sync SET lease_owner = 'other' WHERE mapping_id = $1", [mapping.id]);
    });
    expect(await overtaken.syncNow(mapping.id)).toMatchObject({ ran: true, status: 'running', caughtUp: false });
    expect(commits).toBe(1);
    expect(await mirrorOf(mapping)).toEqual(new Map());
    expect(await db.query('SELECT 1 FROM remote_files WHERE mapping_id = $1', [mapping.id])).toEqual([]);
    expect(await readSyncState(db, mapping.id)).toMatchObject({ status: 'running' });
  });
});

describe('a revoked grant', () => {
  it.each(KINDS)('on %s stops the sync with provider_disconnected and keeps the copy', async (kind) => {
    const fake = await startRemoteFake(kind);
    const owner = await createOwner(services, `revoked-${kind}`);
    const mapping = await newMapping(owner, fake);
    fake.put('Kept.md', '# Kept\n');
    await syncToEnd(syncService(), mapping);
    fake.revokeAll();
    fake.put('Unseen.md', '# Unseen\n');
    const outcome = await syncService().syncNow(mapping.id);
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'provider_disconnected' } });
    expect([...(await mirrorOf(mapping)).keys()]).toEqual(['Kept.md']);
  });
});

describe('bounds', () => {
  it('a mapping holding more files than allowed stops with provider_limit_reached and copies no further page', async () => {
    const fake = await startRemoteFake('dropbox');
    const owner = await createOwner(services, 'bounds');
    const mapping = await newMapping(owner, fake);
    for (let n = 1; n <= 12; n += 1) fake.put(`f${n}.md`, `# ${n}\n`);
    const outcome = await syncService({ maxFiles: 10 }).syncNow(mapping.id, { maxSteps: 5 });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'provider_limit_reached' } });
    expect((await mirrorOf(mapping)).size).toBeLessThanOrEqual(10);
    expect(await readSyncState(db, mapping.id)).toMatchObject({ status: 'error', lastErrorCode: 'provider_limit_reached' });
  });
});
