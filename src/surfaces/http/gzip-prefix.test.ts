import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, GzipPrefix, MAX_GZIP_TAIL } from './gzip-prefix.ts';

const gunzip = (parts: readonly Buffer[]) => gunzipSync(Buffer.concat(parts));

describe('a gzip prefix', () => {
  const prefix = Buffer.from(`{"tools":[${Array.from({ length: 400 }, (_, i) => `{"name":"tool_${i}","description":"Suche – 検索 ${i}"}`).join(',')}]`);
  const gzip = new GzipPrefix(prefix);

  it('with any tail is a gzip member of exactly the prefix and the tail, that zlib checks (CRC-32 and size)', () => {
    for (const tail of [',"id":1}', ',"id":"ünï \\"quoted\\""}', '', 'x'.repeat(MAX_GZIP_TAIL)].map((t) => Buffer.from(t))) {
      const parts = gzip.withTail(tail);
      expect(parts[0]).toBe(gzip.head);
      expect(gunzip(parts).equals(Buffer.concat([prefix, tail]))).toBe(true);
    }
  });

  it('compresses the prefix: the repeated JSON is a small fraction on the wire', () => {
    expect(gzip.head.length).toBeLessThan(prefix.length / 5);
  });

  it('compresses incompressible and empty prefixes correctly too', () => {
    for (const raw of [randomBytes(100_000), Buffer.alloc(0)]) {
      expect(gunzip(new GzipPrefix(raw).withTail(Buffer.from('end'))).equals(Buffer.concat([raw, Buffer.from('end')]))).toBe(true);
    }
  });

  it('refuses a tail one stored block cannot hold, rather than writing a corrupt body', () => {
    expect(() => gzip.withTail(Buffer.alloc(MAX_GZIP_TAIL + 1))).toThrow(RangeError);
  });

  it('gives each body its own tail block: bodies made in turn do not share writable bytes', () => {
    const first = gzip.withTail(Buffer.from('1'));
    const second = gzip.withTail(Buffer.from('2'));
    expect(first[1]).not.toBe(second[1]);
    expect(gunzip(first).toString().endsWith('1')).toBe(true);
  });
});

describe('accepting gzip', () => {
  const accepts = (value: string | undefined) => acceptsGzip({ headers: value === undefined ? {} : { 'accept-encoding': value } });

  it('follows Accept-Encoding with its q-values and wildcard', () => {
    expect(accepts('gzip, deflate')).toBe(true);
    expect(accepts('br, gzip, deflate')).toBe(true);
    expect(accepts('GZIP')).toBe(true);
    expect(accepts('*')).toBe(true);
    expect(accepts('deflate, gzip;q=0.5')).toBe(true);
    expect(accepts('gzip;q=0')).toBe(false);
    expect(accepts('*, gzip;q=0')).toBe(false);
    expect(accepts('br, deflate')).toBe(false);
    expect(accepts('identity')).toBe(false);
    expect(accepts('')).toBe(false);
  });

  it('is not assumed when the header is absent', () => {
    expect(accepts(undefined)).toBe(false);
  });
});
