import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import { roleAllows, type WorkspaceRole } from '../workspaces/index.ts';
import {
  DEFAULT_VIEW_LIMIT,
  DEFAULT_VIEW_STATUSES,
  MAX_DEFINITION_BYTES,
  MAX_VIEW_NAME_LENGTH,
  REVIEW_STATES,
  ViewDefinitionSchema,
  type FindingState,
  type ReviewState,
  type ViewDefinition,
} from './contract.ts';

/** Sorted, without repeats. */
const uniqueSorted = <T extends string>(values: readonly T[]): T[] => [...new Set(values)].sort();

/**
 * A definition as stored, from whatever a caller sent: checked against the schema here too (the domain is the last
 * word on what is stored; a page or script may skip the surface's schema), bounded in size, lists deduplicated and
 * sorted, defaults written out, so that two definitions that mean the same are equal. `invalid_request` otherwise.
 */
export function normalizeDefinition(input: unknown): ViewDefinition {
  if (JSON.stringify(input ?? null).length > MAX_DEFINITION_BYTES) {
    throw new KgateError('invalid_request', `A view's definition has at most ${MAX_DEFINITION_BYTES} characters as JSON.`);
  }
  const parsed = ViewDefinitionSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new KgateError('invalid_request', `The view's definition is not valid: ${where}${issue?.message ?? 'malformed'}.`);
  }
  const d = parsed.data;
  if (d.dueAfter !== undefined && d.dueBefore !== undefined && d.dueAfter > d.dueBefore) {
    throw new KgateError('invalid_request', "The view's dueAfter is later than its dueBefore: it could match nothing.");
  }
  return {
    kinds: uniqueSorted(d.kinds),
    statuses: uniqueSorted(d.statuses ?? DEFAULT_VIEW_STATUSES),
    ...(d.text !== undefined ? { text: d.text } : {}),
    ...(d.owner !== undefined ? { owner: d.owner } : {}),
    ...(d.dueAfter !== undefined ? { dueAfter: d.dueAfter } : {}),
    ...(d.dueBefore !== undefined ? { dueBefore: d.dueBefore } : {}),
    ...(d.entityType !== undefined ? { entityType: d.entityType } : {}),
    ...(d.relationTypes !== undefined ? { relationTypes: uniqueSorted(d.relationTypes) } : {}),
    sort: d.sort ?? 'path',
    limit: d.limit ?? DEFAULT_VIEW_LIMIT,
  };
}

/** True when two stored definitions say the same (jsonb gives keys back in its own order, so keys are sorted here). */
export function sameDefinition(a: ViewDefinition, b: ViewDefinition): boolean {
  const canonical = (d: ViewDefinition) => JSON.stringify(Object.fromEntries(Object.entries(d).sort(([x], [y]) => (x < y ? -1 : 1))));
  return canonical(a) === canonical(b);
}

/** A view's name as stored: trimmed, 1 to MAX_VIEW_NAME_LENGTH characters, no control characters. */
export function normalizeViewName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (trimmed.length === 0 || trimmed.length > MAX_VIEW_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw new KgateError('invalid_request', `A view's name has 1 to ${MAX_VIEW_NAME_LENGTH} characters, without control characters.`);
  }
  return trimmed;
}

/**
 * Who manages a scope's views and watches: members whose role writes the vault (owners, admins, editors). A view is
 * a saved question, not a grant: it answers only what the scope already lets its reader see.
 */
export function assertMayManage(role: WorkspaceRole): void {
  if (!roleAllows(role, 'vault.write')) {
    throw new KgateError('forbidden', 'Your role in this workspace does not allow managing saved views and watches.', { permission: 'vault.write' });
  }
}

/**
 * A finding's review is a person's act (like confirming a decision, spec 4.3 rule 8): only a web session, never a
 * token or connected client whatever its scope, and only a role that writes the vault. The target is one of
 * acknowledged, dismissed, resolved, and not the state it is in.
 */
export function assertMayReview(actor: Actor, role: WorkspaceRole, target: unknown): ReviewState {
  if (actor.credentialKind !== 'session') {
    throw new KgateError('forbidden', "Only a signed-in person changes a finding's review state, on the workspace page; an agent never can.");
  }
  if (!roleAllows(role, 'vault.write')) {
    throw new KgateError('forbidden', 'Your role in this workspace does not allow reviewing findings.', { permission: 'vault.write' });
  }
  if (typeof target !== 'string' || !(REVIEW_STATES as readonly string[]).includes(target)) {
    throw new KgateError('invalid_request', 'Choose Acknowledge, Dismiss or Resolve.');
  }
  return target as ReviewState;
}

/** Refuses a review of a finding that is no longer in the state the person saw (someone else moved it). */
export function assertStillIn(current: FindingState, seen: unknown, target: ReviewState): void {
  if (seen !== current) throw new KgateError('conflict', `This finding is ${current} now, not ${String(seen)}: someone reviewed it meanwhile.`, { state: current });
  if (current === target) throw new KgateError('conflict', `This finding is already ${current}.`, { state: current });
}
