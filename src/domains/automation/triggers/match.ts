import type { AutomationEvent, TriggerCondition } from '../contract.ts';

/**
 * Whether an event filter takes a type (docs/automation.md, "Triggers"): `*` takes every type, `form.*` every type
 * under `form.` (not `form` itself), anything else exactly itself.
 */
export function filterTakes(filter: string, type: string): boolean {
  if (filter === '*') return true;
  if (filter.endsWith('.*')) return type.startsWith(filter.slice(0, -1));
  return filter === type;
}

/** The value at a dotted path of the normalized event (`data.form.id`, `source`); undefined when absent. */
export function valueAt(event: AutomationEvent, path: string): unknown {
  let current: unknown = event;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** True when every condition holds: the value at its field is exactly (===) the value it names. */
export function conditionsHold(event: AutomationEvent, conditions: readonly TriggerCondition[]): boolean {
  return conditions.every((c) => valueAt(event, c.field) === c.equals);
}
