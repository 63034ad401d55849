import { connect, type Socket } from 'node:net';

/**
 * HTTP/1.1 spoken byte by byte over a plain TCP socket, for tests of what a server does below the level where
 * fetch helps: half-sent heads, idle keep-alive connections, connections the server refuses.
 */

/** One response as the client read it. Header names are lower-cased. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A TCP connection to the server at `url` (http://host:port), with everything it receives collected. */
export interface RawConnection {
  socket: Socket;
  /** Every byte received so far, as text. */
  received(): string;
  /** Resolves when the server has closed the connection, with all it sent and how it ended. */
  closed: Promise<{ received: string; reset: boolean }>;
  /** Resolves with the next complete response (framed by Content-Length), without waiting for a close. */
  nextResponse(): Promise<RawResponse>;
}

/** Opens a connection; resolves once it is established. */
export async function openRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let text = '';
  let consumed = 0;
  let reset = false;
  const waiting: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    waiting.splice(0).forEach((wake) => wake());
  });
  socket.on('error', () => (reset = true));
  const closed = new Promise<{ received: string; reset: boolean }>((resolve) =>
    socket.once('close', () => {
      waiting.splice(0).forEach((wake) => wake());
      resolve({ received: text, reset });
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    received: () => text,
    closed,
    async nextResponse() {
      for (;;) {
        const framed = frame(text.slice(consumed));
        if (framed) {
          consumed += framed.length;
          return parseResponse(text.slice(consumed - framed.length, consumed));
        }
        if (socket.closed) throw new Error(`connection closed before a complete response: ${JSON.stringify(text.slice(consumed))}`);
        await new Promise<void>((wake) => waiting.push(wake));
      }
    },
  };
}

/** Sends `bytes` on a new connection and resolves with everything received once the server has closed it. */
export async function sendUntilClosed(url: string, bytes: string): Promise<string> {
  const connection = await openRaw(url);
  connection.socket.write(bytes);
  return (await connection.closed).received;
}

/** The first complete response at the start of `text` (Content-Length framed), or undefined. */
function frame(text: string): string | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1];
  const total = end + 4 + Number(length ?? 0);
  return text.length >= total ? text.slice(0, total) : undefined;
}

/** Parses one complete response. */
export function parseResponse(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4) };
}

/** Every response in what a connection received, in order. */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  for (let framed = frame(rest); framed; framed = frame(rest)) {
    responses.push(parseResponse(framed));
    rest = rest.slice(framed.length);
  }
  return responses;
}
