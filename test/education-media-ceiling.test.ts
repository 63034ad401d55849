import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MEDIA_STORAGE_BYTES } from '../src/domains/runtime/index.ts';
import { databaseMediaStore, s3MediaStore, type MediaStore } from '../src/domains/media/index.ts';
import { startS3Fake, type S3Fake } from './fakes/s3/server.ts';
import { expectRuntimeProblem, usageOf } from './support/runtime-checks.ts';
import { download, mediaChain, mediaState, startMediaGateway, upload, type MediaGateway } from './support/media-gateway.ts';

// Spec 2.6 and 8: the organization's mediaStorageBytes ceiling (default 500 MiB) holds under concurrency; a refused
// upload stores nothing; bytes reserved for an upload that did not finish are given back.

const WEBM = readFileSync(new URL('./fixtures/media/tone.webm', import.meta.url));
const webmOfSize = (size: number) => Buffer.concat([WEBM, Buffer.alloc(size - WEBM.length, 3)]);

/** The database store, whose next `failures` writes fail as an unreachable object store's would. */
function flakyStore(db: Parameters<typeof databaseMediaStore>[0], control: { failures: number }): MediaStore {
  const inner = databaseMediaStore(db);
  return {
    ...inner,
    async put(key, bytes, contentType) {
      if (control.failures > 0) {
        control.failures -= 1;
        // Half-written, as a store that failed midway may leave it: the service must clear it.
        await inner.put(key, bytes.subarray(0, 10), contentType);
        throw new Error('the store went away');
      }
      return inner.put(key, bytes, contentType);
    },
  };
}

