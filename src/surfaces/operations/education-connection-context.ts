/**
 * What every operation of delegated connections shares: the installation and customer the chain resolved, and the
 * connections service (`OperationServices.educationConnections`); where a gateway is built without it, the operations
 * answer `unavailable`.
 */
import { KgateError } from '../../kernel/errors.ts';
import type { ConnectionOwner, EducationConnectionsService } from '../../domains/education/index.ts';
import { RUNTIME_CREDENTIALS, type OperationContext } from './operation.ts';

/** The path prefix of delegated connections on the Product Runtime. */
export const CONNECTIONS = '/api/product/v1/connections';

/** Shared fields of these operations: Product Runtime only, metered like every runtime call. */
export const CONNECTION_OPERATION = { credentials: RUNTIME_CREDENTIALS, scope: 'runtime', allowance: 'operation', tags: ['connections'] } as const;

/** The connections service, or `unavailable` when this server was not built with it. */
export function connectionsOf(ctx: OperationContext): EducationConnectionsService {
  const service = ctx.services.educationConnections;
  if (!service) throw new KgateError('unavailable', 'Delegated provider connections are not available on this server.');
  return service;
}

/** The installation (and its customer and product) the chain resolved: whose connections these are. */
export function ownerOf(ctx: OperationContext): ConnectionOwner {
  const principal = ctx.runtime?.principal;
  if (!principal) throw new KgateError('forbidden', 'This operation is served only by the Product Runtime.');
  return { installationId: principal.installationId, customerAccountId: principal.customerAccountId, productId: principal.product.id };
}
