/** JSON-RPC 2.0 error codes (JSON-RPC 2.0 s5.1). */
export const JSONRPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603 } as const;

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

/**
 * A result serialized ahead of time; the transport splices it into the reply instead of serializing it again. It is
 * kept as UTF-8 bytes too: a large result (the tool list is tens of kilobytes) spliced into a string would be
 * measured and encoded again on every reply.
 */
export class PreserializedResult {
  readonly bytes: Buffer;
  constructor(json: string) {
    this.bytes = Buffer.from(json, 'utf8');
  }

  /** The result as text, decoded when asked: only the rarer replies (batches) need it, and it is not kept twice. */
  get json(): string {
    return this.bytes.toString('utf8');
  }
}

const REPLY_END = Buffer.from('}');

/** A JSON-RPC error reply; an unknown id is answered as null (JSON-RPC 2.0 s5). */
export function rpcError(id: unknown, code: number, message: string, data?: Record<string, unknown>): Reply {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } };
}

/** The text of a result reply up to its result, which follows it, then a closing brace. */
function replyHead(id: unknown): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
}

/** One JSON-RPC reply as text; a preserialized result is spliced in as is. */
export function serializeReply(reply: Reply): string {
  if (reply.result instanceof PreserializedResult) return `${replyHead(reply.id)}${reply.result.json}}`;
  return JSON.stringify(reply);
}

/**
 * One JSON-RPC reply as the body of a response: the same text as {@link serializeReply}; when preserialized, as the
 * parts of its bytes (head, result, end), which the response writes in turn without joining them.
 */
export function replyBody(reply: Reply): string | Buffer[] {
  if (reply.result instanceof PreserializedResult) return [Buffer.from(replyHead(reply.id)), reply.result.bytes, REPLY_END];
  return JSON.stringify(reply);
}
