import type { AutomationEvent } from './contract.ts';
import { valueAt } from './triggers/match.ts';

/**
 * The templates of a trigger's propose action (docs/automation.md, "Templates in actions"): `{{event.type}}`,
 * `{{event.subject}}`, `{{event.data.name}}` are replaced by the event's values as text. Nothing else is evaluated:
 * no logic, no helpers, no escapes into code. A missing value is empty text; an object or array is its JSON.
 */
export function renderTemplate(template: string, event: AutomationEvent): string {
  return template.replace(/\{\{\s*event((?:\.[A-Za-z0-9_-]+)+)\s*\}\}/g, (_match, path: string) => {
    const value = valueAt(event, path.slice(1));
    if (value === undefined || value === null) return '';
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return JSON.stringify(value);
  });
}
