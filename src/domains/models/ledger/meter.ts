import type { ChatCompletion, ChatRequest, ChatStreamEvent, GeneratedImage, ImageRequest, ModelPort, ModelUsage } from '../contract.ts';
import { ModelError } from '../contract.ts';
import { KgateError } from '../../../kernel/errors.ts';

/**
 * What the metered port saw of one request's model calls: whether the provider may have accepted any of them (which
 * decides release against billable failure), the usage they reported, and whether some accepted call's usage never
 * came back (then the whole reservation is charged).
 */
export interface MeterRecord {
  /** A call completed, or failed after the provider may have accepted it (accepted `yes` or `unknown`). */
  accepted: boolean;
  usage: ModelUsage;
  usageUnknown: boolean;
}

/** What the metered port needs from the runner. */
export interface MeterHooks {
  /** Commits the row as dispatched before a request leaves; false when it may not be sent (the row expired). */
  dispatch(): Promise<boolean>;
  /** The call's signal (the client's connection): every model request is aborted with it. */
  signal: AbortSignal;
}

/**
 * Wraps the model port so that every call is recorded: the row is marked dispatched (a committed write) before the
 * request leaves, and the usage of each completion (the `done` event of a stream) is added up. Failures are
 * recorded as they pass: a ModelError's acceptance and reported usage; anything else the port throws counts as
 * accepted with unknown usage, since what reached the provider cannot be known.
 */
export function meteredPort(port: ModelPort, hooks: MeterHooks): { model: ModelPort; record: MeterRecord } {
  const record: MeterRecord = { accepted: false, usage: { inputTokens: 0, outputTokens: 0, images: 0 }, usageUnknown: false };

  const failed = (error: unknown): void => {
    if (error instanceof ModelError) {
      if (error.accepted === 'no') return;
      record.accepted = true;
      if (error.usage) add(error.usage.inputTokens, error.usage.outputTokens, 0);
      else record.usageUnknown = true;
      return;
    }
    // Another stable refusal of the port (e.g. `unavailable`: no image model) is decided before anything is sent.
    if (error instanceof KgateError) return;
    record.accepted = true;
    record.usageUnknown = true;
  };
  const add = (inputTokens: number, outputTokens: number, images: number): void => {
    record.usage.inputTokens += inputTokens;
    record.usage.outputTokens += outputTokens;
    record.usage.images += images;
  };
  const before = async (signal: AbortSignal | undefined): Promise<AbortSignal> => {
    if (hooks.signal.aborted || signal?.aborted) {
      throw new ModelError('model_interrupted', 'The request was cancelled before it was sent to the model.', 'no');
    }
    if (!(await hooks.dispatch())) {
      throw new ModelError('model_unavailable', 'The reservation of this request expired before the model was called.', 'no');
    }
    return signal ? AbortSignal.any([signal, hooks.signal]) : hooks.signal;
  };

  const model: ModelPort = {
    identity: port.identity,
    prices: port.prices,
    async chat(request: ChatRequest): Promise<ChatCompletion> {
      const signal = await before(request.signal);
      try {
        const completion = await port.chat({ ...request, signal });
        record.accepted = true;
        add(completion.usage.inputTokens, completion.usage.outputTokens, 0);
        return completion;
      } catch (error) {
        failed(error);
        throw error;
      }
    },
    chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
      return (async function* stream(): AsyncGenerator<ChatStreamEvent> {
        const signal = await before(request.signal);
        let ended = false;
        try {
          for await (const event of port.chatStream({ ...request, signal })) {
            if (event.kind === 'done') {
              ended = true;
              record.accepted = true;
              add(event.completion.usage.inputTokens, event.completion.usage.outputTokens, 0);
            }
            yield event;
          }
        } catch (error) {
          ended = true;
          failed(error);
          throw error;
        } finally {
          // Stopped by its consumer (or ended without a usage report) after the request was sent: accepted, usage unknown.
          if (!ended) failed(undefined);
        }
      })();
    },
    async image(request: ImageRequest): Promise<GeneratedImage> {
      const signal = await before(request.signal);
      try {
        const image = await port.image({ ...request, signal });
        record.accepted = true;
        add(0, 0, 1);
        return image;
      } catch (error) {
        // An answer that is not an image of the format asked for was still drawn: one image used, nothing unknown.
        if (error instanceof ModelError && error.code === 'model_output_invalid' && error.accepted === 'yes') {
          record.accepted = true;
          add(0, 0, 1);
        } else failed(error);
        throw error;
      }
    },
  };
  return { model, record };
}
