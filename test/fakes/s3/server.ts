/**
 * A local fake of an S3-compatible object store on 127.0.0.1 (port 0), for the media store's tests: PutObject,
 * GetObject (with one Range, 206 and Content-Range, 416 InvalidRange past the end) and DeleteObject (204, also for a
 * key that is not there), path-style addressing, S3's XML error documents, and every request
 * authenticated as S3 does: Signature Version 4 recomputed from the request as it arrived (the signed headers, the
 * path as sent, the payload hash, which must be the body's), an unknown access key or a date more than 15 minutes off
 * refused. Faults can be injected; every request is logged.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signS3Request } from '../../../src/domains/media/index.ts';

/** One stored object. */
export interface FakeObject {
  bytes: Buffer;
  contentType: string;
  etag: string;
}

/** One logged request, as it arrived. */
export interface S3Request {
  method: string;
  /** The bucket it named and the object key, decoded. */
  bucket: string;
  key: string;
  range: string | undefined;
  status: number;
}

/** A started fake. */
export interface S3Fake {
  /** The endpoint to configure (`http://127.0.0.1:PORT`). */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Objects of the bucket by key. */
  objects: Map<string, FakeObject>;
  requests: S3Request[];
  /** The next `n` requests answer `status` (500 InternalError by default, 503 SlowDown) and change nothing. */
  failNext(n: number, status?: 500 | 503): void;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024 * 1024;
const MAX_SKEW_MS = 15 * 60 * 1000;

function errorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `YYYYMMDDTHHMMSSZ` as a date, or undefined. */
function parseAmzDate(value: string | undefined): Date | undefined {
  const m = value ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value) : null;
  return m ? new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) : undefined;
}

/** One range of bytes as S3 reads it, against an object of `size`: the range, undefined (whole), or 'invalid'. */
function rangeOf(header: string | undefined, size: number): { start: number; end: number } | undefined | 'invalid' {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header) : null;
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    return suffix === 0 ? 'invalid' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return 'invalid';
  return end < start ? undefined : { start, end };
}

