import { KgateError } from '../../../kernel/errors.ts';
import type { ModelPort } from '../contract.ts';
import { chat, type ChatTarget } from './chat.ts';
import { createConnection } from './connection.ts';
import { generateImage } from './image.ts';
import type { ModelClientSettings } from './settings.ts';
import { streamChat } from './stream.ts';

/**
 * The model port over an OpenAI-compatible HTTP API (docs/models.md): chat completions as JSON or a stream, and image
 * generation, each call bounded in time and size, retried only while certainly not accepted, and failing with a
 * ModelError that says whether the provider accepted it. The key is sent as a Bearer header and nowhere else.
 */
export function createOpenAiCompatibleModel(settings: ModelClientSettings): ModelPort {
  const base = new URL(settings.baseUrl);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new RangeError('the model base URL must be http(s)');
  if (base.username !== '' || base.password !== '') throw new RangeError('the model base URL must not contain credentials');
  const connection = createConnection(settings);
  const { chatModel, imageModel, timeoutMs } = settings;
  const target: ChatTarget = { model: chatModel, outputLimitField: settings.outputLimitField ?? 'max_tokens' };
  return {
    identity: { provider: `openai-compatible (${base.host})`, chatModel, imageModel },
    prices: { ...settings.prices },
    chat: (request) => chat(connection, target, request, timeoutMs),
    chatStream: (request) => ({ [Symbol.asyncIterator]: () => streamChat(connection, target, request, timeoutMs) }),
    image: async (request) => {
      if (imageModel === null) throw new KgateError('unavailable', 'No image model is configured.');
      return generateImage(connection, imageModel, request, timeoutMs);
    },
  };
}
