import { z } from 'zod';

/**
 * The model behind the education generation endpoints (docs/models.md): an OpenAI-compatible server, its key, the
 * chat and image model names, the price table receipts and budgets are computed with, and the time bounds of a
 * call. Without KGATE_MODEL_BASE_URL there is no model and the model-backed endpoints answer `unavailable`.
 */
export interface ModelConfig {
  /** The API's base URL without a trailing slash, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** The Bearer key; undefined for a local server that takes none. Never shown or logged. */
  apiKey: string | undefined;
  chatModel: string;
  /** The image model; null when none is configured (generate-image answers `unavailable`). */
  imageModel: string | null;
  /** Microdollars per input token, per output token, per image (fractions allowed): the contract's PriceTable. */
  prices: { inputMicrodollarsPerToken: number; outputMicrodollarsPerToken: number; imageMicrodollars: number };
  /** The most a call may take, from the first connection attempt to the last byte. */
  timeoutMs: number;
  /** The most connecting and sending the request may take; until then a failure is certainly not accepted. */
  connectTimeoutMs: number;
  /** Whether the base URL may resolve to a loopback or private address (a local model, the fake); plain http needs it. */
  allowPrivateAddresses: boolean;
  /** The request field of the output bound: `max_tokens`, or `max_completion_tokens` for OpenAI's reasoning models. */
  outputLimitField: 'max_tokens' | 'max_completion_tokens';
}

// A decimal price: digits with an optional fraction, no exponent or sign (a typo must not pass as 1e9).
const price = (most: number) =>
  z
    .string()
    .regex(/^\d{1,12}(\.\d{1,12})?$/, 'must be a non-negative decimal number of microdollars, such as 0.15 or 2.5')
    .transform(Number)
    .refine((value) => value <= most, `must be at most ${most}`)
    .optional();

const modelName = z
  .string()
  .regex(/^[\w.:/@-]{1,128}$/, 'must be a model name (letters, digits and . _ - : / @, at most 128)')
  .optional();

const flag = z.enum(['1', 'true', '0', 'false']).optional();

const ModelEnvSchema = z.object({
  KGATE_MODEL_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .max(2048)
    .refine((raw) => {
      const url = new URL(raw);
      return url.username === '' && url.password === '';
    }, 'must not contain credentials (the key goes in KGATE_MODEL_API_KEY)')
    .refine((raw) => {
      const url = new URL(raw);
      return url.search === '' && url.hash === '';
    }, 'must not have a query or fragment')
    .optional(),
  KGATE_MODEL_API_KEY: z.string().regex(/^[\x21-\x7e]{1,512}$/, 'must be printable ASCII without spaces, at most 512 characters').optional(),
  KGATE_MODEL_CHAT: modelName,
  KGATE_MODEL_IMAGE: modelName,
  // One dollar a token and a hundred dollars an image are far above any real price: anything higher is a typo.
  KGATE_MODEL_PRICE_INPUT: price(1_000_000),
  KGATE_MODEL_PRICE_OUTPUT: price(1_000_000),
  KGATE_MODEL_PRICE_IMAGE: price(100_000_000),
  KGATE_MODEL_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(900_000).default(120_000),
  KGATE_MODEL_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  KGATE_MODEL_ALLOW_PRIVATE: flag,
  KGATE_MODEL_OUTPUT_LIMIT_FIELD: z.enum(['max_tokens', 'max_completion_tokens'], { error: 'must be max_tokens or max_completion_tokens' }).default('max_tokens'),
});

const SECRET = new Set(['KGATE_MODEL_API_KEY']);

/** An invalid model setting; its message names every variable at fault, one a line, and never the key. */
export class ModelConfigError extends Error {
  override readonly name = 'ModelConfigError';
}

/** The model settings of an environment (empty strings already dropped), or undefined when no model is configured. */
export function parseModelConfig(env: Readonly<Record<string, string | undefined>>): ModelConfig | undefined {
  const parsed = ModelEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ModelConfigError(
      parsed.error.issues
        .map((issue) => {
          const variable = String(issue.path[0]);
          const raw = env[variable];
          // A URL with credentials in it may carry a key: it is not shown either.
          const hidden = raw === undefined || SECRET.has(variable) || raw.includes('@');
          return `${variable}: ${issue.message}${hidden ? '' : ` (got ${JSON.stringify(raw)})`}`;
        })
        .join('\n'),
    );
  }
  const e = parsed.data;
  if (e.KGATE_MODEL_BASE_URL === undefined) {
    const stray = Object.keys(env).filter((name) => name.startsWith('KGATE_MODEL_') && env[name] !== undefined);
    if (stray.length > 0) throw new ModelConfigError(`KGATE_MODEL_BASE_URL: is required when ${stray.join(', ')} ${stray.length === 1 ? 'is' : 'are'} set`);
    return undefined;
  }
  const allowPrivate = e.KGATE_MODEL_ALLOW_PRIVATE === '1' || e.KGATE_MODEL_ALLOW_PRIVATE === 'true';
  const problems: string[] = [];
  // Plain http would carry the key in the clear over the internet; a local model on a private address may use it.
  if (new URL(e.KGATE_MODEL_BASE_URL).protocol === 'http:' && !allowPrivate) {
    problems.push('KGATE_MODEL_BASE_URL: must use https unless KGATE_MODEL_ALLOW_PRIVATE=1 (a model on a private or loopback address)');
  }
  if (e.KGATE_MODEL_CHAT === undefined) problems.push('KGATE_MODEL_CHAT: is required with KGATE_MODEL_BASE_URL');
  if (e.KGATE_MODEL_PRICE_INPUT === undefined) problems.push('KGATE_MODEL_PRICE_INPUT: is required with KGATE_MODEL_BASE_URL (microdollars per input token)');
  if (e.KGATE_MODEL_PRICE_OUTPUT === undefined) problems.push('KGATE_MODEL_PRICE_OUTPUT: is required with KGATE_MODEL_BASE_URL (microdollars per output token)');
  if (e.KGATE_MODEL_IMAGE !== undefined && e.KGATE_MODEL_PRICE_IMAGE === undefined) {
    problems.push('KGATE_MODEL_PRICE_IMAGE: is required with KGATE_MODEL_IMAGE (microdollars per image)');
  }
  if (e.KGATE_MODEL_CONNECT_TIMEOUT_MS > e.KGATE_MODEL_TIMEOUT_MS) problems.push('KGATE_MODEL_CONNECT_TIMEOUT_MS: must not exceed KGATE_MODEL_TIMEOUT_MS');
  if (problems.length > 0) throw new ModelConfigError(problems.join('\n'));
  return {
    baseUrl: e.KGATE_MODEL_BASE_URL.replace(/\/+$/, ''),
    apiKey: e.KGATE_MODEL_API_KEY,
    chatModel: e.KGATE_MODEL_CHAT!,
    imageModel: e.KGATE_MODEL_IMAGE ?? null,
    prices: {
      inputMicrodollarsPerToken: e.KGATE_MODEL_PRICE_INPUT!,
      outputMicrodollarsPerToken: e.KGATE_MODEL_PRICE_OUTPUT!,
      imageMicrodollars: e.KGATE_MODEL_PRICE_IMAGE ?? 0,
    },
    timeoutMs: e.KGATE_MODEL_TIMEOUT_MS,
    connectTimeoutMs: e.KGATE_MODEL_CONNECT_TIMEOUT_MS,
    allowPrivateAddresses: allowPrivate,
    outputLimitField: e.KGATE_MODEL_OUTPUT_LIMIT_FIELD,
  };
}
