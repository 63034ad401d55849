/**
 * AWS Signature Version 4 for S3 requests, the one way S3-compatible stores (AWS S3, MinIO, Ceph, Garage, R2...)
 * authenticate a request: a canonical request, a string to sign, and an HMAC-SHA256 chain from the secret key
 * (AWS documentation, "Signature Calculations for the Authorization Header"). Header-signed requests only; kgate never
 * makes a presigned URL, since no storage URL or credential ever leaves the server.
 */
import { createHmac, hash } from 'node:crypto';

/** The access key of an S3-compatible store. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** For temporary credentials; sent as `x-amz-security-token`. */
  sessionToken?: string;
}

/** One request to sign. */
export interface S3RequestToSign {
  method: 'GET' | 'PUT' | 'DELETE' | 'HEAD';
  /** The Host header as it will be sent (with the port when not the scheme's default). */
  host: string;
  /** The path as it will be sent, already URI-encoded (encodeS3Path). */
  canonicalPath: string;
  /** Headers to sign besides host and the x-amz-* ones added here. */
  headers: Readonly<Record<string, string>>;
  /** SHA-256 of the payload, lowercase hex (of nothing for GET and DELETE). */
  payloadHash: string;
  region: string;
  credentials: S3Credentials;
  now: Date;
}

/** SHA-256 of no bytes: the payload hash of a request without a body. */
export const EMPTY_PAYLOAD_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** RFC 3986 percent-encoding as S3 wants it: everything but unreserved characters, in UTF-8. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The path of an object key as sent and signed: each segment encoded once (S3 does not double-encode), `/` kept. */
export function encodeS3Path(path: string): string {
  return path.split('/').map(uriEncode).join('/');
}

/** `YYYYMMDDTHHMMSSZ`. */
function amzDate(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/**
 * The headers that authenticate a request: the caller's, plus `host`, `x-amz-date`, `x-amz-content-sha256` (and
 * `x-amz-security-token`), and `authorization`. Every header sent is signed. Names come back in lowercase.
 */
export function signS3Request(request: S3RequestToSign): Record<string, string> {
  const date = amzDate(request.now);
  const day = date.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  headers.host = request.host;
  headers['x-amz-date'] = date;
  headers['x-amz-content-sha256'] = request.payloadHash;
  if (request.credentials.sessionToken) headers['x-amz-security-token'] = request.credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((name) => `${name}:${headers[name]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [request.method, request.canonicalPath, '', canonicalHeaders, signedHeaders, request.payloadHash].join('\n');
  const scope = `${day}/${request.region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, hash('sha256', canonicalRequest, 'hex')].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${request.credentials.secretAccessKey}`, day), request.region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${request.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
