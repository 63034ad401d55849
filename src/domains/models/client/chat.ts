import type { ChatCompletion, ChatRequest, TokenUsage } from '../contract.ts';
import { BodyTooLarge, encoded, readBounded } from './body.ts';
import type { Connection } from './connection.ts';
import { duringAnswer, invalidOutput } from './failures.ts';
import { withRetries } from './retry.ts';
import { CallScope } from './scope.ts';
import { CompletionWire, UsageWire } from './wire.ts';

/**
 * Which model a chat request names, and the field its output bound goes in: `max_tokens` (the API's original field,
 * which OpenAI-compatible servers take) or `max_completion_tokens` (which OpenAI's reasoning models require).
 */
export interface ChatTarget {
  model: string;
  outputLimitField: 'max_tokens' | 'max_completion_tokens';
}

/** The request body of a chat completion (stream or not). */
export function chatPayload(target: ChatTarget, request: ChatRequest, stream: boolean): Record<string, unknown> {
  if (!Number.isInteger(request.maxOutputTokens) || request.maxOutputTokens < 1) throw new RangeError('maxOutputTokens must be a positive integer');
  if (request.messages.length === 0) throw new RangeError('a chat request needs at least one message');
  return {
    model: target.model,
    messages: request.messages.map(({ role, content }) => ({ role, content })),
    [target.outputLimitField]: request.maxOutputTokens,
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.json === true ? { response_format: { type: 'json_object' } } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

/** The API's usage as ours, or undefined when it is missing or malformed. */
export function usageOf(raw: unknown): TokenUsage | undefined {
  const parsed = UsageWire.safeParse(raw);
  return parsed.success ? { inputTokens: parsed.data.prompt_tokens, outputTokens: parsed.data.completion_tokens } : undefined;
}

/** One chat completion as JSON, retried only while certainly not accepted. */
export async function chat(connection: Connection, target: ChatTarget, request: ChatRequest, timeoutMs: number): Promise<ChatCompletion> {
  const payload = chatPayload(target, request, false);
  const scope = new CallScope(request.signal, timeoutMs);
  try {
    return await withRetries(scope, connection.limits, async () => {
      const { response } = await connection.open(scope, '/chat/completions', payload, 'application/json');
      const providerRequestId = requestIdOf(response.headers['x-request-id']);
      if (encoded(response)) {
        response.destroy();
        throw invalidOutput('it came compressed although identity was asked for');
      }
      let body: Buffer;
      try {
        body = await readBounded(response, connection.limits.maxJsonBytes);
      } catch (error) {
        if (error instanceof BodyTooLarge) {
          response.destroy();
          throw invalidOutput(`it is longer than ${connection.limits.maxJsonBytes} bytes`);
        }
        throw duringAnswer(scope, undefined);
      }
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        throw invalidOutput('it is not JSON');
      }
      const usage = usageOf((json as { usage?: unknown } | null)?.usage);
      if (usage === undefined) throw invalidOutput('it reports no token usage');
      const completion = CompletionWire.safeParse(json);
      if (!completion.success) throw invalidOutput('it is not a chat completion', usage);
      const choice = completion.data.choices[0]!;
      return {
        text: choice.message.content ?? '',
        usage,
        model: completion.data.model,
        finishReason: choice.finish_reason ?? 'unknown',
        ...(providerRequestId === undefined ? {} : { providerRequestId }),
      };
    });
  } finally {
    scope.close();
  }
}

/** The provider's request id header, bounded. */
export function requestIdOf(raw: string | string[] | undefined): string | undefined {
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value === '' ? undefined : value.slice(0, 128);
}
