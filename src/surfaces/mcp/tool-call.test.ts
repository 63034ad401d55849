import { describe, expect, it } from 'vitest';
import { PreserializedResult, replyBody, serializeReply } from './json-rpc.ts';
import { toolResult } from './tool-call.ts';

const answer = () => ({ path: 'Projects/Ä "quoted".md', content: '# Ä\n\n検索 \\ done\n', truncated: false });

describe('a tool result', () => {
  it('of a frozen output is serialized once, to exactly the text of the same result built anew', () => {
    const frozen = Object.freeze(answer());
    const first = toolResult(frozen);
    expect(first).toBeInstanceOf(PreserializedResult);
    expect(toolResult(frozen)).toBe(first);
    const plain = toolResult(answer());
    expect(plain).not.toBeInstanceOf(PreserializedResult);
    expect((first as PreserializedResult).json).toBe(JSON.stringify(plain));
    // Spliced into a reply, as bytes or as text, it reads as the plain result would.
    const reply = { jsonrpc: '2.0' as const, id: 7, result: first };
    expect(JSON.parse(serializeReply(reply))).toEqual({ jsonrpc: '2.0', id: 7, result: plain });
    expect(JSON.parse(Buffer.concat(replyBody(reply).body as Buffer[]).toString())).toEqual({ jsonrpc: '2.0', id: 7, result: plain });
  });

  it('of an output that is not frozen is built anew each time', () => {
    const output = answer();
    const first = toolResult(output) as { structuredContent: unknown };
    output.content = 'changed';
    const second = toolResult(output) as { content: Array<{ text: string }> };
    expect(second).not.toBe(first);
    expect(second.content[0]!.text).toContain('changed');
  });
});
