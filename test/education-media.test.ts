import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AUDIO_BYTES } from '../src/domains/media/index.ts';
import { expectRuntimeProblem, usageOf } from './support/runtime-checks.ts';
import { callRuntime, runtimeToken, type RuntimeChainSetup } from './support/runtime-gateway.ts';
import { AUDIO_PATH, MEDIA_PATH, download, mediaChain, mediaState, otherInstallation, startMediaGateway, upload, type MediaGateway } from './support/media-gateway.ts';

// docs/education.md, "Private audio media": POST .../media/audio (media.write) and GET .../media/{mediaId}
// (media.read), spec 4.7 and 8. Every refusal is checked to have stored nothing.

const fixture = (name: string) => readFileSync(new URL(`./fixtures/media/${name}`, import.meta.url));
const WEBM = fixture('tone.webm');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A valid WebM of exactly `size` bytes: the fixture, then padding (the container check reads the header only). */
function webmOfSize(size: number): Buffer {
  return Buffer.concat([WEBM, Buffer.alloc(size - WEBM.length, 7)]);
}

let gateway: MediaGateway;
let chain: RuntimeChainSetup;
let token: string;

beforeAll(async () => {
  gateway = await startMediaGateway();
  ({ chain, token } = await mediaChain(gateway, 'media'));
});
afterAll(() => gateway.stop());

/** Runs a refusal and checks it stored nothing and (unless it is metered) consumed nothing. */
async function refusedWithNothingStored(attempt: () => Promise<{ status: number; headers: Headers; body: unknown }>, status: number, code: string, consumes: boolean) {
  const before = await mediaState(gateway, chain.organization.id);
  const units = await usageOf(gateway, chain.organization.id);
  const answer = await attempt();
  const problem = expectRuntimeProblem(answer as Parameters<typeof expectRuntimeProblem>[0], status, code);
  expect(await mediaState(gateway, chain.organization.id)).toEqual(before);
  expect(await usageOf(gateway, chain.organization.id)).toBe(units + (consumes ? 1 : 0));
  return problem;
}

