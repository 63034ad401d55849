/** How each automation bridge talks to kgate (docs/automation.md, "Bridges"): data, not code that runs here. */

/** One bridge adapter as the catalog describes it. */
export interface BridgeAdapter {
  id: string;
  title: string;
  /** A general workflow tool the customer runs, or an ingestion bridge that only turns outside notifications into events. */
  kind: 'workflow-tool' | 'ingestion-bridge';
  description: string;
  authentication: string;
  /** Routes of the automation gateway it calls, relative to /api/dev/automation. */
  routes: string[];
  /** How it derives the Idempotency-Key of each POST /events (a retry of one thing sends the same key). */
  idempotencyKey: string;
  /** How it verifies kgate's outbound webhooks. */
  webhooks: string;
  /** What it is never given. */
  neverReceives: string[];
  /** Anything else a builder of the bridge must know. */
  notes: string[];
}

const AUTHENTICATION = 'personal access token in Authorization: Bearer; OAuth tokens are refused';

const WEBHOOKS =
  'Standard Webhooks: verify webhook-signature (v1,<base64 HMAC-SHA256>) over "<webhook-id>.<webhook-timestamp>.<body>" ' +
  'with the endpoint secret (whsec_...), refuse a webhook-timestamp older than 5 minutes, and deduplicate on webhook-id ' +
  '(the same on every attempt). During a secret rotation two signatures are sent; either may match.';

const NEVER_RECEIVES = [
  'kgate provider credentials (Google Drive, Dropbox, GitHub connections)',
  'kgate server secrets (sealing keys, signing keys, database credentials)',
  'other accounts’ tokens or sessions',
  'approval authority: a proposal is approved by a person on the workspace page',
];

const WORKFLOW_ROUTES = ['POST /events', 'POST /proposals', 'GET /proposals', 'GET /runs', 'GET /catalog', 'GET /templates/{id}/download'];

const WORKFLOW_KEY = 'the workflow’s own execution or record id for this event (stable across its retries), or sha256 of the event’s source, type and subject when it has none';

function workflowTool(id: string, title: string, description: string, notes: string[] = []): BridgeAdapter {
  return {
    id,
    title,
    kind: 'workflow-tool',
    description,
    authentication: AUTHENTICATION,
    routes: [...WORKFLOW_ROUTES],
    idempotencyKey: WORKFLOW_KEY,
    webhooks: WEBHOOKS,
    neverReceives: [...NEVER_RECEIVES],
    notes: ['Store the personal access token in the tool’s own credential store, never in a workflow’s visible fields.', ...notes],
  };
}

const ADAPTERS: readonly BridgeAdapter[] = [
  workflowTool('n8n', 'n8n', 'An n8n workflow sends events with the HTTP Request node and receives kgate webhooks with the Webhook node.', [
    'Use a Header Auth credential for the token; set the Idempotency-Key header from {{$execution.id}} plus the item index.',
  ]),
  workflowTool('zapier', 'Zapier', 'A Zap sends events with Webhooks by Zapier (Custom Request) and receives kgate webhooks with Catch Hook.', [
    'Catch Hook does not verify signatures: put a Code step that verifies webhook-signature before any action.',
  ]),
  workflowTool('make', 'Make', 'A Make scenario sends events with the HTTP module and receives kgate webhooks with a Custom webhook.'),
  workflowTool(
    'power-automate',
    'Power Automate',
    'A Power Automate flow sends events with the HTTP action and receives kgate webhooks with the "When an HTTP request is received" trigger.',
  ),
  {
    id: 'office-graph',
    title: 'Office suite graph change notifications',
    kind: 'ingestion-bridge',
    description:
      'An ingestion boundary only: a small service the customer runs subscribes to change notifications of the office ' +
      'suite’s graph service (mail, calendar, files) and turns each notification into POST /events. It reads no content ' +
      'through kgate and writes nothing in a vault; what happens next is the workspace’s triggers.',
    authentication: AUTHENTICATION,
    routes: ['POST /events'],
    idempotencyKey:
      'sha256 of subscription id, resource, change type and the notification’s own sequence, joined with a newline (one ' +
      'notification redelivered by the graph service gives the same key)',
    webhooks: 'none: an ingestion bridge receives no kgate webhooks. ' + WEBHOOKS,
    neverReceives: [
      ...NEVER_RECEIVES,
      'any kgate secret but the customer’s own personal access token',
    ],
    notes: [
      'It answers the graph service’s validation handshake itself (echoing the validation token); kgate never sees it.',
      'It checks each notification’s client state against its own subscription secret before forwarding it.',
      'Events it sends: type office.<resource kind>.<change type> (office.message.created), source office-graph, ' +
        'subject the resource path, data the notification’s fields without its client state.',
      'Its graph service credentials are the customer’s own, held by the bridge; kgate never holds or asks for them.',
    ],
  },
];

/** Ids of the bridges the catalog describes. */
export const BRIDGE_IDS: readonly string[] = ADAPTERS.map((a) => a.id);

/** The adapter of a bridge (a copy: a caller changing it never changes the catalog), or undefined. */
export function findBridgeAdapter(id: string): BridgeAdapter | undefined {
  const adapter = ADAPTERS.find((a) => a.id === id);
  return adapter && structuredClone(adapter);
}
