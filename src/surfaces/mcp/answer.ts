import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { KgateError } from '../../kernel/errors.ts';
import { bearerChallenge } from '../http/auth.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { KNOWN_METHODS, dispatch, type DispatchContext } from './dispatcher.ts';
import { JSONRPC, JsonRpcError, rpcError, type Message, type Reply } from './json-rpc.ts';

/** The replies to the messages of one POST, with the HTTP status and headers they call for. */
export interface Answers {
  replies: Reply[];
  status: number;
  headers: Record<string, string>;
}

/**
 * A refusal before execution, answered at the protocol level: a JSON-RPC error carrying the stable code, the HTTP
 * status of that code (for a single message), Retry-After for limits, and for a missing OAuth scope the challenge
 * that tells the client which scope to ask for (step-up authorization).
 */
function refusal(error: KgateError, id: unknown, batch: boolean, answers: Answers, resourceMetadata: string): void {
  const retryAfter = error.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number') answers.headers['Retry-After'] = String(retryAfter);
  if (error.code === 'insufficient_scope') {
    answers.headers['WWW-Authenticate'] = bearerChallenge(false, {
      error: 'insufficient_scope',
      scope: typeof error.details?.scope === 'string' ? error.details.scope : '',
      resource_metadata: resourceMetadata,
      error_description: error.message,
    });
  }
  if (!batch) answers.status = HTTP_STATUS[error.code];
  answers.replies.push(rpcError(id, JSONRPC.invalidRequest, error.message, { code: error.code, ...(error.details ?? {}) }));
}

/**
 * Answers the messages of one POST in order. Notifications and responses need no reply; an invalid message gets
 * -32600 and an unknown method -32601, and neither consumes anything; every known method is dispatched.
 */
export async function answerMessages(
  messages: readonly unknown[],
  batch: boolean,
  ctx: DispatchContext & { resourceMetadata: string },
): Promise<Answers> {
  const answers: Answers = { replies: [], status: 200, headers: {} };
  for (const raw of messages) {
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (!parsed.success) {
      answers.replies.push(rpcError((raw as Message | undefined)?.id, JSONRPC.invalidRequest, 'Invalid JSON-RPC message'));
      answers.status = 400;
      continue;
    }
    const message = parsed.data as Message;
    if (message.method === undefined || message.id === undefined) continue;
    if (!KNOWN_METHODS.has(message.method)) {
      answers.replies.push(rpcError(message.id, JSONRPC.methodNotFound, `Method not found: ${message.method}`));
      continue;
    }
    try {
      answers.replies.push({ jsonrpc: '2.0', id: message.id, result: await dispatch(message.method, message.params ?? {}, ctx) });
    } catch (error) {
      if (error instanceof JsonRpcError) answers.replies.push(rpcError(message.id, error.code, error.message, error.data));
      else if (error instanceof KgateError) refusal(error, message.id, batch, answers, ctx.resourceMetadata);
      else throw error;
    }
  }
  return answers;
}
