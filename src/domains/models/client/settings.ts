import type { lookup } from 'node:dns';
import type { PriceTable } from '../contract.ts';

/** The bounds of a model client; each has a default (MODEL_CLIENT_LIMITS). */
export interface ModelClientLimits {
  /** Largest chat completion answer (JSON). */
  maxJsonBytes: number;
  /** Largest image generation answer (base64 JSON). */
  maxImageBytes: number;
  /** Longest line or event of a stream. */
  maxStreamLineBytes: number;
  /** Most bytes of one stream. */
  maxStreamBytes: number;
  /** Most bytes of an error answer read for its message. */
  maxErrorBytes: number;
  /** Attempts after the first, for requests certainly not accepted. */
  maxRetries: number;
  backoffBaseMs: number;
  /** The longest Retry-After honoured. */
  retryAfterMaxMs: number;
}

/** The defaults: 4 MiB of chat JSON, 16 MiB of image JSON, 256 KiB a stream line, 16 MiB a stream, 2 retries. */
export const MODEL_CLIENT_LIMITS: ModelClientLimits = {
  maxJsonBytes: 4 * 1024 * 1024,
  maxImageBytes: 16 * 1024 * 1024,
  maxStreamLineBytes: 256 * 1024,
  maxStreamBytes: 16 * 1024 * 1024,
  maxErrorBytes: 16 * 1024,
  maxRetries: 2,
  backoffBaseMs: 250,
  retryAfterMaxMs: 10_000,
};

/**
 * What a client is built from: the model settings (src/config-model.ts's ModelConfig has this shape) and the address
 * rule of src/net/guarded-fetch.ts, handed in by the composition root.
 */
export interface ModelClientSettings {
  /** The API's base URL, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string | undefined;
  chatModel: string;
  imageModel: string | null;
  prices: PriceTable;
  /** The whole call, all attempts included. */
  timeoutMs: number;
  /** Connecting and sending one request. */
  connectTimeoutMs: number;
  allowPrivateAddresses: boolean;
  /** Where a chat request's output bound goes (KGATE_MODEL_OUTPUT_LIMIT_FIELD); default `max_tokens`. */
  outputLimitField?: 'max_tokens' | 'max_completion_tokens';
  /** True for an ordinary public address: isPublicAddress from src/net/guarded-fetch.ts. */
  isPublicAddress: (address: string) => boolean;
  /** The resolver; dns.lookup by default (tests answer a private address with it). */
  lookup?: typeof lookup;
  limits?: Partial<ModelClientLimits>;
}
