import { GzipPrefix, MAX_GZIP_TAIL } from '../http/gzip-prefix.ts';

/** JSON-RPC 2.0 error codes (JSON-RPC 2.0 s5.1). */
export const JSONRPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603 } as const;

/** MCP's own error codes of the 2026-07-28 revision: a header that disagrees with the body, an unsupported version. */
export const MCP_ERRORS = { headerMismatch: -32020, missingClientCapability: -32021, unsupportedProtocolVersion: -32022 } as const;

/** A protocol-level failure, answered as a JSON-RPC error. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A JSON-RPC request or notification as received (already checked against the SDK's message schema). */
export type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: Record<string, unknown> };

/** One JSON-RPC reply. */
export type Reply = { jsonrpc: '2.0'; id?: unknown; result?: unknown; error?: unknown };

// A reply with a preserialized result names its id last, after the result: the text before the id is then the same
// for every reply, so that it can be compressed once (PreserializedResult.gzipped). Members of a JSON object have
// no order (RFC 8259 s4).
const REPLY_HEAD_TEXT = '{"jsonrpc":"2.0","result":';
const REPLY_HEAD = Buffer.from(REPLY_HEAD_TEXT);

/**
 * A result serialized ahead of time; the transport splices it into the reply instead of serializing it again. It is
 * kept as UTF-8 bytes too: a large result (the tool list is tens of kilobytes) spliced into a string would be
 * measured and encoded again on every reply. A result made with `gzip` also keeps its reply compressed up to the
 * id, for clients that accept gzip ({@link replyBody}).
 */
export class PreserializedResult {
  readonly bytes: Buffer;
  /** The reply up to its id, compressed once; only for results made with `gzip`. */
  readonly gzipped: GzipPrefix | undefined;
  constructor(json: string, options: { gzip?: boolean } = {}) {
    this.bytes = Buffer.from(json, 'utf8');
    this.gzipped = options.gzip ? new GzipPrefix(Buffer.concat([REPLY_HEAD, this.bytes])) : undefined;
  }

  /** The result as text, decoded when asked: only the rarer replies (batches) need it, and it is not kept twice. */
  get json(): string {
    return this.bytes.toString('utf8');
  }
}

/** A JSON-RPC error reply; an unknown id is answered as null (JSON-RPC 2.0 s5). */
export function rpcError(id: unknown, code: number, message: string, data?: Record<string, unknown>): Reply {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } };
}

/** The text of a reply after its preserialized result: the id, then the closing brace. */
function replyTail(id: unknown): string {
  return `,"id":${JSON.stringify(id ?? null)}}`;
}

/** One JSON-RPC reply as text; a preserialized result is spliced in as is. */
export function serializeReply(reply: Reply): string {
  if (reply.result instanceof PreserializedResult) return `${REPLY_HEAD_TEXT}${reply.result.json}${replyTail(reply.id)}`;
  return JSON.stringify(reply);
}

/** A response body: text, or parts of UTF-8 bytes written in turn without joining them. */
export interface ReplyBody {
  body: string | Buffer[];
  /** 'gzip' when the parts are a gzip member of the reply's text. */
  encoding?: 'gzip';
  /** True when another Accept-Encoding could have been answered with another encoding of the same reply. */
  varies: boolean;
}

/**
 * One JSON-RPC reply as the body of a response: the same text as {@link serializeReply}. When preserialized, it is
 * the parts of its bytes (head, result, tail); when the result keeps a gzip form and the client accepts gzip (asked
 * only then), the gzip member of that same text.
 */
export function replyBody(reply: Reply, acceptsGzip: () => boolean = () => false): ReplyBody {
  const { result } = reply;
  if (!(result instanceof PreserializedResult)) return { body: JSON.stringify(reply), varies: false };
  const tail = Buffer.from(replyTail(reply.id));
  if (result.gzipped && tail.length <= MAX_GZIP_TAIL && acceptsGzip()) {
    return { body: result.gzipped.withTail(tail), encoding: 'gzip', varies: true };
  }
  return { body: [REPLY_HEAD, result.bytes, tail], varies: result.gzipped !== undefined };
}
