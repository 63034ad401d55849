import type { z } from 'zod';
import type { AnyOperation, ProductBinding } from '../operations/operation.ts';
import { queryKind, type QueryKind } from '../rest/routes.ts';

/** The path segments a vault route names, which the chain resolves instead of the input taking them. */
export const VAULT_PARAMS = ['workspaceId', 'vaultId'] as const;

/**
 * One route of the Product Runtime, derived from an operation and one of its product bindings: where each input field
 * comes from is computed from the operation's input schema, never listed (as for the Developer REST API).
 */
export interface ProductRoute {
  operation: AnyOperation;
  binding: ProductBinding;
  /** Input fields taken from `{name}` segments of the path. */
  pathFields: readonly string[];
  /** Input fields read from the query string (GET), with their kinds. */
  query: Readonly<Record<string, QueryKind>>;
  /** Input fields read from the JSON body (POST). */
  body: readonly string[];
}

/** The `{name}` segments of a path template. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/** Derives the wire binding of one product route. */
export function productRoute(operation: AnyOperation, binding: ProductBinding): ProductRoute {
  if (!operation.credentials.includes('service_principal')) {
    throw new Error(`${operation.id} has a Product Runtime route but does not accept service_principal credentials`);
  }
  const shape = operation.input.shape as Record<string, z.ZodType>;
  const params = pathParams(binding.path);
  if (binding.vault && !VAULT_PARAMS.every((p) => params.includes(p))) {
    throw new Error(`${operation.id}: a vault route names {workspaceId} and {vaultId}`);
  }
  const pathFields = params.filter((p) => p in shape && !(binding.vault && (VAULT_PARAMS as readonly string[]).includes(p)));
  // On a vault route the chain supplies mappingId: a caller never sends one.
  const fields = Object.keys(shape).filter((f) => !pathFields.includes(f) && !(binding.vault && f === 'mappingId'));
  const fromBody = binding.method === 'POST';
  // A route that carries bytes reads its input from headers and the raw body itself (media-routes.ts).
  if (binding.binary) return { operation, binding, pathFields, query: {}, body: [] };
  return {
    operation,
    binding,
    pathFields,
    query: fromBody ? {} : Object.fromEntries(fields.map((f) => [f, queryKind(shape[f]!)])),
    body: fromBody ? fields : [],
  };
}

/** Every product binding of an operation table, as routes. */
export function productRoutesOf(operations: readonly AnyOperation[]): ProductRoute[] {
  return operations.flatMap((operation) => (operation.product ?? []).map((binding) => productRoute(operation, binding)));
}

/**
 * What getCapabilities reports as served: the capabilities of the table's product routes, so that a capability is
 * available only when a route really serves it, and a model-backed one only when a model is configured.
 */
export function runtimeCatalogueOf(
  operations: readonly AnyOperation[],
  model: { chat: boolean; image: boolean },
): { built: ReadonlySet<string>; modelConfigured: boolean; imageModelConfigured: boolean } {
  return { built: new Set(operations.flatMap((o) => (o.product ?? []).map((b) => b.capability))), modelConfigured: model.chat, imageModelConfigured: model.image };
}
