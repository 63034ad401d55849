import { describe, expect, it } from 'vitest';
import { PreserializedResult, replyBody, serializeReply, type Reply } from './json-rpc.ts';

describe('reply bodies', () => {
  const result = new PreserializedResult(JSON.stringify({ tools: [{ name: 'search_notes', description: 'Suche – 検索 "quoted" \\ é' }] }));

  it('splice a preserialized result as bytes, the same UTF-8 as the text reply, whatever the id', () => {
    for (const id of [1, 0, 'abc', 'ünï "quoted"', null]) {
      const reply: Reply = { jsonrpc: '2.0', id, result };
      const parts = replyBody(reply);
      expect(Array.isArray(parts)).toBe(true);
      // The result's own bytes are among the parts, not a copy of them.
      expect((parts as Buffer[]).includes(result.bytes)).toBe(true);
      const body = Buffer.concat(parts as Buffer[]);
      expect(body.equals(Buffer.from(serializeReply(reply), 'utf8'))).toBe(true);
      expect(JSON.parse(body.toString('utf8'))).toEqual({ jsonrpc: '2.0', id, result: JSON.parse(result.json) });
    }
  });

  it('serialize other replies as text', () => {
    const reply: Reply = { jsonrpc: '2.0', id: 7, result: { content: [] } };
    expect(replyBody(reply)).toBe(serializeReply(reply));
  });
});