describe('the media storage ceiling', () => {
  let gateway: MediaGateway;
  const control = { failures: 0 };

  beforeAll(async () => {
    gateway = await startMediaGateway({ store: (db) => flakyStore(db, control) });
  });
  afterAll(() => gateway.stop());

  async function cappedChain(label: string, ceiling: number | undefined) {
    const { chain, token } = await mediaChain(gateway, label);
    if (ceiling !== undefined) await gateway.services.runtimeAdmin.setOrganizationSettings(chain.organization.slug, { mediaStorageBytes: ceiling });
    return { chain, token };
  }

  it('16 concurrent uploads against room for 10: exactly 10 stored, 6 refused, and the total within the ceiling', async () => {
    const size = 20_000;
    // Room for ten, and then for one small upload but not two.
    const ceiling = 10 * size + 2 * WEBM.length - 1;
    const { chain, token } = await cappedChain('ceiling', ceiling);
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => upload(gateway, token, webmOfSize(size), { reference: `take-${i}` })));
    const stored = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(stored).toHaveLength(10);
    expect(refused).toHaveLength(6);
    for (const answer of refused) {
      const problem = expectRuntimeProblem(answer, 403, 'media_storage_exhausted');
      expect(problem.details).toEqual({ limit: ceiling, bytes: size });
    }
    expect(await mediaState(gateway, chain.organization.id)).toEqual({ objects: 10, blobs: 10, used: 10 * size });
    const [{ total }] = (await gateway.db.query<{ total: number }>(
      `SELECT sum(byte_size)::bigint AS total FROM media_objects WHERE organization_id = $1 AND state = 'stored'`,
      [chain.organization.id],
    )) as [{ total: number }];
    expect(total).toBe(10 * size);
    // Every stored one reads back; the remainder still takes a smaller upload, and then nothing more fits.
    for (const answer of stored) expect((await download(gateway, token, answer.body.data.mediaId as string)).status).toBe(200);
    expect((await upload(gateway, token, WEBM)).status).toBe(200);
    expect((await mediaState(gateway, chain.organization.id)).used).toBe(10 * size + WEBM.length);
    expectRuntimeProblem(await upload(gateway, token, WEBM), 403, 'media_storage_exhausted');
    expect(await mediaState(gateway, chain.organization.id)).toEqual({ objects: 11, blobs: 11, used: 10 * size + WEBM.length });
  });

  it('is per organization: another organization stores while this one is full', async () => {
    const full = await cappedChain('full', WEBM.length);
    const other = await cappedChain('roomy', WEBM.length * 2);
    expect((await upload(gateway, full.token, WEBM)).status).toBe(200);
    expectRuntimeProblem(await upload(gateway, full.token, WEBM), 403, 'media_storage_exhausted');
    expect((await upload(gateway, other.token, WEBM)).status).toBe(200);
    expect((await upload(gateway, other.token, WEBM)).status).toBe(200);
    expect((await mediaState(gateway, other.chain.organization.id)).used).toBe(2 * WEBM.length);
  });

  it('defaults to 500 MiB: an upload that reaches it exactly is stored, one byte more is refused', async () => {
    const { chain, token } = await cappedChain('default', undefined);
    expect((await upload(gateway, token, WEBM)).status).toBe(200);
    // As if all but WEBM.length + 1 bytes of 500 MiB were stored already.
    const room = WEBM.length + 1;
    await gateway.db.query('UPDATE media_storage_usage SET used_bytes = $2 WHERE organization_id = $1', [chain.organization.id, DEFAULT_MEDIA_STORAGE_BYTES - room]);
    const over = expectRuntimeProblem(await upload(gateway, token, webmOfSize(room + 1)), 403, 'media_storage_exhausted');
    expect(over.details).toEqual({ limit: DEFAULT_MEDIA_STORAGE_BYTES, bytes: room + 1 });
    expect((await upload(gateway, token, webmOfSize(room))).status).toBe(200);
    expect(await gateway.media.usedBytes(chain.organization.id)).toBe(DEFAULT_MEDIA_STORAGE_BYTES);
    expectRuntimeProblem(await upload(gateway, token, WEBM), 403, 'media_storage_exhausted');
    expect(await gateway.media.usedBytes(chain.organization.id)).toBe(DEFAULT_MEDIA_STORAGE_BYTES);
  });

  it('a ceiling of 0 refuses every upload, and stores nothing', async () => {
    const { chain, token } = await cappedChain('zero', 0);
    expectRuntimeProblem(await upload(gateway, token, WEBM), 403, 'media_storage_exhausted');
    expect(await mediaState(gateway, chain.organization.id)).toEqual({ objects: 0, blobs: 0, used: 0 });
  });

  it('a store that fails gives the reservation back and keeps nothing; a retry with the same key then stores it', async () => {
    const { chain, token } = await cappedChain('flaky', WEBM.length);
    const key = randomUUID();
    control.failures = 1;
    const failed = await upload(gateway, token, WEBM, { key });
    expectRuntimeProblem(failed, 500, 'internal');
    expect(await mediaState(gateway, chain.organization.id)).toEqual({ objects: 0, blobs: 0, used: 0 });
    const retried = await upload(gateway, token, WEBM, { key });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await mediaState(gateway, chain.organization.id)).toEqual({ objects: 1, blobs: 1, used: WEBM.length });
  });

  it('sweeps an upload abandoned half-way (reserved and stored, never committed), and only such ones', async () => {
    const { chain } = await cappedChain('sweep', undefined);
    const owner = { organizationId: chain.organization.id, installationId: chain.installation.id, principalId: chain.principalId };
    const staged = await gateway.media.stage(owner, DEFAULT_MEDIA_STORAGE_BYTES, { reference: 'lost', durationSeconds: 1, contentType: 'audio/webm', bytes: WEBM });
    const fresh = await gateway.media.stage(owner, DEFAULT_MEDIA_STORAGE_BYTES, { reference: 'running', durationSeconds: 1, contentType: 'audio/webm', bytes: WEBM });
    expect(await mediaState(gateway, chain.organization.id)).toEqual({ objects: 2, blobs: 2, used: 2 * WEBM.length });
    // Neither is readable while pending.
    await expect(gateway.media.read(owner, staged.mediaId)).rejects.toMatchObject({ code: 'not_found' });
    await gateway.db.query(`UPDATE media_objects SET created_at = now() - interval '2 hours' WHERE id = $1`, [staged.mediaId]);
    expect(await gateway.media.sweepAbandoned()).toBe(1);
    expect(await mediaState(gateway, chain.organization.id)).toEqual({ objects: 1, blobs: 1, used: WEBM.length });
    expect(await gateway.media.sweepAbandoned()).toBe(0);
    await gateway.db.transaction((sql) => gateway.media.commit(sql, fresh));
    await gateway.db.query(`UPDATE media_objects SET created_at = now() - interval '2 hours' WHERE id = $1`, [fresh.mediaId]);
    expect(await gateway.media.sweepAbandoned()).toBe(0);
    expect((await gateway.media.read(owner, fresh.mediaId)).media.sha256).toBe(fresh.sha256);
  });

  it('counts a metered operation for each upload, stored or refused by the ceiling', async () => {
    const { chain, token } = await cappedChain('metered', WEBM.length);
    await upload(gateway, token, WEBM);
    await upload(gateway, token, WEBM);
    expect(await usageOf(gateway, chain.organization.id)).toBe(2);
  });
});

