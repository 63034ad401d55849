import { describe, expect, it } from 'vitest';
import { NdjsonChannel, STREAM_QUEUE_EVENTS, wantsNdjson } from './stream-routes.ts';

// The stream wire's pieces without a server: which Accept headers ask for NDJSON, and the bounded queue that makes a
// slow reader slow the writer (the HTTP behaviour is in test/education-generate.test.ts).

describe('wantsNdjson', () => {
  it('reads the Accept header\u2019s media ranges', () => {
    expect(wantsNdjson('application/x-ndjson')).toBe(true);
    expect(wantsNdjson('application/json, application/x-ndjson;q=0.9')).toBe(true);
    expect(wantsNdjson('Application/X-NDJSON')).toBe(true);
    expect(wantsNdjson('application/x-ndjson;q=0')).toBe(false);
    expect(wantsNdjson('application/json')).toBe(false);
    expect(wantsNdjson('*/*')).toBe(false);
    expect(wantsNdjson(undefined)).toBe(false);
  });
});

describe('NdjsonChannel', () => {
  it('holds the writer once its queue is full, until the reader catches up', async () => {
    const channel = new NdjsonChannel();
    const settled: boolean[] = [];
    const writes: Array<Promise<void>> = [];
    for (let i = 0; i < STREAM_QUEUE_EVENTS + 3; i += 1) {
      const write = channel.write({ type: 'delta', text: `piece ${i}` });
      writes.push(write);
      const at = settled.push(false) - 1;
      void write.then(() => (settled[at] = true));
    }
    await new Promise((resolve) => setImmediate(resolve));
    // Below the queue's bound the writes go through at once; from the bound on they wait for the reader.
    expect(settled.slice(0, STREAM_QUEUE_EVENTS - 1).every(Boolean)).toBe(true);
    expect(settled.slice(STREAM_QUEUE_EVENTS).some(Boolean)).toBe(false);
    const reader = channel.body.getReader();
    const lines: string[] = [];
    const decoder = new TextDecoder();
    for (let i = 0; i < STREAM_QUEUE_EVENTS + 3; i += 1) {
      const { value } = await reader.read();
      lines.push(decoder.decode(value));
    }
    await Promise.all(writes);
    expect(lines.map((line) => (JSON.parse(line) as { text: string }).text)).toEqual(Array.from({ length: STREAM_QUEUE_EVENTS + 3 }, (_, i) => `piece ${i}`));
    channel.close();
    expect((await reader.read()).done).toBe(true);
  });

  it('lets a waiting writer go and aborts its signal when the reader cancels', async () => {
    const channel = new NdjsonChannel();
    const writes = Array.from({ length: STREAM_QUEUE_EVENTS + 1 }, (_, i) => channel.write({ type: 'delta', text: String(i) }));
    await channel.body.cancel();
    await Promise.all(writes);
    expect(channel.cancelled.signal.aborted).toBe(true);
    // Writing after the reader went away is a no-op, never an error.
    await channel.write({ type: 'delta', text: 'late' });
  });
});
