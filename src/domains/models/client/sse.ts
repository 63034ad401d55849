/**
 * A bounded Server-Sent Events reader for the parts OpenAI's streams use: `data:` fields joined into one payload per
 * event, comments and other fields ignored (WHATWG HTML, "Parsing an event stream"). Kept behind this one function
 * so that it can be swapped for the `eventsource-parser` package; ours exists because that package bounds neither a
 * line nor an event, and a provider (or anything in between) that never sends a newline must not grow our memory.
 */

/** How much one stream may hold: the longest line or event, and all bytes read. */
export interface SseLimits {
  maxLineBytes: number;
  maxTotalBytes: number;
}

/** A stream that broke a bound; the caller decides what that means (for a model answer: invalid output). */
export class SseLimitError extends Error {
  override readonly name = 'SseLimitError';
}

/** Feeds bytes in, takes the `data` payloads of the events they completed out. */
export interface SseDataReader {
  push(chunk: Uint8Array): string[];
}

/** A reader for one stream. */
export function createSseDataReader(limits: SseLimits): SseDataReader {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  let data: string[] | undefined;
  let eventLength = 0;
  let total = 0;
  let first = true;

  function line(text: string): string | undefined {
    if (text === '') {
      const payload = data?.join('\n');
      data = undefined;
      eventLength = 0;
      return payload;
    }
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    if (field !== 'data') return undefined;
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    eventLength += value.length;
    if (eventLength > limits.maxLineBytes) throw new SseLimitError('an event of the stream is longer than the bound');
    (data ??= []).push(value);
    return undefined;
  }

  return {
    push(chunk) {
      total += chunk.byteLength;
      if (total > limits.maxTotalBytes) throw new SseLimitError('the stream is longer than the bound');
      pending += decoder.decode(chunk, { stream: true });
      if (first && pending.length > 0) {
        first = false;
        if (pending.charCodeAt(0) === 0xfeff) pending = pending.slice(1);
      }
      const payloads: string[] = [];
      for (;;) {
        const match = /\r\n|\r|\n/.exec(pending);
        // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
        if (match === null || (match[0] === '\r' && match.index === pending.length - 1)) break;
        const payload = line(pending.slice(0, match.index));
        pending = pending.slice(match.index + match[0].length);
        if (payload !== undefined) payloads.push(payload);
      }
      if (pending.length > limits.maxLineBytes) throw new SseLimitError('a line of the stream is longer than the bound');
      return payloads;
    },
  };
}
