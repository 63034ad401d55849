import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PreserializedResult, replyBody, serializeReply, type Reply } from './json-rpc.ts';

const IDS = [1, 0, 'abc', 'ünï "quoted"', null];
const RESULT_JSON = JSON.stringify({ tools: [{ name: 'search_notes', description: 'Suche – 検索 "quoted" \\ é' }] });

describe('reply bodies', () => {
  const result = new PreserializedResult(RESULT_JSON);

  it('splice a preserialized result as bytes, the same UTF-8 as the text reply, whatever the id', () => {
    for (const id of IDS) {
      const reply: Reply = { jsonrpc: '2.0', id, result };
      const { body, encoding, varies } = replyBody(reply, () => true);
      expect(Array.isArray(body)).toBe(true);
      // The result's own bytes are among the parts, not a copy of them; without a gzip form nothing varies.
      expect((body as Buffer[]).includes(result.bytes)).toBe(true);
      expect([encoding, varies]).toEqual([undefined, false]);
      const bytes = Buffer.concat(body as Buffer[]);
      expect(bytes.equals(Buffer.from(serializeReply(reply), 'utf8'))).toBe(true);
      expect(JSON.parse(bytes.toString('utf8'))).toEqual({ jsonrpc: '2.0', id, result: JSON.parse(result.json) });
    }
  });

  it('serialize other replies as text', () => {
    const reply: Reply = { jsonrpc: '2.0', id: 7, result: { content: [] } };
    expect(replyBody(reply, () => true)).toEqual({ body: serializeReply(reply), varies: false });
  });

  describe('of a result kept in gzip too', () => {
    const gzipped = new PreserializedResult(RESULT_JSON, { gzip: true });

    it('are, for a client that accepts gzip, a gzip member of exactly the text reply', () => {
      for (const id of IDS) {
        const reply: Reply = { jsonrpc: '2.0', id, result: gzipped };
        const { body, encoding, varies } = replyBody(reply, () => true);
        expect([encoding, varies]).toEqual(['gzip', true]);
        expect(gunzipSync(Buffer.concat(body as Buffer[])).toString('utf8')).toBe(serializeReply(reply));
      }
    });

    it('are the plain bytes for a client that does not, and say that they vary', () => {
      const reply: Reply = { jsonrpc: '2.0', id: 3, result: gzipped };
      const { body, encoding, varies } = replyBody(reply, () => false);
      expect([encoding, varies]).toEqual([undefined, true]);
      expect(Buffer.concat(body as Buffer[]).toString('utf8')).toBe(serializeReply(reply));
    });

    it('fall back to the plain bytes when the id is too long for the tail block', () => {
      const reply: Reply = { jsonrpc: '2.0', id: 'x'.repeat(70_000), result: gzipped };
      const { body, encoding } = replyBody(reply, () => true);
      expect(encoding).toBeUndefined();
      expect(JSON.parse(Buffer.concat(body as Buffer[]).toString('utf8')).id).toBe(reply.id);
    });
  });
});
