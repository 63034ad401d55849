/**
 * The events of a streamed generation as the server writes them (src/surfaces/product/stream-routes.ts of kgate),
 * read into the SDK's GenerationStreamEvent. Anything else is not an event.
 */
import { isRuntimeEnvelope, type RuntimeEnvelope } from '../envelope.js';
import type { GenerationStreamEvent } from '../education-data.js';

/** The event of one NDJSON line, or undefined when the line is none of the three. */
export function streamEventOf<K extends string, D>(value: unknown): GenerationStreamEvent<K, D> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { type, ...rest } = value as Record<string, unknown>;
  if (type === 'ready') return { ...rest, type: 'ready' };
  if (type === 'delta') return typeof rest.text === 'string' ? { type: 'delta', text: rest.text } : undefined;
  if (type === 'done') return isRuntimeEnvelope(rest.envelope) ? { type: 'done', envelope: rest.envelope as RuntimeEnvelope<K, D> } : undefined;
  return undefined;
}
