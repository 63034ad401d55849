import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EMPTY_PAYLOAD_SHA256, encodeS3Path, signS3Request } from './s3-signature.ts';

// The worked examples of AWS's documentation ("Signature Calculations for the Authorization Header: Transferring
// Payload in a Single Chunk"): an independent check of the whole chain, canonical request to signature.
const EXAMPLE = {
  host: 'examplebucket.s3.amazonaws.com',
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  now: new Date('2013-05-24T00:00:00Z'),
};

describe('Signature Version 4 for S3', () => {
  it('reproduces the documented GET Object example (with a Range)', () => {
    const headers = signS3Request({ ...EXAMPLE, method: 'GET', canonicalPath: '/test.txt', headers: { Range: 'bytes=0-9' }, payloadHash: EMPTY_PAYLOAD_SHA256 });
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    expect(headers).toMatchObject({ 'x-amz-date': '20130524T000000Z', 'x-amz-content-sha256': EMPTY_PAYLOAD_SHA256, range: 'bytes=0-9', host: EXAMPLE.host });
  });

  it('reproduces the documented PUT Object example (a key with "$", a payload, an extra signed header)', () => {
    const body = 'Welcome to Amazon S3.';
    const headers = signS3Request({
      ...EXAMPLE,
      method: 'PUT',
      canonicalPath: encodeS3Path('/test$file.text'),
      headers: { Date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY' },
      payloadHash: createHash('sha256').update(body).digest('hex'),
    });
    expect(encodeS3Path('/test$file.text')).toBe('/test%24file.text');
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, ' +
        'Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
    );
  });

  it('encodes each path segment once, keeps the slashes, and signs a session token when there is one', () => {
    expect(encodeS3Path("/b/a b/ü/(x)!*'")).toBe('/b/a%20b/%C3%BC/%28x%29%21%2A%27');
    const withToken = signS3Request({ ...EXAMPLE, credentials: { ...EXAMPLE.credentials, sessionToken: 'tok' }, method: 'DELETE', canonicalPath: '/k', headers: {}, payloadHash: EMPTY_PAYLOAD_SHA256 });
    expect(withToken['x-amz-security-token']).toBe('tok');
    expect(withToken.authorization).toContain('SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,');
  });
});
