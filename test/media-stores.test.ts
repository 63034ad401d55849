import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/port.ts';
import { DATABASE_READ_CHUNK_BYTES, databaseMediaStore, directoryMediaStore, s3MediaStore, type MediaStore } from '../src/domains/media/index.ts';
import { KgateError } from '../src/kernel/errors.ts';
import { startS3Fake, type S3Fake } from './fakes/s3/server.ts';
import { openTestDatabase } from './support/database.ts';

// The MediaStore port (src/domains/media/contract.ts), the same contract for every store: put, a range read in
// order, delete; a missing object is not_found before any byte; deleting what is not there succeeds.

const ORG = '0190a000-0000-7000-8000-000000000001';
const key = (n: number) => `${ORG}/0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

async function readAll(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

async function expectNotFound(read: () => Promise<unknown>): Promise<void> {
  const error = await read().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KgateError);
  expect((error as KgateError).code).toBe('not_found');
}

let db: Database;
let dir: string;
let s3: S3Fake;
const stores: Record<string, () => MediaStore> = {};

beforeAll(async () => {
  ({ db } = await openTestDatabase());
  dir = await mkdtemp(join(tmpdir(), 'kgate-media-'));
  s3 = await startS3Fake();
  const settings = { endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }, prefix: 'media/', addressing: 'path' as const, timeoutMs: 10_000 };
  stores.database = () => databaseMediaStore(db);
  stores.directory = () => directoryMediaStore(dir);
  stores.s3 = () => s3MediaStore(settings);
});
afterAll(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
  await db.close();
});

describe.each(['database', 'directory', 's3'])('the %s media store', (kind) => {
  // Larger than two database read chunks, so that a read spans several statements.
  const bytes = randomBytes(2 * DATABASE_READ_CHUNK_BYTES + 12_345);
  const last = bytes.length - 1;

  it('keeps what is put and reads it back whole and by ranges, in order', async () => {
    const store = stores[kind]!();
    expect(store.kind).toBe(kind);
    await store.put(key(1), bytes, 'audio/webm');
    expect((await readAll(await store.get(key(1), { start: 0, end: last }))).equals(bytes)).toBe(true);
    for (const [start, end] of [[0, 9], [0, 0], [last, last], [DATABASE_READ_CHUNK_BYTES - 5, DATABASE_READ_CHUNK_BYTES + 5], [100, last]] as const) {
      const part = await readAll(await store.get(key(1), { start, end }));
      expect({ start, end, same: part.equals(bytes.subarray(start, end + 1)) }).toEqual({ start, end, same: true });
    }
  });

  it('answers not_found for a key it does not hold, before any byte, and deletes idempotently', async () => {
    const store = stores[kind]!();
    await expectNotFound(() => store.get(key(2), { start: 0, end: 0 }));
    await store.put(key(3), bytes.subarray(0, 10), 'audio/ogg');
    await store.delete(key(3));
    await expectNotFound(() => store.get(key(3), { start: 0, end: 0 }));
    await store.delete(key(3));
  });

  it('lets a reader stop early', async () => {
    const store = stores[kind]!();
    await store.put(key(4), bytes, 'audio/mp4');
    const iterator = (await store.get(key(4), { start: 0, end: last }))[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    await iterator.return?.();
    // Or before the first byte (the client went away at once).
    const unstarted = (await store.get(key(4), { start: 0, end: last }))[Symbol.asyncIterator]();
    expect(await unstarted.return?.()).toMatchObject({ done: true });
    // The store still serves the object afterwards.
    expect((await readAll(await store.get(key(4), { start: 5, end: 14 }))).equals(bytes.subarray(5, 15))).toBe(true);
  });
});

describe('the database store', () => {
  it('keeps its bytes uncompressed and out of line, so that a range reads only its chunks', async () => {
    const rows = await db.query<{ storage: string }>(
      `SELECT attstorage AS storage FROM pg_attribute WHERE attrelid = 'media_blobs'::regclass AND attname = 'bytes'`,
    );
    expect(rows[0]!.storage).toBe('e');
  });
});

describe('the directory store', () => {
  it('writes a file per object under its organization, and leaves no partial file behind', async () => {
    const store = directoryMediaStore(dir);
    await store.put(key(10), Buffer.from('abc'), 'audio/webm');
    const names = await readdir(join(dir, ORG));
    expect(names).toContain(key(10).split('/')[1]);
    expect(names.filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('holds no descriptor for a reader that never starts, nor after one stops early or finishes', async () => {
    // A descriptor left to the garbage collector is an uncaught error from Node 24 on: a client that hangs up before
    // the first byte must not leave one behind.
    const store = directoryMediaStore(dir);
    const bytes = randomBytes(300_000);
    await store.put(key(11), bytes, 'audio/webm');
    const path = join(dir, ...key(11).split('/'));
    const openOnObject = async () => {
      const links = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      return links.filter((link) => link === path).length;
    };
    const unstarted = (await store.get(key(11), { start: 0, end: bytes.length - 1 }))[Symbol.asyncIterator]();
    await unstarted.return?.();
    const untouched = await store.get(key(11), { start: 0, end: bytes.length - 1 });
    expect(untouched).toBeDefined();
    const stopped = (await store.get(key(11), { start: 0, end: bytes.length - 1 }))[Symbol.asyncIterator]();
    expect((await stopped.next()).done).toBe(false);
    expect(await openOnObject()).toBe(1);
    await stopped.return?.();
    expect((await readAll(await store.get(key(11), { start: 7, end: 9 }))).equals(bytes.subarray(7, 10))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await openOnObject()).toBe(0);
  });

  it('refuses a key that is not one the media service makes (no path ever leaves its root)', async () => {
    const store = directoryMediaStore(dir);
    await expect(store.put('../escape', Buffer.from('x'), 'audio/webm')).rejects.toThrow(/not a media key/);
    await expect(store.get(`${ORG}/../../etc/passwd`, { start: 0, end: 0 })).rejects.toThrow(/not a media key/);
  });
});

describe('the S3 store against the fake object store', () => {
  const settingsOf = (over: Partial<Parameters<typeof s3MediaStore>[0]> = {}) => ({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    region: s3.region,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    prefix: 'media/',
    addressing: 'path' as const,
    timeoutMs: 10_000,
    ...over,
  });

  it('stores under the prefix with its media type, and reads a range with a Range request, never the whole object', async () => {
    const store = s3MediaStore(settingsOf());
    const bytes = randomBytes(50_000);
    s3.requests.length = 0;
    await store.put(key(20), bytes, 'audio/webm');
    expect(s3.objects.get(`media/${key(20)}`)).toMatchObject({ contentType: 'audio/webm' });
    expect((await readAll(await store.get(key(20), { start: 1000, end: 1999 }))).equals(bytes.subarray(1000, 2000))).toBe(true);
    expect(s3.requests.map((r) => [r.method, r.key, r.range ?? null, r.status])).toEqual([
      ['PUT', `media/${key(20)}`, null, 200],
      ['GET', `media/${key(20)}`, 'bytes=1000-1999', 206],
    ]);
  });

  it('is refused by the store with a wrong secret or an unknown key, and stores nothing', async () => {
    for (const credentials of [
      { accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret' },
      { accessKeyId: 'AKIAUNKNOWN000000000', secretAccessKey: s3.secretAccessKey },
    ]) {
      const store = s3MediaStore(settingsOf({ credentials }));
      const error = await store.put(key(21), Buffer.from('x'), 'audio/webm').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KgateError);
      expect((error as KgateError).code).toBe('unavailable');
      expect(s3.objects.has(`media/${key(21)}`)).toBe(false);
    }
    expect(s3.requests.slice(-2).map((r) => r.status)).toEqual([403, 403]);
  });

  it('answers unavailable when the store fails or cannot be reached, and not_found for a missing object', async () => {
    const store = s3MediaStore(settingsOf());
    s3.failNext(1, 503);
    await expect(store.put(key(22), Buffer.from('x'), 'audio/webm')).rejects.toMatchObject({ code: 'unavailable' });
    expect(s3.objects.has(`media/${key(22)}`)).toBe(false);
    const closed = s3MediaStore(settingsOf({ endpoint: 'http://127.0.0.1:9', timeoutMs: 2_000 }));
    await expect(closed.put(key(22), Buffer.from('x'), 'audio/webm')).rejects.toMatchObject({ code: 'unavailable' });
    await expectNotFound(() => store.get(key(23), { start: 0, end: 0 }));
  });

  it('addresses a bucket virtual-hosted when told to (the URL and the signed host name the bucket)', async () => {
    const seen: Array<{ url: string; authorization: string }> = [];
    const store = s3MediaStore(settingsOf({ endpoint: 'https://s3.eu-central-1.amazonaws.com', region: 'eu-central-1', addressing: 'virtual', prefix: '' }), (url, init) => {
      seen.push({ url, authorization: (init.headers as Record<string, string>).authorization! });
      return Promise.resolve(new Response(null, { status: 204 }));
    });
    await store.delete(key(24));
    expect(seen).toEqual([{ url: `https://kgate-media.s3.eu-central-1.amazonaws.com/${key(24)}`, authorization: expect.stringMatching(/\/eu-central-1\/s3\/aws4_request, SignedHeaders=host;/) }]);
  });
});
