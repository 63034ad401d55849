import { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';
import type { AuthorizedScope } from '../../domains/scopes/index.ts';
import { MappingIdSchema } from './fields.ts';
import type { OperationContext } from './operation.ts';

/**
 * The context scope a scope-bound tool reads through (spec 2.5, 4.2 rule 2). Any string is accepted here, so that
 * a malformed id, a guessed one, another account's and one outside the caller's audience all get the same answer:
 * `not_found`.
 */
export const ContextScopeIdSchema = z
  .string()
  .min(1)
  .max(100)
  .describe('A context scope of this mapping that you may use (get_intelligence_capabilities lists them)');

/** The input fields every scope-bound tool shares. */
export const SCOPE_BOUND_FIELDS = { mappingId: MappingIdSchema, contextScopeId: ContextScopeIdSchema };

/**
 * The caller's scope, authorized now from server-held records (mapping, role, audience, credential kind). Knowledge
 * is compiled from note bodies, which the server never holds for a device-encrypted mapping: such a mapping has
 * none, and says so rather than answering empty.
 */
export async function authorizedScope(ctx: OperationContext, input: { mappingId: string; contextScopeId: string }): Promise<AuthorizedScope> {
  const authorized = await ctx.services.scopes.authorize(ctx.principal.actor, input.mappingId, input.contextScopeId);
  if (authorized.mapping.deviceEncrypted) {
    throw new KgateError('device_encrypted', 'Note bodies of this mapping are encrypted on the device; the server compiles no knowledge from them.');
  }
  return authorized;
}