describe('private media in an S3-compatible store', () => {
  let s3: S3Fake;
  let gateway: MediaGateway;

  beforeAll(async () => {
    s3 = await startS3Fake();
    gateway = await startMediaGateway({
      store: () =>
        s3MediaStore({
          endpoint: s3.endpoint,
          bucket: s3.bucket,
          region: s3.region,
          credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
          prefix: 'kgate/',
          addressing: 'path',
          timeoutMs: 10_000,
        }),
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await s3.close();
  });

  it('stores the bytes in the bucket (none in the database) and streams ranges from it', async () => {
    const { chain, token } = await mediaChain(gateway, 's3');
    const bytes = webmOfSize(70_000);
    const stored = await upload(gateway, token, bytes);
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    const mediaId = stored.body.data.mediaId as string;
    expect(s3.objects.get(`kgate/${chain.organization.id}/${mediaId}`)?.bytes.equals(bytes)).toBe(true);
    expect(await mediaState(gateway, chain.organization.id)).toEqual({ objects: 1, blobs: 0, used: bytes.length });
    s3.requests.length = 0;
    const part = await download(gateway, token, mediaId, { Range: 'bytes=-100' });
    expect(part.status).toBe(206);
    expect(part.bytes.equals(bytes.subarray(-100))).toBe(true);
    expect(s3.requests.map((r) => [r.method, r.range])).toEqual([['GET', `bytes=${bytes.length - 100}-${bytes.length - 1}`]]);
    // Nothing about the bucket reaches the product.
    expect(JSON.stringify(stored.body)).not.toMatch(/127\.0\.0\.1|kgate-media|kgate\//);
  });

  it('an object store that fails answers an unavailable envelope, keeps nothing, gives the reservation back; the same key then succeeds', async () => {
    const { chain, token } = await mediaChain(gateway, 's3-down');
    const key = randomUUID();
    const objects = s3.objects.size;
    s3.failNext(1, 503);
    const failed = await upload(gateway, token, WEBM, { key });
    // docs/runtime.md: what is not available is an answer (status unavailable), not an error; the key is released.
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ kind: 'service.media', status: 'unavailable', data: null, problems: [{ code: 'unavailable', details: { reason: 'SlowDown' } }] });
    expect(s3.objects.size).toBe(objects);
    expect(await mediaState(gateway, chain.organization.id)).toEqual({ objects: 0, blobs: 0, used: 0 });
    const retried = await upload(gateway, token, WEBM, { key });
    expect(retried.status).toBe(200);
    expect(s3.objects.size).toBe(objects + 1);
  });
});
