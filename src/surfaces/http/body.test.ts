import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseJsonBody, readBody, utf8Text } from './body.ts';

const chunks = (...parts: string[]) => parts.map((part) => Buffer.from(part));

describe('the one body reader', () => {
  it('reads Node streams and web streams alike, chunk by chunk', async () => {
    expect((await readBody(Readable.from(chunks('{"a":', '1}')), undefined, 100)).toString()).toBe('{"a":1}');
    const web = new Blob(chunks('{"b":', '2}')).stream();
    expect((await readBody(web, undefined, 100)).toString()).toBe('{"b":2}');
    expect(await readBody(null, undefined, 100)).toHaveLength(0);
  });

  it('refuses a body over the bound, declared or actual, with payload_too_large', async () => {
    await expect(readBody(Readable.from(chunks('x')), '101', 100)).rejects.toMatchObject({ code: 'payload_too_large', details: { limit: 100 } });
    await expect(readBody(Readable.from(chunks('x'.repeat(60), 'y'.repeat(60))), undefined, 100)).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(readBody(new Blob(chunks('x'.repeat(101))).stream(), '50', 100)).rejects.toMatchObject({ code: 'payload_too_large' });
  });

  it('refuses bytes that are not UTF-8 instead of replacing them, and drops a leading byte order mark', () => {
    for (const bytes of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      expect(() => utf8Text(Buffer.from([0x61, ...bytes]))).toThrow(expect.objectContaining({ code: 'invalid_encoding' }));
    }
    expect(utf8Text(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toBe('a');
    expect(utf8Text(Buffer.from('😀 é'))).toBe('😀 é');
  });

  it('parses JSON, and names text that is not JSON invalid_request', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1]}'))).toEqual({ a: [1] });
    expect(() => parseJsonBody(Buffer.from('{nope'))).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});
