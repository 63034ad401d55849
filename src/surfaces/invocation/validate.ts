import type { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';
import { IdempotencyKeySchema } from '../../domains/idempotency/index.ts';
import type { AnyOperation } from '../operations/operation.ts';
import type { SurfaceProfile } from './surface.ts';

/** An idempotency key as a surface received it: a header or an argument, which a tool may require. */
export interface ReceivedKey {
  value: unknown;
  /** The surface's binding requires it (the MCP apply tools); otherwise it is needed only to apply. */
  required: boolean;
}

function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

/**
 * Validates raw input against the operation's input schema: strict (undocumented fields are refused), with defaults
 * applied. A failure is `invalid_request` with every issue, named as the surface names its input. Spec 7.3: the call
 * was admitted, so it has consumed its unit.
 */
export function validateInput(surface: SurfaceProfile, operation: AnyOperation, raw: unknown): Record<string, unknown> {
  const parsed = operation.input.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error);
  const listed = issues.map((i) => `${i.path || surface.words.root}: ${i.message}`).join('; ');
  throw new KgateError('invalid_request', `Invalid ${surface.words.input}: ${listed}`, {
    issues,
  });
}

/** Validates an idempotency key: absent, or 1 to 255 visible ASCII characters; present when the binding requires it. */
export function validateKey(surface: SurfaceProfile, key: ReceivedKey): string | undefined {
  const field = surface.words.keyField;
  if (key.value === undefined) {
    if (key.required) throw new KgateError('invalid_request', `Invalid ${surface.words.input}: ${field} is required.`, { field });
    return undefined;
  }
  const parsed = IdempotencyKeySchema.safeParse(key.value);
  if (!parsed.success) {
    throw new KgateError('invalid_request', `${field} must be 1 to 255 visible ASCII characters.`, { field, issues: issuesOf(parsed.error) });
  }
  return parsed.data;
}