describe('storing private audio', () => {
  it('stores WebM, Ogg and MP4 and answers the media id, SHA-256, size, duration, reference and type; never a URL or key', async () => {
    for (const [file, type] of [['tone.webm', 'audio/webm'], ['tone.ogg', 'audio/ogg'], ['tone-vorbis.ogg', 'audio/ogg'], ['tone.m4a', 'audio/mp4']] as const) {
      const bytes = fixture(file);
      const answer = await upload(gateway, token, bytes, { contentType: type === 'audio/webm' ? 'audio/webm; codecs=opus' : type, reference: `ref:${file}`, duration: '1.25' });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toMatchObject({ version: 1, kind: 'service.media', status: 'ok', problems: [] });
      expect(answer.body.receipts).toEqual([expect.objectContaining({ kind: 'service.product-runtime-operation' })]);
      const data = answer.body.data;
      expect(Object.keys(data).sort()).toEqual(['bytes', 'contentType', 'createdAt', 'durationSeconds', 'mediaId', 'reference', 'sha256']);
      expect(data).toMatchObject({ sha256: sha256(bytes), bytes: bytes.length, durationSeconds: 1.25, reference: `ref:${file}`, contentType: type });
      expect(data.mediaId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // Nothing that locates or unlocks the storage: no URL, no storage key (it starts with the organization's id).
      expect(JSON.stringify(answer.body)).not.toMatch(/https?:|media_blobs|X-Amz|Signature/i);
      expect(JSON.stringify(answer.body)).not.toContain(chain.organization.id);
      const back = await download(gateway, token, data.mediaId as string);
      expect(back.status).toBe(200);
      expect(back.bytes.equals(bytes)).toBe(true);
      expect(back.headers.get('content-type')).toBe(type);
    }
  });

  it('takes exactly 3 MiB; 3 MiB and one byte is payload_too_large, by Content-Length or as it streams, and consumes nothing', async () => {
    const atLimit = await upload(gateway, token, webmOfSize(MAX_AUDIO_BYTES));
    expect(atLimit.status, JSON.stringify(atLimit.body)).toBe(200);
    expect(atLimit.body.data.bytes).toBe(MAX_AUDIO_BYTES);
    const over = webmOfSize(MAX_AUDIO_BYTES + 1);
    const declared = await refusedWithNothingStored(() => upload(gateway, token, over), 413, 'payload_too_large', false);
    expect(declared.details).toMatchObject({ limit: MAX_AUDIO_BYTES });
    // Without a Content-Length (chunked): counted as it arrives, refused at the byte past the limit.
    const streamed = () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < over.length; at += 256 * 1024) controller.enqueue(over.subarray(at, at + 256 * 1024));
          controller.close();
        },
      });
      return fetch(`${gateway.url}${AUDIO_PATH}`, {
        method: 'POST',
        headers: { 'X-Service-Runtime-Version': '1', Authorization: `Bearer ${token}`, 'Content-Type': 'audio/webm', 'X-Service-Media-Reference': 'r', 'X-Service-Media-Duration': '3', 'Idempotency-Key': randomUUID() },
        body,
        duplex: 'half',
      }).then(async (response) => ({ status: response.status, headers: response.headers, body: await response.json() }));
    };
    await refusedWithNothingStored(streamed, 413, 'payload_too_large', false);
  });

  it('takes a declared duration of 120 s; 121 s and 120.001 s are media_duration_exceeded; a missing or bad one is invalid', async () => {
    const at = await upload(gateway, token, WEBM, { duration: '120' });
    expect(at.status, JSON.stringify(at.body)).toBe(200);
    expect(at.body.data.durationSeconds).toBe(120);
    for (const duration of ['121', '120.001']) {
      const problem = await refusedWithNothingStored(() => upload(gateway, token, WEBM, { duration }), 422, 'media_duration_exceeded', true);
      expect(problem.details).toMatchObject({ limit: 120 });
    }
    for (const duration of [null, '0', 'abc', '-1', '1e2', '12.3456']) {
      await refusedWithNothingStored(() => upload(gateway, token, WEBM, { duration }), 400, 'invalid_request', true);
    }
  });

  it('refuses bytes that are not WebM, Ogg or MP4 by their signature, whatever Content-Type says (media_type_unsupported)', async () => {
    const cases: Array<[Buffer, string | null]> = [
      [fixture('tone.mp3'), 'audio/mpeg'],
      [fixture('tone.mp3'), 'audio/webm'],
      [fixture('tone.wav'), 'audio/ogg'],
      [fixture('tone.mka'), 'audio/webm'],
      [WEBM, 'audio/ogg'],
      [fixture('tone.m4a'), 'audio/webm'],
      [WEBM, 'application/octet-stream'],
      [WEBM, null],
    ];
    for (const [bytes, contentType] of cases) {
      const problem = await refusedWithNothingStored(() => upload(gateway, token, bytes, { contentType }), 415, 'media_type_unsupported', true);
      expect(problem.details).toMatchObject({ supported: ['audio/webm', 'audio/ogg', 'audio/mp4'] });
    }
  });

  it('bounds the reference (1 to 200 visible ASCII characters) and refuses an empty body', async () => {
    const longest = 'r'.repeat(200);
    const ok = await upload(gateway, token, WEBM, { reference: longest });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.reference).toBe(longest);
    for (const reference of ['r'.repeat(201), null, 'two words']) {
      await refusedWithNothingStored(() => upload(gateway, token, WEBM, { reference }), 400, 'invalid_request', true);
    }
    const empty = await refusedWithNothingStored(() => upload(gateway, token, new Uint8Array(0)), 400, 'invalid_request', true);
    expect(empty.message).toMatch(/no audio bytes/);
  });

  it('needs media.write: a token without it is insufficient_scope, and nothing is consumed', async () => {
    const readOnly = await runtimeToken(gateway, chain, 'media.read');
    const problem = await refusedWithNothingStored(() => upload(gateway, readOnly, WEBM), 403, 'insufficient_scope', false);
    expect(problem.details).toEqual({ scope: 'media.write' });
  });

  it('refuses a missing version header or token before reading anything', async () => {
    await refusedWithNothingStored(() => upload(gateway, token, WEBM, { headers: { 'X-Service-Runtime-Version': '2' } }), 400, 'runtime_version_unsupported', false);
    await refusedWithNothingStored(() => upload(gateway, null, WEBM), 401, 'unauthenticated', false);
  });
});

