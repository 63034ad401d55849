/**
 * The education context packet as operations take it: one zod schema that checks the structure and the rules, so
 * that every endpoint embedding `context` validates it the same way, and parseEducationContext for code that
 * receives the packet as an unknown value.
 */
import type { z } from 'zod';
import type { ErrorCode } from '../../../kernel/error-codes.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { EducationContextShape, type EducationContext } from './contract.ts';
import { screenEducationContext } from './screen.ts';

/**
 * The packet: structure (refused as `invalid_request` with every issue) and then, once the structure is valid, the
 * rules. The rules throw their KgateError out of the parse instead of adding an issue: the invocation pipeline turns
 * every schema issue into `invalid_request`, and spec 7.10 gives these refusals their own codes
 * (`learner_specific_content`, `group_too_small`), which the pipeline keeps for a thrown KgateError.
 */
export const EducationContextSchema = EducationContextShape.refine(
  (packet) => {
    screenEducationContext(packet);
    return true;
  },
  { when: (payload) => payload.issues.length === 0 },
);

/**
 * The optional `context` field of an education operation's input: `context: EducationContextField`. Omitting it is
 * backward compatible (spec 9.5); `null` is not a packet and is refused.
 */
export const EducationContextField = EducationContextSchema.optional().describe(
  'Optional education context packet (partner.education-context, version 1): aggregate class-support categories, each of at least five learners',
);

/** The codes a packet can be refused with: list them in the `errors` of an operation that takes one. */
export const EDUCATION_CONTEXT_ERRORS = ['invalid_request', 'learner_specific_content', 'group_too_small'] as const satisfies readonly ErrorCode[];

function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

/**
 * The packet in `input`, checked: undefined when absent; otherwise a valid, aggregate packet, or a KgateError
 * (`invalid_request` with the issues, `learner_specific_content` or `group_too_small` with the fields).
 */
export function parseEducationContext(input: unknown): EducationContext | undefined {
  if (input === undefined) return undefined;
  const parsed = EducationContextSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error);
  const listed = issues.map((issue) => `${issue.path || 'context'}: ${issue.message}`).join('; ');
  throw new KgateError('invalid_request', `Invalid education context: ${listed}`, { issues });
}
