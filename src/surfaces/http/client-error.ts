import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import type { Logger } from '../../logger.ts';
import { requestIdOf } from './node-exchange.ts';
import { HTTP_STATUS, problemDocument } from './problem.ts';
import type { ServerLimits } from './server-limits.ts';

/** Answers what Node's HTTP server rejects before any route sees a request (its `clientError` event). */
export interface ClientErrorResponder {
  /** Called for every request a handler receives: remembers whether an answer could still be written. */
  noteExchange: (req: IncomingMessage, res: ServerResponse) => void;
  /** The `clientError` listener. */
  answer: (error: Error, socket: Duplex) => void;
}

// After answering, the connection stays half-closed this long so that the client can read the answer while it
// still sends (closing a socket with unread input resets it, and the client may lose the answer). A client that
// neither reads nor closes is cut then.
const LINGER_MS = 2_000;

/** Our code for what Node reported; undefined for failures of the connection itself (reset, broken pipe). */
function codeOf(error: NodeJS.ErrnoException): ErrorCode | undefined {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'headers_too_large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      // Node's own answer is 413 too: the chunk extensions of a body are too long.
      return 'payload_too_large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request_timeout';
    default:
      // llhttp's parse errors; their reasons are fixed texts, never bytes of the request.
      return error.code?.startsWith('HPE_') ? 'invalid_request' : undefined;
  }
}

function detailOf(code: ErrorCode, limits: ServerLimits): string {
  const seconds = (ms: number) => `${ms / 1000} s`;
  switch (code) {
    case 'headers_too_large':
      return `The request line and headers together exceed ${limits.maxHeaderSize} bytes.`;
    case 'request_timeout':
      return `The request did not arrive in time: its headers must arrive within ${seconds(limits.headersTimeoutMs)} and the whole request within ${seconds(limits.requestTimeoutMs)}.`;
    case 'payload_too_large':
      return 'The chunk extensions of the request body are too long.';
    default:
      return 'The request is not valid HTTP/1.1.';
  }
}

/** A complete HTTP/1.1 response carrying a problem document; the connection closes after it. */
function problemMessage(code: ErrorCode, limits: ServerLimits, requestId: string): string {
  const problem = problemDocument(code, detailOf(code, limits), requestId);
  const body = JSON.stringify(problem);
  return (
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
    'Content-Type: application/problem+json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n' +
    `\r\n${body}`
  );
}

/**
 * A responder that answers with a problem document: 431 `headers_too_large`, 408 `request_timeout`, and 400
 * `invalid_request` for other malformed requests. It writes only to a writable socket on which no response has
 * started (else the client would read our bytes inside another response) and otherwise destroys the socket, as
 * Node's own handling does. It logs the status and code, never the request head (it may hold tokens).
 */
export function clientErrorResponder(limits: ServerLimits, logger: Logger | undefined): ClientErrorResponder {
  const latest = new WeakMap<object, { req: IncomingMessage; res: ServerResponse }>();
  const answered = new WeakSet<object>();

  const mayWrite = (socket: Duplex): boolean => {
    if (!socket.writable) return false;
    const exchange = latest.get(socket);
    if (!exchange) return true;
    // While the latest request's body still arrives, the failure is that request's: its response must not have
    // started. Otherwise a newer request failed, and every earlier response must be complete on the wire.
    return exchange.req.complete ? exchange.res.writableFinished : !exchange.res.headersSent;
  };

  return {
    noteExchange(req, res) {
      latest.set(req.socket, { req, res });
    },
    answer(error, socket) {
      // Node reports again when more bytes or the client's close reach the failed parser: the answer is on its way.
      if (answered.has(socket)) return;
      const code = codeOf(error);
      if (code === undefined || !mayWrite(socket)) {
        socket.destroy();
        return;
      }
      answered.add(socket);
      const requestId = requestIdOf(undefined);
      socket.end(problemMessage(code, limits, requestId));
      const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
      socket.once('close', () => clearTimeout(linger));
      logger?.info({ reqId: requestId, status: HTTP_STATUS[code], code }, 'request rejected before routing');
    },
  };
}