describe('idempotent uploads', () => {
  it('a retry with the same key and bytes replays the answer and stores once; other bytes or facts under it are refused', async () => {
    const key = randomUUID();
    const bytes = webmOfSize(10_000);
    const first = await upload(gateway, token, bytes, { key, reference: 'take-1' });
    expect(first.status).toBe(200);
    const stored = await mediaState(gateway, chain.organization.id);
    const retry = await upload(gateway, token, bytes, { key, reference: 'take-1' });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data).toEqual(first.body.data);
    expect(await mediaState(gateway, chain.organization.id)).toEqual(stored);
    const otherBytes = Buffer.from(bytes);
    otherBytes[otherBytes.length - 1] = 0;
    await refusedWithNothingStored(() => upload(gateway, token, otherBytes, { key, reference: 'take-1' }), 422, 'idempotency_key_reused', true);
    await refusedWithNothingStored(() => upload(gateway, token, bytes, { key, reference: 'take-2' }), 422, 'idempotency_key_reused', true);
    await refusedWithNothingStored(() => upload(gateway, token, bytes, { key, duration: '2' }), 422, 'idempotency_key_reused', true);
  });

  it('needs an Idempotency-Key, and a refusal under a key is replayed as such', async () => {
    await refusedWithNothingStored(() => upload(gateway, token, WEBM, { key: null }), 400, 'idempotency_key_required', true);
    const key = randomUUID();
    await refusedWithNothingStored(() => upload(gateway, token, WEBM, { key, duration: '121' }), 422, 'media_duration_exceeded', true);
    const again = await refusedWithNothingStored(() => upload(gateway, token, WEBM, { key, duration: '121' }), 422, 'media_duration_exceeded', true);
    expect(again).toMatchObject({ code: 'media_duration_exceeded' });
  });
});

