import { z } from 'zod';
import { automationCatalog, bridgeAdapter, listTemplates, templateDownload, templateSummary } from '../../domains/automation/catalog/index.ts';
import { TriggerActionSchema, TriggerWhenSchema } from '../../domains/automation/index.ts';
import { AUTOMATION_READ } from './automation-fields.ts';
import { defineOperation, type AnyOperation } from './operation.ts';

// The catalog, bridge adapters and templates (docs/automation.md): what a bridge builder reads to speak the
// automation contract. Nothing here is a credential or grants anything; a template is configuration to copy.

const TemplateOut = z.object({
  id: z.string(),
  title: z.string(),
  versions: z.array(z.number().int()),
  latest: z.number().int().describe('The version a download answers by default'),
  description: z.string().describe('What the newest version does'),
});

const AdapterOut = z.object({
  id: z.string(),
  title: z.string(),
  kind: z.enum(['workflow-tool', 'ingestion-bridge']),
  description: z.string(),
  authentication: z.string(),
  routes: z.array(z.string()).describe('Routes it calls, relative to /api/dev/automation'),
  idempotencyKey: z.string().describe('How it derives the Idempotency-Key of each POST /events'),
  webhooks: z.string().describe('How it verifies kgate’s webhooks'),
  neverReceives: z.array(z.string()),
  notes: z.array(z.string()),
});

const TemplateId = z.string().min(1).max(100).describe('A template id of the catalog');

/** GET /catalog. */
export const getAutomationCatalog = defineOperation({
  ...AUTOMATION_READ,
  id: 'getAutomationCatalog',
  summary: 'Describe the automation contract',
  description:
    'The automation contract (its name, version and the versions served), the event input as JSON Schema with its ' +
    'CloudEvents 1.0 mapping, the event types kgate emits to webhooks, the bridges described and the templates.',
  input: z.strictObject({}),
  output: z.object({
    contract: z.object({ name: z.string(), version: z.number().int(), servedVersions: z.array(z.number().int()) }),
    eventInput: z.object({
      jsonSchema: z.record(z.string(), z.unknown()),
      cloudEvents: z.array(z.object({ attribute: z.string(), field: z.string(), note: z.string() })),
      idempotency: z.string(),
    }),
    emittedEventTypes: z.array(z.string()),
    bridges: z.array(z.string()),
    templates: z.array(TemplateOut),
  }),
  errors: [],
  rest: [{ method: 'GET', path: '/catalog' }],
  run: () => Promise.resolve(automationCatalog()),
});

/** GET /adapters/{bridge}. */
export const getAutomationAdapter = defineOperation({
  ...AUTOMATION_READ,
  id: 'getAutomationAdapter',
  summary: 'Describe a bridge adapter',
  description:
    'How one bridge (n8n, zapier, make, power-automate, office-graph) talks to kgate: its authentication, the routes ' +
    'it calls, how it derives idempotency keys, how it verifies webhooks, and what it never receives.',
  input: z.strictObject({ bridge: z.string().min(1).max(100).describe('A bridge id of the catalog') }),
  output: z.object({ adapter: AdapterOut }),
  errors: ['not_found'],
  rest: [{ method: 'GET', path: '/adapters/{bridge}' }],
  run: (_ctx, input) => Promise.resolve({ adapter: bridgeAdapter(input.bridge) }),
});

/** GET /templates. */
export const listAutomationTemplates = defineOperation({
  ...AUTOMATION_READ,
  id: 'listAutomationTemplates',
  summary: 'List automation templates',
  description: 'The trigger templates of the catalog, each with its versions.',
  input: z.strictObject({}),
  output: z.object({ templates: z.array(TemplateOut) }),
  errors: [],
  rest: [{ method: 'GET', path: '/templates' }],
  run: () => Promise.resolve({ templates: listTemplates() }),
});

/** GET /templates/{id}. */
export const getAutomationTemplate = defineOperation({
  ...AUTOMATION_READ,
  id: 'getAutomationTemplate',
  summary: 'Describe an automation template',
  description: 'One template of the catalog, with its versions.',
  input: z.strictObject({ id: TemplateId }),
  output: z.object({ template: TemplateOut }),
  errors: ['not_found'],
  rest: [{ method: 'GET', path: '/templates/{id}' }],
  run: (_ctx, input) => Promise.resolve({ template: templateSummary(input.id) }),
});

/** GET /templates/{id}/download. */
export const downloadAutomationTemplate = defineOperation({
  ...AUTOMATION_READ,
  id: 'downloadAutomationTemplate',
  summary: 'Download an automation template',
  description:
    'A template version (default the newest) as a trigger to create with POST /triggers, once given a workspace and ' +
    'your own mapping. It is configuration input, not execution authority, and holds no credential.',
  input: z.strictObject({ id: TemplateId, version: z.number().int().min(1).optional().describe('Default: the newest') }),
  output: z.object({
    format: z.literal('kgate.automation.template/1'),
    template: z.string(),
    version: z.number().int(),
    title: z.string(),
    description: z.string(),
    trigger: z.object({ name: z.string(), enabled: z.boolean().optional(), when: TriggerWhenSchema, action: TriggerActionSchema }),
    notes: z.string(),
  }),
  errors: ['not_found'],
  rest: [{ method: 'GET', path: '/templates/{id}/download' }],
  run: (_ctx, input) => Promise.resolve(templateDownload(input.id, input.version)),
});

/** The catalog's operations, in route order. */
export const AUTOMATION_CATALOG_OPERATIONS: readonly AnyOperation[] = [
  getAutomationCatalog,
  getAutomationAdapter,
  listAutomationTemplates,
  getAutomationTemplate,
  downloadAutomationTemplate,
];
