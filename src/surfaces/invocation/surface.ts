import type { CredentialKind } from '../../kernel/principal.ts';
import type { Entitlements } from '../../domains/accounts/index.ts';
import type { Surface as UsageCounter } from '../../domains/usage/index.ts';
import type { NoteChangeCapability } from '../../domains/vaults/index.ts';

/**
 * What the invocation pipeline needs to know about the surface a call came through. Surfaces differ in which
 * credentials they accept, which plan entitlement and allowance they draw on, under which capability their callers
 * change notes, and how they name things in messages; every other rule is the same for all of them.
 */
export interface SurfaceProfile {
  /** How the operator's metrics name it: rest, mcp, account. */
  name: string;
  /** Credential kinds a bearer token may be on this surface (spec 5 rule 1: OAuth tokens only at the MCP resource). */
  credentials: readonly CredentialKind[];
  /** Why a credential of another kind is refused. */
  credentialRefusal: string;
  /**
   * Where OAuth access tokens are presented: at the main MCP resource (only its tokens), or at the product-only endpoint
   * (`narrow`: its own tokens and the main resource's). Absent: `main`.
   */
  oauthResource?: 'main' | 'narrow';
  /** The plan entitlement the surface needs, checked on every request (spec 5 rule 2), and the refusal's message. */
  entitlement?: { key: keyof Pick<Entitlements, 'developerApi' | 'hostedMcp'>; refusal: string };
  /** The allowance counter its operations reserve units of (spec 8 rule 2); none for account self-service. */
  counter?: UsageCounter;
  /** Its operations reserve one of the product organization's monthly operations (spec 8 rule 3; the Product Runtime). */
  runtimeMeter?: true;
  /** The capability under which its callers change notes (vaults policy). */
  noteChanges: NoteChangeCapability;
  /** Words of its messages: what a call is, what its input is and its root, where the idempotency key goes. */
  words: { call: string; input: string; root: string; keyField: string; missingKey: string };
}

/** The Developer REST API (spec 4.6): personal access tokens on the Developer & Agent or Team plan. */
export const REST_SURFACE: SurfaceProfile = {
  name: 'rest',
  credentials: ['personal_access_token'],
  credentialRefusal: 'OAuth access tokens are valid only at the MCP gateway (/api/mcp); use a personal access token here.',
  entitlement: { key: 'developerApi', refusal: 'The Developer REST API needs the Developer & Agent or the Team plan.' },
  counter: 'rest',
  noteChanges: 'direct',
  words: { call: 'operation', input: 'input', root: '(body)', keyField: 'Idempotency-Key', missingKey: 'Applying a change needs an Idempotency-Key header.' },
};

/**
 * The hosted MCP gateway (spec 4.1): personal access tokens and OAuth access tokens for this resource, and the
 * person's session through kgate's WebMCP adapter (the session bridge, spec 4.5; webmcp/bridge.ts).
 */
export const MCP_SURFACE: SurfaceProfile = {
  name: 'mcp',
  credentials: ['personal_access_token', 'oauth', 'session'],
  credentialRefusal: 'This credential is not accepted at the MCP gateway.',
  entitlement: { key: 'hostedMcp', refusal: 'Your plan does not include the hosted MCP gateway.' },
  counter: 'mcp',
  noteChanges: 'agent',
  words: { call: 'tool', input: 'arguments', root: '(arguments)', keyField: 'idempotencyKey', missingKey: 'Applying a change needs an idempotencyKey.' },
};

/**
 * The product-only MCP endpoint (spec 4.4: `POST /api/intelligence/mcp`): the authentication, transport and accounting
 * of the MCP gateway, serving only the six published-intelligence tools. OAuth access tokens issued for it are good
 * only here; tokens for the main MCP resource are good here too, since this endpoint serves a part of it.
 */
export const INTELLIGENCE_MCP_SURFACE: SurfaceProfile = {
  ...MCP_SURFACE,
  name: 'intelligence-mcp',
  oauthResource: 'narrow',
  credentialRefusal: 'This credential is not accepted at the product-only MCP endpoint.',
};

/**
 * The Product Runtime (spec 4.7, docs/runtime.md): service principals' access tokens only, metered per product
 * organization rather than per account plan. A product publishes directly, as a script does, under its grant: the
 * mapping's read-only and pull-only flags and its approval policy still apply.
 */
export const PRODUCT_SURFACE: SurfaceProfile = {
  name: 'product',
  credentials: ['service_principal'],
  credentialRefusal: 'The Product Runtime accepts only Product Runtime access tokens (the client credentials grant of a service principal).',
  runtimeMeter: true,
  noteChanges: 'direct',
  words: { call: 'operation', input: 'input', root: '(body)', keyField: 'Idempotency-Key', missingKey: 'Applying a change needs an Idempotency-Key header.' },
};

/** `GET /api/account`: any plan may check its own token; it runs no operation and counts nothing. */
export const ACCOUNT_SURFACE: SurfaceProfile = {
  name: 'account',
  credentials: ['personal_access_token'],
  credentialRefusal: REST_SURFACE.credentialRefusal,
  noteChanges: 'direct',
  words: REST_SURFACE.words,
};

/**
 * The workspace pages (docs/workspace.md): a person in their own signed-in browser session. Only the session is
 * accepted, every plan has it, and it counts no allowance: the allowances meter what clients do on a person's
 * behalf (spec 8), not the person reading their own notes. The person changes notes directly, as a script does:
 * the "Allow hosted MCP note changes" switch governs agents, not its owner, and the approval policy governs
 * credentials, not the person (capability `person`, docs/proposals.md).
 */
export const WORKSPACE_SURFACE: SurfaceProfile = {
  name: 'workspace',
  credentials: ['session'],
  credentialRefusal: 'The workspace needs a signed-in session.',
  noteChanges: 'person',
  words: {
    call: 'page',
    input: 'form',
    root: '(form)',
    keyField: 'idempotency key',
    missingKey: 'Applying a change needs the idempotency key of its preview.',
  },
};
