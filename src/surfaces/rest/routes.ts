import { z } from 'zod';
import type { AnyOperation, RestBinding } from '../operations/operation.ts';
import { OPERATIONS } from '../operations/table.ts';

/** How a query-string value is turned into the type the operation's schema expects; `list` repeats the name. */
export type QueryKind = 'string' | 'integer' | 'boolean' | 'list';

/**
 * One route of the Developer REST API, derived from an operation and one of its REST bindings: where each input
 * field comes from is computed from the operation's input schema (see RestBinding for the rules), never listed.
 */
export interface RestRoute {
  operation: AnyOperation;
  binding: RestBinding;
  /** The OpenAPI operationId: the binding's, or the operation id. */
  operationId: string;
  /** Input fields read from the query string, with their kinds. */
  query: Readonly<Record<string, QueryKind>>;
  /** Input fields read from the JSON body (POST and PATCH only). */
  body: readonly string[];
  /** Input fields read from `{name}` segments of the path (other than a note path's two). */
  pathFields: readonly string[];
  /** `If-Match` is accepted in place of `expectedHash`. */
  ifMatch: boolean;
  /** `mappingId` may also come from the X-Service-Mapping header (and from the query of a POST). */
  mappingAnywhere: boolean;
}

/** The query kind of a field, from the JSON Schema its zod schema publishes (also used by the Product Runtime). */
export function queryKind(field: z.ZodType): QueryKind {
  const schema = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as { type?: string };
  if (schema.type === 'integer' || schema.type === 'number') return 'integer';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'array') return 'list';
  return 'string';
}

/** Derives the wire binding of one REST route of an operation. */
export function restRoute(operation: AnyOperation, binding: RestBinding): RestRoute {
  const shape = operation.input.shape as Record<string, z.ZodType>;
  // The note path of a two-segment route comes from the URL; a hash belongs in If-Match, never in a query string.
  const pathFields = [...binding.path.matchAll(/\{([^}]+)\}/g)]
    .map((m) => m[1]!)
    .filter((name) => !(binding.notePathFromSegments && (name === 'category' || name === 'filename')));
  for (const name of pathFields) {
    if (!(name in shape)) throw new Error(`${operation.id}: the path names {${name}}, which the operation's input does not have`);
  }
  const fields = Object.keys(shape).filter((field) => !(binding.notePathFromSegments && field === 'path') && !pathFields.includes(field));
  const fromBody = binding.method === 'POST' || binding.method === 'PATCH';
  return {
    operation,
    binding,
    operationId: binding.operationId ?? operation.id,
    query: fromBody
      ? {}
      : Object.fromEntries(fields.filter((field) => field !== 'expectedHash').map((field) => [field, queryKind(shape[field]!)])),
    body: fromBody ? fields : [],
    pathFields,
    ifMatch: 'expectedHash' in shape,
    mappingAnywhere: 'mappingId' in shape,
  };
}

/** Every REST binding of an operation table, as routes. */
export function restRoutesOf(operations: readonly AnyOperation[]): RestRoute[] {
  return operations.flatMap((operation) => (operation.rest ?? []).map((binding) => restRoute(operation, binding)));
}

/** The Developer REST API, as served and as published in /api/dev/openapi.json: every REST binding of the operation table. */
export const DEVELOPER_ROUTES: readonly RestRoute[] = restRoutesOf(OPERATIONS);

/** Hono's form of an OpenAPI path template: `{name}` becomes `:name`. */
export function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
