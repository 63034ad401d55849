import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTHETIC_COMMON_TERM, SYNTHETIC_PHRASE, SYNTHETIC_RARE_TERM, generateSyntheticVault } from '../../../bench/vault-generator.ts';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import { createServices, type Services } from '../../app/services.ts';
import { searchSnapshotFiles } from '../../app/search-snapshots.ts';
import type { Database } from '../../db/port.ts';
import { contentHash } from '../../kernel/hashing.ts';
import { MAX_IMPORT_BATCH } from '../notes/index.ts';
import { decodeSnapshot, encodeSnapshot } from './index-snapshot.ts';
import { MIN_SNAPSHOT_NOTES } from './vault-index-cache.ts';
import { Slices } from '../../kernel/slices.ts';
import { INDEX_RULES_VERSION, VaultSearchIndex } from './vault-index.ts';

// Slices of 0 ms: every step that may pause does, so the slicing itself is exercised.
const slices = () => new Slices(0);
// A snapshot's parts as the file holds them, one after the other.
const joinParts = (parts: readonly Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const encode = async (index: VaultSearchIndex) => joinParts(await encodeSnapshot(VAULT, INDEX_RULES_VERSION, await index.exportState(slices()), slices()));

const VAULT = '01a20b49-8d4b-74e7-bb16-2ff7e9af3d6f';

function smallIndex(): VaultSearchIndex {
  const index = new VaultSearchIndex(7);
  index.upsert({ noteId: 'a', path: 'Projects/Offline Sync.md', title: 'Offline Sync', tagKeys: ['project'], searchText: 'sync works offline, sync later' });
  index.upsert({ noteId: 'b', path: 'People/Ana.md', title: 'Ana', tagKeys: [], searchText: 'Ana leads offline work' });
  index.upsert({ noteId: 'c', path: 'Gone.md', title: 'Gone', tagKeys: [], searchText: 'offline and gone' });
  index.remove('c');
  return index;
}

describe('search index snapshots: the format', () => {
  it('round-trips: the loaded index matches and ranks like the one it was taken from', async () => {
    const original = smallIndex();
    const state = (await decodeSnapshot(await encode(original), VAULT, INDEX_RULES_VERSION, slices()))!;
    expect(state.version).toBe(7);
    expect(state.docs.map((d) => d.noteId)).toEqual(['a', 'b']);
    const loaded = await VaultSearchIndex.fromState(state, slices());
    // What a fresh build of the live notes gives (the original still counts its dead note in word statistics).
    const rebuilt = new VaultSearchIndex(7);
    rebuilt.upsert({ noteId: 'a', path: 'Projects/Offline Sync.md', title: 'Offline Sync', tagKeys: ['project'], searchText: 'sync works offline, sync later' });
    rebuilt.upsert({ noteId: 'b', path: 'People/Ana.md', title: 'Ana', tagKeys: [], searchText: 'Ana leads offline work' });
    expect(loaded.size).toBe(2);
    expect(loaded.has('c')).toBe(false);
    const ranked = (index: VaultSearchIndex, words: string[]) =>
      index
        .match(words)
        .map((s) => ({ path: index.note(s.doc).path, score: s.score, fields: s.fields }))
        .sort((x, y) => y.score - x.score);
    for (const words of [['offline'], ['sync'], ['offline', 'sync'], ['ana']]) expect(ranked(loaded, words)).toEqual(ranked(rebuilt, words));
    expect(ranked(loaded, ['gone'])).toEqual([]);
    expect(original.size).toBe(2);
    expect(loaded.firstBodyOffset(loaded.match(['later'])[0]!.doc, ['later'])).toBe('sync works offline, sync '.length);
    // It goes on like any index: new notes, replaced notes.
    loaded.upsert({ noteId: 'd', path: 'New.md', title: 'New', tagKeys: [], searchText: 'offline again' });
    loaded.upsert({ noteId: 'a', path: 'Projects/Offline Sync.md', title: 'Offline Sync', tagKeys: [], searchText: 'nothing here' });
    expect(ranked(loaded, ['offline']).map((r) => r.path).sort()).toEqual(['New.md', 'People/Ana.md', 'Projects/Offline Sync.md']);
    expect(ranked(loaded, ['later'])).toEqual([]);
  });

  it('refuses a snapshot of another vault, other rules, a cut file or damaged postings', async () => {
    const bytes = await encode(smallIndex());
    const decode = (input: Uint8Array, vault = VAULT, rules = INDEX_RULES_VERSION) => decodeSnapshot(input, vault, rules, slices());
    expect(await decode(bytes)).toBeDefined();
    expect(await decode(bytes, '01a20b49-0000-74e7-bb16-2ff7e9af3d6f')).toBeUndefined();
    expect(await decode(bytes, VAULT, INDEX_RULES_VERSION + 1)).toBeUndefined();
    expect(await decode(bytes.slice(0, bytes.length - 4))).toBeUndefined();
    expect(await decode(new Uint8Array(3))).toBeUndefined();
    const damaged = bytes.slice();
    // The last posting's document number points past the notes.
    new DataView(damaged.buffer).setInt32(damaged.length - 4 * (1 + 2 * countPostings(bytes)), 99, true);
    expect(await decode(damaged)).toBeUndefined();
    const garbage = bytes.slice();
    garbage.fill(0x7b, 24, 40);
    expect(await decode(garbage)).toBeUndefined();
    // Unaligned input is copied, not misread.
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect((await decode(shifted.subarray(1)))?.docs).toHaveLength(2);
  });
});

/** The number of postings a snapshot holds (its header's sixth word). */
function countPostings(bytes: Uint8Array): number {
  return new Uint32Array(bytes.buffer, bytes.byteOffset, 6)[5]!;
}

describe('search index snapshots: a gateway restarted over the same data', () => {
  let db: Database;
  let first: Services;
  let owner: Owner;
  let dir: string;
  const notes = [...generateSyntheticVault({ notes: MIN_SNAPSHOT_NOTES + 200, seed: 11 })];
  const queries = [SYNTHETIC_RARE_TERM, SYNTHETIC_COMMON_TERM, `"${SYNTHETIC_PHRASE}"`, 'changed-by-test', 'added-by-test'];

  beforeAll(async () => {
    ({ db, services: first, owner } = await openDomainDatabase('snapshots'));
    dir = await mkdtemp(join(tmpdir(), 'kgate-snapshots-'));
    for (let k = 0; k < notes.length; k += MAX_IMPORT_BATCH) {
      await first.notes.importNotes(owner.actor, owner.mapping.id, notes.slice(k, k + MAX_IMPORT_BATCH));
    }
  }, 120_000);
  afterAll(async () => {
    await db.close();
    // A snapshot may still be being written in the background: retry while the folder refills.
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  });

  const servicesWith = (snapshots: boolean) => createServices(db, undefined, { publicBase: () => 'http://localhost', ...(snapshots ? { searchSnapshots: searchSnapshotFiles(dir) } : {}) });
  // What each query finds. Scores may differ in the last digits: an index brought up to date still counts replaced
  // and deleted notes in its word statistics until it compacts, a fresh build does not. So: the notes found, and
  // for the common word (thousands of matches) whether there are more than a page.
  const pages = async (services: Services) => {
    const out: unknown[] = [];
    for (const query of queries) {
      const page = await services.search.searchNotes(owner.actor, owner.mapping.id, { query, limit: 50 });
      out.push(query === SYNTHETIC_COMMON_TERM ? { query, truncated: page.truncated, count: page.results.length } : { query, paths: page.results.map((r) => r.path).sort(), truncated: page.truncated });
    }
    return out;
  };
  const snapshotFile = () => join(dir, `${owner.mapping.vaultId}.idx`);
  const waitForFile = async () => {
    for (let k = 0; k < 200 && !(await readdir(dir).catch((): string[] => [])).includes(`${owner.mapping.vaultId}.idx`); k++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it('stores the index after the first build, and a restart loads it and reads only what changed since', async () => {
    const builder = servicesWith(true);
    await pages(builder);
    await waitForFile();
    expect((await readdir(dir)).filter((f) => f.endsWith('.idx'))).toEqual([`${owner.mapping.vaultId}.idx`]);

    // Changes after the snapshot: one note replaced, one deleted, one added.
    const [changed, deleted] = [notes[3]!, notes[5]!];
    const replacement = `${changed.content}\nchanged-by-test\n`;
    await first.notes.importNotes(owner.actor, owner.mapping.id, [
      { path: changed.path, content: replacement },
      { path: 'added/by-test.md', content: '# Added\nadded-by-test\n' },
    ]);
    await first.idempotency.run({ accountId: owner.accountId, key: crypto.randomUUID(), operation: 'test', input: {} }, (commit) =>
      first.notes.runTransaction({
        actor: owner.actor,
        mappingId: owner.mapping.id,
        dryRun: false,
        capability: 'direct',
        commit,
        actions: [{ type: 'delete-note', path: deleted.path, expectedHash: contentHash(deleted.content) }],
      }),
    );

    // Changed behind every writer's back (no version moves): only a build reads it, so it tells a load from a build.
    await db.query("UPDATE notes SET search_text = search_text || ' silent-by-test' WHERE vault_id = $1 AND path = $2", [owner.mapping.vaultId, notes[9]!.path]);
    const silent = async (services: Services) =>
      (await services.search.searchNotes(owner.actor, owner.mapping.id, { query: 'silent-by-test' })).results.map((r) => r.path);

    // A restarted process (new services) with the snapshot, and one without: the same answers, page for page.
    const restarted = servicesWith(true);
    const fresh = servicesWith(false);
    expect(await silent(restarted)).toEqual([]);
    expect(await silent(fresh)).toEqual([notes[9]!.path]);
    const [fromSnapshot, fromBuild] = [await pages(restarted), await pages(fresh)];
    expect(fromSnapshot).toEqual(fromBuild);
    expect(JSON.stringify(fromSnapshot)).toContain('added/by-test.md');
    expect(JSON.stringify(fromSnapshot)).not.toContain(deleted.path);
  });

  it('rebuilds instead of loading a damaged snapshot, or one ahead of the database (a restored backup)', async () => {
    await writeFile(snapshotFile(), 'not a snapshot');
    expect(await pages(servicesWith(true))).toEqual(await pages(servicesWith(false)));

    await servicesWith(true).search.searchNotes(owner.actor, owner.mapping.id, { query: 'anything' });
    await waitForFile();
    // The database goes back in time; a note changes at a version the snapshot claims to have seen.
    await db.query('UPDATE vaults SET content_version = 1 WHERE id = $1', [owner.mapping.vaultId]);
    await db.query("UPDATE notes SET search_text = search_text || ' restored-by-test', content_version = 1 WHERE vault_id = $1 AND path = $2", [
      owner.mapping.vaultId,
      notes[8]!.path,
    ]);
    const found = await servicesWith(true).search.searchNotes(owner.actor, owner.mapping.id, { query: 'restored-by-test' });
    expect(found.results.map((r) => r.path)).toEqual([notes[8]!.path]);
  });
});
