import type { ChatRequest, ChatStreamEvent, TokenUsage } from '../contract.ts';
import { ModelError } from '../contract.ts';
import { encoded } from './body.ts';
import { chatPayload, requestIdOf, usageOf, type ChatTarget } from './chat.ts';
import type { Connection } from './connection.ts';
import { duringAnswer, invalidOutput } from './failures.ts';
import { withRetries } from './retry.ts';
import { CallScope } from './scope.ts';
import { createSseDataReader, SseLimitError } from './sse.ts';
import type { Exchange } from './transport.ts';
import { ChunkWire } from './wire.ts';

/**
 * A streamed chat completion. Nothing is sent until the first `next()`; a consumer that stops (`return()`, a `break`
 * out of `for await`) destroys the upstream request, which the provider sees as the client going away. Deltas come as
 * the model writes them; the last event is the completion with the usage of the stream's final chunk.
 */
export async function* streamChat(connection: Connection, target: ChatTarget, request: ChatRequest, timeoutMs: number): AsyncGenerator<ChatStreamEvent, void, undefined> {
  const payload = chatPayload(target, request, true);
  const scope = new CallScope(request.signal, timeoutMs);
  let exchange: Exchange | undefined;
  try {
    exchange = await withRetries(scope, connection.limits, () => connection.open(scope, '/chat/completions', payload, 'text/event-stream'));
    const { response } = exchange;
    const providerRequestId = requestIdOf(response.headers['x-request-id']);
    const type = String(response.headers['content-type'] ?? '').toLowerCase();
    if (!type.startsWith('text/event-stream') || encoded(response)) throw invalidOutput('a stream was asked for and something else came');
    const reader = createSseDataReader({ maxLineBytes: connection.limits.maxStreamLineBytes, maxTotalBytes: connection.limits.maxStreamBytes });
    let text = '';
    let usage: TokenUsage | undefined;
    let finishReason: string | undefined;
    let answeredBy = target.model;
    let done = false;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        for (const data of reader.push(chunk)) {
          if (done) continue;
          if (data === '[DONE]') {
            done = true;
            continue;
          }
          let json: unknown;
          try {
            json = JSON.parse(data);
          } catch {
            throw invalidOutput('a stream event is not JSON', usage);
          }
          if (json !== null && typeof json === 'object' && 'error' in json) {
            throw new ModelError('model_interrupted', 'The model reported an error in the middle of its answer.', 'yes', usage);
          }
          const parsed = ChunkWire.safeParse(json);
          if (!parsed.success) throw invalidOutput('a stream event is not a completion chunk', usage);
          if (parsed.data.model !== undefined && parsed.data.model !== '') answeredBy = parsed.data.model;
          usage = usageOf(parsed.data.usage) ?? usage;
          for (const choice of parsed.data.choices) {
            if (choice.finish_reason) finishReason = choice.finish_reason;
            const delta = choice.delta?.content;
            if (typeof delta === 'string' && delta !== '') {
              text += delta;
              yield { kind: 'delta', text: delta };
            }
          }
        }
        if (done) break;
      }
    } catch (error) {
      if (error instanceof ModelError) throw error;
      if (error instanceof SseLimitError) throw invalidOutput(error.message, usage);
      throw duringAnswer(scope, usage);
    }
    if (!done) throw duringAnswer(scope, usage);
    if (usage === undefined) throw invalidOutput('the stream reported no token usage');
    yield {
      kind: 'done',
      completion: { text, usage, model: answeredBy, finishReason: finishReason ?? 'unknown', ...(providerRequestId === undefined ? {} : { providerRequestId }) },
    };
  } finally {
    // A consumer that stopped early, a failure or the end: the exchange is over either way.
    if (scope.reason === undefined) scope.stop('caller');
    exchange?.request.destroy();
    scope.close();
  }
}