describe('reading private audio', () => {
  let mediaId: string;
  const bytes = webmOfSize(100_000);

  beforeAll(async () => {
    const answer = await upload(gateway, token, bytes);
    expect(answer.status).toBe(200);
    mediaId = answer.body.data.mediaId as string;
  });

  it('streams the whole object with the runtime version, Accept-Ranges, the SHA-256 as ETag, and counts one operation', async () => {
    const units = await usageOf(gateway, chain.organization.id);
    const answer = await download(gateway, token, mediaId);
    expect(answer.status).toBe(200);
    expect(answer.bytes.equals(bytes)).toBe(true);
    expect(Object.fromEntries(['content-type', 'content-length', 'accept-ranges', 'etag', 'x-service-runtime-version', 'cache-control'].map((h) => [h, answer.headers.get(h)]))).toEqual({
      'content-type': 'audio/webm',
      'content-length': String(bytes.length),
      'accept-ranges': 'bytes',
      etag: `"${sha256(bytes)}"`,
      'x-service-runtime-version': '1',
      'cache-control': 'private, no-store',
    });
    expect(answer.headers.get('content-range')).toBeNull();
    expect(await usageOf(gateway, chain.organization.id)).toBe(units + 1);
  });

  it('answers HEAD with the headers of the answer and no bytes', async () => {
    const response = await fetch(`${gateway.url}${MEDIA_PATH}/${mediaId}`, { method: 'HEAD', headers: { 'X-Service-Runtime-Version': '1', Authorization: `Bearer ${token}`, Range: 'bytes=0-9' } });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes 0-9/${bytes.length}`);
    expect(response.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers ranges: the first bytes, from an offset, the last bytes (206 with Content-Range)', async () => {
    const size = bytes.length;
    for (const [range, start, end] of [['bytes=0-9', 0, 9], ['bytes=99990-', 99_990, size - 1], ['bytes=-16', size - 16, size - 1], ['bytes=5000-5000', 5000, 5000], ['bytes=99999-200000', 99_999, size - 1]] as const) {
      const answer = await download(gateway, token, mediaId, { Range: range });
      expect({ range, status: answer.status, contentRange: answer.headers.get('content-range'), length: answer.headers.get('content-length') }).toEqual({
        range,
        status: 206,
        contentRange: `bytes ${start}-${end}/${size}`,
        length: String(end - start + 1),
      });
      expect(answer.bytes.equals(bytes.subarray(start, end + 1))).toBe(true);
      expect(answer.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    }
  });

  it('a range past the end is 416 with Content-Range: bytes */size, as an envelope; one it cannot honour gets the whole object', async () => {
    const past = await download(gateway, token, mediaId, { Range: `bytes=${bytes.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(past.body).toMatchObject({ version: 1, kind: 'service.problem', status: 'error', data: null, problems: [{ code: 'invalid_request', details: { reason: 'range_not_satisfiable', size: bytes.length } }] });
    expect(past.headers.get('x-service-runtime-version')).toBe('1');
    for (const range of ['bytes=0-9,20-29', 'bytes=9-0', 'lines=1-2']) {
      const whole = await download(gateway, token, mediaId, { Range: range });
      expect({ range, status: whole.status, same: whole.bytes.equals(bytes) }).toEqual({ range, status: 200, same: true });
    }
  });

  it('If-Range: the range when the ETag matches, the whole object when it does not', async () => {
    const matching = await download(gateway, token, mediaId, { Range: 'bytes=0-9', 'If-Range': `"${sha256(bytes)}"` });
    expect(matching.status).toBe(206);
    const other = await download(gateway, token, mediaId, { Range: 'bytes=0-9', 'If-Range': `"${'0'.repeat(64)}"` });
    expect(other.status).toBe(200);
    expect(other.bytes.equals(bytes)).toBe(true);
  });

  it('needs media.read: a token without it is insufficient_scope, and nothing is consumed', async () => {
    const writeOnly = await runtimeToken(gateway, chain, 'media.write');
    const units = await usageOf(gateway, chain.organization.id);
    const answer = await download(gateway, writeOnly, mediaId);
    expectRuntimeProblem({ ...answer, body: answer.body! }, 403, 'insufficient_scope');
    expect(answer.body!.problems[0]!.details).toEqual({ scope: 'media.read' });
    expect(await usageOf(gateway, chain.organization.id)).toBe(units);
  });

  it('another organization, another installation of the same product, an unknown id: the same not_found', async () => {
    const unknown = await download(gateway, token, randomUUID());
    const malformed = await download(gateway, token, 'audio');
    const { token: otherOrganization } = await mediaChain(gateway, 'media-other-org');
    const sameOrganization = await otherInstallation(gateway, chain);
    const answers = [unknown, malformed, await download(gateway, otherOrganization, mediaId), await download(gateway, sameOrganization, mediaId)];
    for (const answer of answers) {
      expectRuntimeProblem({ ...answer, body: answer.body! }, 404, 'not_found');
      expect(answer.bytes.includes(bytes.subarray(0, 32))).toBe(false);
    }
    // The same words for each: a caller cannot tell someone else's media from media that does not exist.
    expect(new Set(answers.map((a) => JSON.stringify(a.body!.problems)))).toEqual(new Set([JSON.stringify(unknown.body!.problems)]));
    // Ranges do not help either.
    const ranged = await download(gateway, otherOrganization, mediaId, { Range: 'bytes=0-9' });
    expect(ranged.status).toBe(404);
  });

  it('is published: getCapabilities reports both capabilities available, and the OpenAPI document describes the bytes', async () => {
    const capabilities = await callRuntime<{ capabilities: Array<{ id: string; availability: string }>; granted: string[] }>(gateway, token, 'GET', '/api/product/v1/capabilities');
    const media = capabilities.body.data.capabilities.filter((c) => c.id.startsWith('media.'));
    expect(media).toEqual([expect.objectContaining({ id: 'media.audio.store', availability: 'available' }), expect.objectContaining({ id: 'media.audio.read', availability: 'available' })]);
    expect(capabilities.body.data.granted).toEqual(expect.arrayContaining(['media.audio.store', 'media.audio.read']));
    const doc = (await (await fetch(`${gateway.url}/api/product/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const validator = new Validator();
    expect((await validator.validate(doc)).valid).toBe(true);
    const store = doc.paths[AUDIO_PATH]!.post!;
    expect(Object.keys((store.requestBody as { content: object }).content)).toEqual(['audio/webm', 'audio/ogg', 'audio/mp4']);
    expect((store.parameters as Array<{ name: string; required: boolean }>).filter((p) => p.required).map((p) => p.name)).toEqual([
      'X-Service-Runtime-Version',
      'Idempotency-Key',
      'X-Service-Media-Reference',
      'X-Service-Media-Duration',
    ]);
    const read = doc.paths[`${MEDIA_PATH}/{mediaId}`]!.get!;
    expect(Object.keys(read.responses as object)).toEqual(expect.arrayContaining(['200', '206', '416', '404', '403']));
    expect((read.parameters as Array<{ name: string }>).map((p) => p.name)).toEqual(['X-Service-Runtime-Version', 'mediaId', 'Range', 'If-Range']);
  });
});
