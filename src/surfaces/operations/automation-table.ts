import type { RestApiIdentity } from '../rest/openapi.ts';
import { AUTOMATION_CATALOG_OPERATIONS } from './automation-catalog-operations.ts';
import { AUTOMATION_EVENT_OPERATIONS, AUTOMATION_PROCESS_OPERATIONS } from './automation-event-operations.ts';
import { AUTOMATION_PROPOSAL_OPERATIONS } from './automation-proposal-operations.ts';
import { AUTOMATION_RUN_OPERATIONS, AUTOMATION_TRIGGER_OPERATIONS } from './automation-trigger-operations.ts';
import { AUTOMATION_EXECUTION_OPERATIONS, WEBHOOK_ENDPOINT_OPERATIONS } from './automation-webhook-operations.ts';
import type { AnyOperation } from './operation.ts';

/**
 * The automation gateway's operation table (docs/automation.md), in route order: its REST routes under
 * /api/dev/automation and its OpenAPI document are derived from it, as the Developer REST API's are from OPERATIONS.
 * None is an MCP tool, and none is in OPERATIONS.
 */
export const AUTOMATION_OPERATIONS: readonly AnyOperation[] = [
  ...AUTOMATION_CATALOG_OPERATIONS,
  ...AUTOMATION_EVENT_OPERATIONS,
  ...AUTOMATION_PROPOSAL_OPERATIONS,
  ...AUTOMATION_TRIGGER_OPERATIONS,
  ...AUTOMATION_RUN_OPERATIONS,
  ...WEBHOOK_ENDPOINT_OPERATIONS,
  ...AUTOMATION_EXECUTION_OPERATIONS,
  ...AUTOMATION_PROCESS_OPERATIONS,
];

/** The automation gateway's identity in its OpenAPI document. */
export const AUTOMATION_API_IDENTITY: RestApiIdentity = {
  title: 'kgate Automation Gateway',
  description:
    'Events in, triggers, runs, signed webhooks out, and governed proposals for workflow tools (n8n, Zapier, Make, ' +
    'Power Automate) and ingestion bridges. Personal access tokens and the signed-in session only; every call but ' +
    'proposals needs automation management (owner, admin) in the workspace. Errors are RFC 9457 problem documents with a stable code.',
  basePath: '/api/dev/automation',
};
