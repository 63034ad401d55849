import { describe, expect, it } from 'vitest';
import { ModelConfigError, parseModelConfig } from './config-model.ts';

const KEY = 'sk-very-secret-model-key';
const MODEL = {
  KGATE_MODEL_BASE_URL: 'https://api.openai.com/v1/',
  KGATE_MODEL_API_KEY: KEY,
  KGATE_MODEL_CHAT: 'gpt-4o-mini',
  KGATE_MODEL_IMAGE: 'gpt-image-1',
  KGATE_MODEL_PRICE_INPUT: '0.15',
  KGATE_MODEL_PRICE_OUTPUT: '0.6',
  KGATE_MODEL_PRICE_IMAGE: '42000',
};

function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a ModelConfigError');
}

describe('the model settings', () => {
  it('without a base URL there is no model', () => {
    expect(parseModelConfig({})).toBeUndefined();
  });

  it('takes the base URL, key, models and decimal prices, with bounded time defaults', () => {
    expect(parseModelConfig(MODEL)).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: KEY,
      chatModel: 'gpt-4o-mini',
      imageModel: 'gpt-image-1',
      prices: { inputMicrodollarsPerToken: 0.15, outputMicrodollarsPerToken: 0.6, imageMicrodollars: 42000 },
      timeoutMs: 120_000,
      connectTimeoutMs: 10_000,
      allowPrivateAddresses: false,
      outputLimitField: 'max_tokens',
    });
    // OpenAI's reasoning models take the output bound only as max_completion_tokens.
    expect(parseModelConfig({ ...MODEL, KGATE_MODEL_OUTPUT_LIMIT_FIELD: 'max_completion_tokens' })?.outputLimitField).toBe('max_completion_tokens');
    expect(() => parseModelConfig({ ...MODEL, KGATE_MODEL_OUTPUT_LIMIT_FIELD: 'max_output' })).toThrow(/KGATE_MODEL_OUTPUT_LIMIT_FIELD: must be max_tokens or max_completion_tokens/);
  });

  it('a local model: http, no key, no image model, private addresses allowed', () => {
    const local = parseModelConfig({
      KGATE_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
      KGATE_MODEL_CHAT: 'llama3.1:8b',
      KGATE_MODEL_PRICE_INPUT: '0',
      KGATE_MODEL_PRICE_OUTPUT: '0',
      KGATE_MODEL_ALLOW_PRIVATE: '1',
      KGATE_MODEL_TIMEOUT_MS: '30000',
    });
    expect(local).toMatchObject({ apiKey: undefined, imageModel: null, allowPrivateAddresses: true, timeoutMs: 30_000, prices: { imageMicrodollars: 0 } });
  });

  it('refuses plain http to a model unless private addresses are allowed', () => {
    expect(() => parseModelConfig({ ...MODEL, KGATE_MODEL_BASE_URL: 'http://models.example.com/v1' })).toThrow(/KGATE_MODEL_BASE_URL: must use https unless KGATE_MODEL_ALLOW_PRIVATE=1/);
  });

  it('names every missing or invalid variable, and never shows the key', () => {
    const missing = errorOf(() => parseModelConfig({ KGATE_MODEL_BASE_URL: 'https://m.example.com/v1', KGATE_MODEL_IMAGE: 'img-1' }));
    expect(missing).toBeInstanceOf(ModelConfigError);
    expect(missing.message.split('\n')).toEqual([
      'KGATE_MODEL_CHAT: is required with KGATE_MODEL_BASE_URL',
      'KGATE_MODEL_PRICE_INPUT: is required with KGATE_MODEL_BASE_URL (microdollars per input token)',
      'KGATE_MODEL_PRICE_OUTPUT: is required with KGATE_MODEL_BASE_URL (microdollars per output token)',
      'KGATE_MODEL_PRICE_IMAGE: is required with KGATE_MODEL_IMAGE (microdollars per image)',
    ]);
    const invalid = errorOf(() =>
      parseModelConfig({
        ...MODEL,
        KGATE_MODEL_BASE_URL: `https://user:${KEY}@api.example.com/v1`,
        KGATE_MODEL_API_KEY: `${KEY} with spaces`,
        KGATE_MODEL_PRICE_INPUT: '-1',
        KGATE_MODEL_PRICE_OUTPUT: '1e3',
        KGATE_MODEL_PRICE_IMAGE: '100000001',
        KGATE_MODEL_TIMEOUT_MS: '10',
      }),
    );
    expect(invalid.message).toMatch(/KGATE_MODEL_BASE_URL: must not contain credentials/);
    expect(invalid.message).toMatch(/KGATE_MODEL_API_KEY: must be printable ASCII/);
    expect(invalid.message).toMatch(/KGATE_MODEL_PRICE_INPUT: must be a non-negative decimal/);
    expect(invalid.message).toMatch(/KGATE_MODEL_PRICE_OUTPUT: must be a non-negative decimal/);
    expect(invalid.message).toMatch(/KGATE_MODEL_PRICE_IMAGE: must be at most 100000000/);
    expect(invalid.message).toMatch(/KGATE_MODEL_TIMEOUT_MS: /);
    expect(invalid.message).toMatch(/KGATE_MODEL_PRICE_INPUT: .*\(got "-1"\)/);
    // Neither the key nor a URL that carries one is shown.
    expect(invalid.message).not.toContain(KEY);
    expect(() => parseModelConfig({ ...MODEL, KGATE_MODEL_BASE_URL: 'ftp://m.example.com' })).toThrow(/must be an http:\/\/ or https:\/\/ URL/);
    expect(() => parseModelConfig({ ...MODEL, KGATE_MODEL_BASE_URL: 'https://m.example.com/v1?key=1' })).toThrow(/must not have a query/);
    expect(() => parseModelConfig({ ...MODEL, KGATE_MODEL_CONNECT_TIMEOUT_MS: '60000', KGATE_MODEL_TIMEOUT_MS: '5000' })).toThrow(/KGATE_MODEL_CONNECT_TIMEOUT_MS: must not exceed/);
  });

  it('refuses model settings without a base URL instead of silently running without a model', () => {
    expect(() => parseModelConfig({ KGATE_MODEL_API_KEY: KEY, KGATE_MODEL_CHAT: 'x' })).toThrow('KGATE_MODEL_BASE_URL: is required when KGATE_MODEL_API_KEY, KGATE_MODEL_CHAT are set');
  });
});
