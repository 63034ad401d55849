import type { IncomingMessage } from 'node:http';

/** A body longer than its bound. */
export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge';
}

/**
 * Reads an answer's body up to `maxBytes`; a declared or actual length over it rejects with BodyTooLarge before
 * more is kept. Other failures (the connection lost, the call stopped) reject as the stream does.
 */
export async function readBounded(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw new BodyTooLarge('the answer is longer than the bound');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw new BodyTooLarge('the answer is longer than the bound');
    chunks.push(chunk);
  }
  if (!response.complete) throw new Error('the answer ended early');
  return Buffer.concat(chunks, total);
}

/** Whether the answer is sent with an encoding other than identity (we asked for identity: the bound counts raw bytes). */
export function encoded(response: IncomingMessage): boolean {
  const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  return encoding !== 'identity' && encoding !== '';
}
