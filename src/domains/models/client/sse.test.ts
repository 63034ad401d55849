import { describe, expect, it } from 'vitest';
import { createSseDataReader, SseLimitError } from './sse.ts';

const LIMITS = { maxLineBytes: 64, maxTotalBytes: 1_024 };
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('the bounded SSE reader', () => {
  it('joins data lines of an event, ignores comments and other fields, and accepts every line ending', () => {
    const reader = createSseDataReader(LIMITS);
    expect(reader.push(bytes('\uFEFF: keep-alive\nevent: x\nid: 1\ndata: one\ndata:two\n\ndata: three\r\n\r\ndata: four\r\r\n'))).toEqual(['one\ntwo', 'three', 'four']);
  });

  it('completes events split anywhere across chunks, also inside \\r\\n and inside a character', () => {
    const reader = createSseDataReader(LIMITS);
    const whole = bytes('data: é\r\n\r\ndata: [DONE]\n\n');
    const out: string[] = [];
    for (const byte of whole) out.push(...reader.push(Uint8Array.of(byte)));
    expect(out).toEqual(['é', '[DONE]']);
  });

  it('refuses a line, an event or a stream longer than its bound', () => {
    const line = createSseDataReader(LIMITS);
    expect(() => line.push(bytes(`data: ${'x'.repeat(100)}`))).toThrow(SseLimitError);
    const event = createSseDataReader(LIMITS);
    expect(() => event.push(bytes(`${'data: 0123456789\n'.repeat(8)}\n`))).toThrow(SseLimitError);
    const stream = createSseDataReader(LIMITS);
    expect(() => {
      for (let i = 0; i < 100; i += 1) stream.push(bytes('data: 0123456789\n\n'));
    }).toThrow(SseLimitError);
  });
});
