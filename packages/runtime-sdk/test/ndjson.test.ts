// The incremental NDJSON reader: lines split anywhere across chunks (inside a multi-byte character too), values
// yielded as their newline arrives (before the body ends), blank and CRLF lines, a last line without its newline,
// the line bound, a line that is not JSON, a broken body, and an early stop cancelling the body.
import { describe, expect, it } from 'vitest';
import { RuntimeTransportError } from '../src/errors.js';
import { ndjsonValues } from '../src/hosted/ndjson.js';

const bytes = (text: string) => new TextEncoder().encode(text);

/** A body that hands out `chunks` one read at a time (none read ahead), recording whether it was cancelled. */
function body(chunks: Uint8Array[], options: { failAfter?: boolean } = {}) {
  const state = { cancelled: false, reads: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.reads++];
      if (next) controller.enqueue(next);
      else if (options.failAfter) controller.error(new Error('connection reset'));
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

async function collect(chunks: Uint8Array[], maxLineBytes = 1024): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const value of ndjsonValues({ body: body(chunks).stream, maxLineBytes, path: '/p', attempts: 1 })) out.push(value);
  return out;
}

describe('ndjsonValues', () => {
  it('parses lines split anywhere across chunks, a multi-byte character included', async () => {
    const text = '{"event":"ready"}\n{"event":"delta","text":"caf\u00e9 \u2014 \u00fcber"}\r\n\n{"event":"done"}\n';
    const all = bytes(text);
    const expected = [{ event: 'ready' }, { event: 'delta', text: 'caf\u00e9 \u2014 \u00fcber' }, { event: 'done' }];
    expect(await collect([all])).toEqual(expected);
    for (let cut = 1; cut < all.byteLength; cut += 1) expect(await collect([all.slice(0, cut), all.slice(cut)])).toEqual(expected);
    expect(await collect([...all].map((b) => Uint8Array.of(b)))).toEqual(expected);
  });

  it('yields a value as soon as its newline arrives, and takes a last line without a newline', async () => {
    const { stream, state } = body([bytes('{"a":1}\n{"b"'), bytes(':2}')]);
    const values = ndjsonValues({ body: stream, maxLineBytes: 100, path: '/p', attempts: 1 });
    expect((await values.next()).value).toEqual({ a: 1 });
    expect(state.reads).toBe(1);
    expect((await values.next()).value).toEqual({ b: 2 });
    expect((await values.next()).done).toBe(true);
  });

  it('refuses a line over its bound, even one that never ends, and cancels the body', async () => {
    const long = body([bytes('{"a":"'), bytes('x'.repeat(40)), bytes('x'.repeat(40))]);
    const failure = await (async () => {
      for await (const value of ndjsonValues({ body: long.stream, maxLineBytes: 64, path: '/p', attempts: 1 })) void value;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RuntimeTransportError);
    expect(failure).toMatchObject({ reason: 'response_too_large', path: '/p' });
    expect(long.state.cancelled).toBe(true);
    // Exactly the bound is accepted.
    expect(await collect([bytes(`"${'x'.repeat(62)}"\n`)], 64)).toEqual(['x'.repeat(62)]);
  });

  it('a line that is not JSON is stream_interrupted; a broken body is body_read_failed', async () => {
    await expect(collect([bytes('{"a":1}\nnot json\n')])).rejects.toMatchObject({ reason: 'stream_interrupted' });
    const broken = body([bytes('{"a":1}\n')], { failAfter: true });
    const seen: unknown[] = [];
    const failure = await (async () => {
      for await (const value of ndjsonValues({ body: broken.stream, maxLineBytes: 100, path: '/p', attempts: 1 })) seen.push(value);
    })().catch((error: unknown) => error);
    expect(seen).toEqual([{ a: 1 }]);
    expect(failure).toMatchObject({ name: 'RuntimeTransportError', reason: 'body_read_failed' });
  });

  it('a consumer that stops early cancels the body', async () => {
    const { stream, state } = body([bytes('{"a":1}\n{"a":2}\n'), bytes('{"a":3}\n')]);
    for await (const value of ndjsonValues({ body: stream, maxLineBytes: 100, path: '/p', attempts: 1 })) {
      expect(value).toEqual({ a: 1 });
      break;
    }
    expect(state.cancelled).toBe(true);
  });
});
