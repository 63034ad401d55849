/**
 * The operations of delegated provider connections (spec 4.7, docs/education.md "Delegated provider connections"):
 * the OAuth lifecycle under connections.manage, and the Drive and Classroom round trips under connections.execute
 * (education-drive-operations.ts, education-classroom-operations.ts). Google's redirect back is not an operation: it is a browser
 * redirect answered by surfaces/product/connection-callback.ts.
 */
import { z } from 'zod';
import { ConnectionServiceSchema, ConnectionViewSchema, MAX_CLIENT_STATE_LENGTH, MAX_RETURN_TARGET_LENGTH } from '../../domains/education/index.ts';
import { CONNECTION_OPERATION, CONNECTIONS, connectionsOf, ownerOf } from './education-connection-context.ts';
import { EDUCATION_CLASSROOM_OPERATIONS } from './education-classroom-operations.ts';
import { EDUCATION_DRIVE_OPERATIONS } from './education-drive-operations.ts';
import { defineOperation, type AnyOperation } from './operation.ts';

const MANAGE = { ...CONNECTION_OPERATION, idempotency: 'none' } as const;
const ConnectionIdSchema = z.uuid().describe('A connection of your installation');

/** startGoogleConnection: the authorization URL to send the customer's browser to. */
const startGoogleConnection = defineOperation({
  ...MANAGE,
  id: 'startGoogleConnection',
  summary: 'Start a Google connection',
  description:
    "Starts connecting Google for the installation's customer: Drive (drive.file: only files the app creates or the " +
    'user picks) and/or Classroom (courses and rosters read only, coursework of the classes taught). Answers the URL ' +
    "to send the customer's browser to (authorization code with PKCE S256 and a single-use state, valid ten minutes). " +
    "Google redirects to kgate's callback, which stores the grant and sends the browser to `returnTo` with " +
    '`status` (connected, denied or error), `connectionId`, `services` and your `state`. `returnTo` must be a return ' +
    'origin (any path of it) or an exact redirect URI registered on the product definition.',
  input: z.strictObject({
    services: z.array(ConnectionServiceSchema).min(1).max(2).describe('What the connection is for'),
    returnTo: z.string().min(1).max(MAX_RETURN_TARGET_LENGTH).describe("Where the customer's browser returns"),
    state: z.string().min(1).max(MAX_CLIENT_STATE_LENGTH).optional().describe('Opaque; echoed back to returnTo as `state`'),
  }),
  output: z.object({
    authorizationUrl: z.string(),
    expiresAt: z.iso.datetime(),
    scopes: z.array(z.string()).describe('The Google scopes asked for'),
  }),
  errors: ['invalid_request', 'unavailable'],
  product: [
    {
      method: 'POST',
      path: `${CONNECTIONS}/google/authorizations`,
      operationId: 'startGoogleConnection',
      kind: 'service.connection-authorization',
      capability: 'connections.manage',
      needs: 'connections.manage',
    },
  ],
  async run(ctx, input) {
    const started = await connectionsOf(ctx).start(ownerOf(ctx), input);
    return { authorizationUrl: started.authorizationUrl, expiresAt: started.expiresAt.toISOString(), scopes: started.scopes };
  },
});

/** listConnections: the installation's connections. */
const listConnections = defineOperation({
  ...MANAGE,
  id: 'listConnections',
  summary: 'Connections',
  description: "The installation's provider connections (at most one per provider), active or revoked, with the services their granted scopes allow. Never a token.",
  input: z.strictObject({}),
  output: z.object({ connections: z.array(ConnectionViewSchema) }),
  errors: ['unavailable'],
  product: [{ method: 'GET', path: CONNECTIONS, operationId: 'listConnections', kind: 'service.connection-list', capability: 'connections.manage', needs: 'connections.manage' }],
  async run(ctx) {
    return { connections: await connectionsOf(ctx).list(ownerOf(ctx)) };
  },
});

/** getConnection: one connection's status. */
const getConnection = defineOperation({
  ...MANAGE,
  id: 'getConnection',
  summary: 'Connection status',
  description: "One connection of the installation: active or revoked, the scopes Google granted and the services they allow. Another installation's connection is not found.",
  input: z.strictObject({ connectionId: ConnectionIdSchema }),
  output: ConnectionViewSchema,
  errors: ['not_found', 'unavailable'],
  product: [
    { method: 'GET', path: `${CONNECTIONS}/{connectionId}`, operationId: 'getConnection', kind: 'service.connection', capability: 'connections.manage', needs: 'connections.manage' },
  ],
  async run(ctx, input) {
    return connectionsOf(ctx).get(ownerOf(ctx), input.connectionId);
  },
});

/** disconnectConnection: revoke the grant at Google and drop the tokens. */
const disconnectConnection = defineOperation({
  ...MANAGE,
  id: 'disconnectConnection',
  summary: 'Disconnect',
  description:
    'Revokes the grant at Google (bounded, best effort: the tokens are dropped whatever Google answers) and marks the ' +
    'connection revoked; its round trips then answer provider_disconnected. Disconnecting again changes nothing.',
  input: z.strictObject({ connectionId: ConnectionIdSchema }),
  output: ConnectionViewSchema,
  errors: ['not_found', 'unavailable'],
  product: [
    {
      method: 'POST',
      path: `${CONNECTIONS}/{connectionId}/disconnect`,
      operationId: 'disconnectConnection',
      kind: 'service.connection',
      capability: 'connections.manage',
      needs: 'connections.manage',
    },
  ],
  async run(ctx, input) {
    return connectionsOf(ctx).disconnect(ownerOf(ctx), input.connectionId);
  },
});

/** The operations of delegated connections, for the operation table: the lifecycle, Drive, Classroom. */
export const EDUCATION_CONNECTION_OPERATIONS: readonly AnyOperation[] = [
  startGoogleConnection,
  listConnections,
  getConnection,
  disconnectConnection,
  ...EDUCATION_DRIVE_OPERATIONS,
  ...EDUCATION_CLASSROOM_OPERATIONS,
];
