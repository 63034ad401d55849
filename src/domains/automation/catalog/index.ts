import { z } from 'zod';
import { KgateError } from '../../../kernel/errors.ts';
import { AUTOMATION_CONTRACT, AUTOMATION_CONTRACT_VERSION, EMITTED_EVENT_TYPES, EventInputSchema } from '../contract.ts';
import { BRIDGE_IDS, findBridgeAdapter, type BridgeAdapter } from './adapters.ts';
import { TEMPLATES, type AutomationTemplate, type TemplateTrigger } from './templates.ts';

export type { BridgeAdapter } from './adapters.ts';
export type { AutomationTemplate, TemplateTrigger, TemplateVersion } from './templates.ts';

/** The format name of a template download. */
export const TEMPLATE_FORMAT = 'kgate.automation.template/1';

/** One row of the CloudEvents 1.0 mapping: a CloudEvents attribute and the field of the normalized event it becomes. */
export interface CloudEventsMapping {
  attribute: string;
  field: string;
  note: string;
}

const CLOUD_EVENTS_MAPPING: readonly CloudEventsMapping[] = [
  { attribute: 'specversion', field: '(none)', note: 'must be "1.0"; it marks the body as CloudEvents' },
  {
    attribute: 'id',
    field: '(none)',
    note: 'not the idempotency key: the Idempotency-Key header is, and it is required; send the same key on every retry',
  },
  { attribute: 'source', field: 'source', note: 'who sent it' },
  { attribute: 'type', field: 'type', note: 'dotted lower-case words (form.submitted)' },
  { attribute: 'time', field: 'occurredAt', note: 'default: when it arrived' },
  { attribute: 'subject', field: 'subject', note: 'optional' },
  { attribute: 'data', field: 'data', note: 'a JSON object (datacontenttype application/json), at most 64 KiB' },
  { attribute: 'workspaceId (extension)', field: 'workspaceId', note: 'required, as in kgate’s own shape' },
];

/** A template as the catalog lists it: its id, title, versions and newest version. */
export interface TemplateSummary {
  id: string;
  title: string;
  versions: number[];
  latest: number;
  description: string;
}

/** A template download: configuration to copy, never execution authority, and never a credential. */
export interface TemplateDownload {
  format: typeof TEMPLATE_FORMAT;
  template: string;
  version: number;
  title: string;
  description: string;
  trigger: TemplateTrigger;
  notes: string;
}

/** What the automation gateway speaks, for bridges to discover (GET /catalog). */
export interface AutomationCatalog {
  contract: { name: string; version: number; servedVersions: number[] };
  eventInput: { jsonSchema: Record<string, unknown>; cloudEvents: CloudEventsMapping[]; idempotency: string };
  emittedEventTypes: string[];
  bridges: string[];
  templates: TemplateSummary[];
}

function summary(template: AutomationTemplate): TemplateSummary {
  const latest = template.versions[template.versions.length - 1]!;
  return { id: template.id, title: template.title, versions: template.versions.map((v) => v.version), latest: latest.version, description: latest.description };
}

/** The automation catalog: the contract, the event input and its CloudEvents mapping, emitted types, bridges, templates. */
export function automationCatalog(): AutomationCatalog {
  return {
    contract: { name: AUTOMATION_CONTRACT, version: AUTOMATION_CONTRACT_VERSION, servedVersions: [AUTOMATION_CONTRACT_VERSION] },
    eventInput: {
      jsonSchema: z.toJSONSchema(EventInputSchema),
      cloudEvents: CLOUD_EVENTS_MAPPING.map((row) => ({ ...row })),
      idempotency: 'POST /events needs an Idempotency-Key header; the same key with the same event answers the stored event (duplicate: true).',
    },
    emittedEventTypes: [...EMITTED_EVENT_TYPES],
    bridges: [...BRIDGE_IDS],
    templates: TEMPLATES.map(summary),
  };
}

/** A bridge's adapter; an unknown bridge is `not_found`. */
export function bridgeAdapter(id: string): BridgeAdapter {
  const adapter = findBridgeAdapter(id);
  if (!adapter) throw new KgateError('not_found', `No bridge named ${JSON.stringify(id)}; the catalog lists ${BRIDGE_IDS.join(', ')}.`);
  return adapter;
}

/** Every template, as the catalog lists them. */
export function listTemplates(): TemplateSummary[] {
  return TEMPLATES.map(summary);
}

function findTemplate(id: string): AutomationTemplate {
  const template = TEMPLATES.find((t) => t.id === id);
  if (!template) throw new KgateError('not_found', `No template named ${JSON.stringify(id)}.`);
  return template;
}

/** One template with every version's description; unknown: `not_found`. */
export function templateSummary(id: string): TemplateSummary {
  return summary(findTemplate(id));
}

/** A template's download, of `version` or its newest; an unknown template or version is `not_found`. */
export function templateDownload(id: string, version?: number): TemplateDownload {
  const template = findTemplate(id);
  const chosen = version === undefined ? template.versions[template.versions.length - 1] : template.versions.find((v) => v.version === version);
  if (!chosen) throw new KgateError('not_found', `Template ${id} has no version ${String(version)}.`);
  return {
    format: TEMPLATE_FORMAT,
    template: template.id,
    version: chosen.version,
    title: template.title,
    description: chosen.description,
    // A copy: a caller changing its download never changes the catalog.
    trigger: structuredClone(chosen.trigger),
    notes: 'configuration input, not execution authority: create the trigger with POST /triggers under your own role',
  };
}
