import { z } from 'zod';

/**
 * What the OpenAI API promises in a successful answer, as far as kgate reads it: a chat completion, a stream chunk,
 * an image generation. Anything else in a 200 answer is invalid output (accepted, billable).
 */

/** The API's token usage. */
export const UsageWire = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});

/** A chat completion (non-streaming). */
export const CompletionWire = z.object({
  model: z.string().min(1).max(256),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional() }),
        finish_reason: z.string().max(64).nullable().optional(),
      }),
    )
    .min(1),
});

/** One `chat.completion.chunk` of a stream; the last one (with include_usage) has empty choices and the usage. */
export const ChunkWire = z.object({
  model: z.string().max(256).optional(),
  choices: z.array(
    z.object({
      delta: z.object({ content: z.string().nullable().optional() }).optional(),
      finish_reason: z.string().max(64).nullable().optional(),
    }),
  ),
  usage: UsageWire.nullable().optional(),
});

/** An image generation answered as base64. */
export const ImageWire = z.object({
  data: z.array(z.object({ b64_json: z.string().min(1) })).min(1),
});