/** Starts the fake with one bucket and one access key. */
export async function startS3Fake(options: { bucket?: string; region?: string } = {}): Promise<S3Fake> {
  const bucket = options.bucket ?? 'kgate-media';
  const region = options.region ?? 'us-east-1';
  const accessKeyId = 'AKIAKGATEFAKE0000001';
  const secretAccessKey = 'fake/secret/key/for/tests/only/0000000000';
  const objects = new Map<string, FakeObject>();
  const requests: S3Request[] = [];
  const faults: { remaining: number; status: 500 | 503 } = { remaining: 0, status: 500 };

  /** Checks the request's signature as S3 would; answers the refusal, or undefined when it is authentic. */
  function authenticate(req: IncomingMessage, rawPath: string): { status: number; code: string } | undefined {
    const header = req.headers.authorization ?? '';
    const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(header);
    if (!m) return { status: 403, code: 'AccessDenied' };
    const [, key, day, signedRegion, signedHeaders, signature] = m;
    if (key !== accessKeyId) return { status: 403, code: 'InvalidAccessKeyId' };
    if (signedRegion !== region) return { status: 400, code: 'AuthorizationHeaderMalformed' };
    const date = parseAmzDate(req.headers['x-amz-date'] as string | undefined);
    if (!date || !req.headers['x-amz-date']!.toString().startsWith(day!)) return { status: 403, code: 'AccessDenied' };
    if (Math.abs(date.getTime() - Date.now()) > MAX_SKEW_MS) return { status: 403, code: 'RequestTimeTooSkewed' };
    const names = signedHeaders!.split(';');
    if (!['host', 'x-amz-date', 'x-amz-content-sha256'].every((n) => names.includes(n))) return { status: 403, code: 'AccessDenied' };
    const headers: Record<string, string> = {};
    for (const name of names) {
      if (name === 'host' || name === 'x-amz-date' || name === 'x-amz-content-sha256' || name === 'x-amz-security-token') continue;
      const value = req.headers[name];
      if (value === undefined) return { status: 403, code: 'SignatureDoesNotMatch' };
      headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const expected = signS3Request({
      method: req.method as 'GET' | 'PUT' | 'DELETE',
      host: req.headers.host ?? '',
      canonicalPath: rawPath,
      headers,
      payloadHash: String(req.headers['x-amz-content-sha256']),
      region,
      credentials: { accessKeyId, secretAccessKey },
      now: date,
    });
    const sent = new Set(names);
    const recomputed = /Signature=([0-9a-f]{64})$/.exec(expected.authorization!)?.[1];
    // Every header the client signed must be one it sent, and the signature must be over exactly those.
    if (/SignedHeaders=([^,]+)/.exec(expected.authorization!)?.[1] !== [...sent].sort().join(';') || recomputed !== signature) {
      return { status: 403, code: 'SignatureDoesNotMatch' };
    }
    return undefined;
  }

  /** The bucket and key a request names (path-style: a loopback address has no bucket subdomains). */
  function addressOf(rawPath: string): { bucket: string; key: string } {
    const segments = rawPath.split('/').slice(1).map((s) => decodeURIComponent(s));
    return { bucket: segments[0] ?? '', key: segments.slice(1).join('/') };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawPath = (req.url ?? '/').split('?')[0]!;
    const address = addressOf(rawPath);
    const log: S3Request = { method: req.method ?? '', bucket: address.bucket, key: address.key, range: req.headers.range, status: 0 };
    requests.push(log);
    const answer = (status: number, headers: Record<string, string>, body?: Buffer | string) => {
      log.status = status;
      res.writeHead(status, headers).end(body);
    };
    const fail = (status: number, code: string, message = code) => answer(status, { 'Content-Type': 'application/xml' }, errorXml(code, message));
    const body = await readBody(req);
    if (body === null) return fail(400, 'EntityTooLarge');
    if (faults.remaining > 0) {
      faults.remaining -= 1;
      return fail(faults.status, faults.status === 503 ? 'SlowDown' : 'InternalError');
    }
    const refused = authenticate(req, rawPath);
    if (refused) return fail(refused.status, refused.code);
    if (address.bucket !== bucket) return fail(404, 'NoSuchBucket');
    if (address.key === '') return fail(400, 'InvalidRequest', 'Only object operations are served');
    switch (req.method) {
      case 'PUT': {
        if (req.headers['content-length'] === undefined) return fail(411, 'MissingContentLength');
        if (createHash('sha256').update(body).digest('hex') !== req.headers['x-amz-content-sha256']) return fail(400, 'XAmzContentSHA256Mismatch');
        const etag = `"${createHash('md5').update(body).digest('hex')}"`;
        objects.set(address.key, { bytes: body, contentType: req.headers['content-type'] ?? 'binary/octet-stream', etag });
        return answer(200, { ETag: etag });
      }
      case 'GET': {
        const object = objects.get(address.key);
        if (!object) return fail(404, 'NoSuchKey', 'The specified key does not exist.');
        const range = rangeOf(req.headers.range, object.bytes.length);
        const common = { 'Content-Type': object.contentType, ETag: object.etag, 'Accept-Ranges': 'bytes' };
        if (range === 'invalid') {
          log.status = 416;
          res.writeHead(416, { 'Content-Type': 'application/xml', 'Content-Range': `bytes */${object.bytes.length}` }).end(errorXml('InvalidRange', 'The requested range is not satisfiable'));
          return;
        }
        if (!range) return answer(200, { ...common, 'Content-Length': String(object.bytes.length) }, object.bytes);
        const part = object.bytes.subarray(range.start, range.end + 1);
        return answer(206, { ...common, 'Content-Length': String(part.length), 'Content-Range': `bytes ${range.start}-${range.end}/${object.bytes.length}` }, part);
      }
      case 'DELETE':
        objects.delete(address.key);
        return answer(204, {});
      default:
        return fail(405, 'MethodNotAllowed');
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end(errorXml('InternalError', 'fake failure')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    region,
    bucket,
    accessKeyId,
    secretAccessKey,
    objects,
    requests,
    failNext(n, status = 500) {
      faults.remaining = n;
      faults.status = status;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
