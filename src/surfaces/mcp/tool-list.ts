import { z } from 'zod';
import { IdempotencyKeySchema } from '../../domains/idempotency/index.ts';
import type { AnyOperation, McpBinding } from '../operations/operation.ts';
import { publishedJsonSchema } from '../operations/json-schema.ts';
import { OPERATIONS } from '../operations/table.ts';
import { PreserializedResult } from './json-rpc.ts';

/** An operation the MCP gateway publishes as a tool. */
export type ToolOperation = AnyOperation & { mcp: McpBinding };

/** The operations of a table that are published as MCP tools, in table order. */
export function toolOperationsOf(operations: readonly AnyOperation[]): ToolOperation[] {
  return operations.filter((operation): operation is ToolOperation => operation.mcp !== undefined);
}

/** The tools of the hosted MCP gateway: every operation of the table with an MCP binding. */
export const TOOL_OPERATIONS: readonly ToolOperation[] = toolOperationsOf(OPERATIONS);

const IdempotencyKeyArgument = IdempotencyKeySchema.describe('A new key per approved change; retrying with the same key replays the result');

/**
 * The arguments a tool takes: the operation's input, plus the idempotency key where the binding takes it as an
 * argument (REST takes it as a header instead). Only for publishing: calls are validated by the pipeline, from the
 * operation's input and the key, with the same schemas.
 */
export function toolArguments(operation: ToolOperation): z.ZodObject {
  const key = operation.mcp.idempotencyKey;
  if (!key) return operation.input;
  return operation.input.extend({ idempotencyKey: key === 'required' ? IdempotencyKeyArgument : IdempotencyKeyArgument.optional() });
}

const jsonSchema = publishedJsonSchema;

/** The structuredContent of a tool failure: the stable code REST answers with, a message, and details. */
const ToolErrorSchema = z.object({
  code: z.string().describe('The stable error code, the same as the REST API answers with (docs/errors.md)'),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/**
 * A tool's published output schema: its result, or a failure. Clients such as the MCP SDK's check every
 * structuredContent against the listed schema, failures included, so a schema that admitted only results would
 * turn each tool failure into a protocol error on the client side.
 */
function outputSchemaOf(operation: ToolOperation): Record<string, unknown> {
  return { type: 'object', anyOf: [jsonSchema(operation.output, 'output'), jsonSchema(ToolErrorSchema, 'output')] };
}

/** A tool's description: the operation's, then the binding's advice for models. */
export function toolDescription(operation: ToolOperation): string {
  return operation.mcp.advice ? `${operation.description} ${operation.mcp.advice}` : operation.description;
}

/** What tools/list says about one tool. */
function describeTool(operation: ToolOperation) {
  const { mcp } = operation;
  return {
    name: mcp.name,
    title: mcp.title,
    description: toolDescription(operation),
    inputSchema: jsonSchema(toolArguments(operation), 'input'),
    outputSchema: outputSchemaOf(operation),
    annotations: { title: mcp.title, ...mcp.annotations },
  };
}

/** The tools an MCP endpoint serves, looked up by name, and their list as tools/list answers it. */
export interface ToolCatalogue {
  named(name: string): ToolOperation | undefined;
  /** Every tool name, for the answer to an unknown tool. */
  names: readonly string[];
  /**
   * The result of tools/list, serialized once: the list never changes at run time (`listChanged: false`). It is
   * kept compressed too: about 38 KB of JSON that gzip makes a seventh of, and MCP clients ask for gzip.
   */
  listResult: PreserializedResult;
  /** The same list at the 2026-07-28 wire: with `resultType` and the caching hints of {@link LIST_CACHE_HINTS}. */
  statelessListResult: PreserializedResult;
}

/**
 * The caching hints (SEP-2549) of the lists of the 2026-07-28 wire. The tool list is the same for every caller of an
 * endpoint (scopes limit calls, not the list), so it is `public`; it changes only when the gateway is upgraded, so
 * a client may keep it five minutes.
 */
export const LIST_CACHE_HINTS = { ttlMs: 300_000, cacheScope: 'public' } as const;

// Catalogues made, by operation table. Converting the tools' schemas to JSON Schema takes about 25 ms, so a table's
// catalogue is made once per process; `kgate serve` makes it while its database opens (app/gateway.ts,
// prepareGateway), and the endpoint then finds it here.
const catalogues = new WeakMap<readonly AnyOperation[], ToolCatalogue>();

/**
 * The catalogue of an operation table's tools, made once per table: the list is about 38 KB of JSON, and
 * serializing it per request more than halved tools/list. A catalogue never changes, so endpoints share it.
 */
export function toolCatalogue(operations: readonly AnyOperation[]): ToolCatalogue {
  const made = catalogues.get(operations);
  if (made) return made;
  const tools = toolOperationsOf(operations);
  const byName = new Map<string, ToolOperation>(tools.map((operation) => [operation.mcp.name, operation]));
  if (byName.size !== tools.length) throw new Error('Two operations publish the same MCP tool name.');
  const described = tools.map(describeTool);
  const catalogue: ToolCatalogue = {
    named: (name) => byName.get(name),
    names: tools.map((operation) => operation.mcp.name),
    listResult: new PreserializedResult(JSON.stringify({ tools: described }), { gzip: true }),
    statelessListResult: new PreserializedResult(JSON.stringify({ resultType: 'complete', ...LIST_CACHE_HINTS, tools: described }), { gzip: true }),
  };
  catalogues.set(operations, catalogue);
  return catalogue;
}
