import { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';
import { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, SERVER_INSTRUCTIONS, negotiateVersion } from './protocol.ts';
import type { McpTool, ToolContext } from './tool.ts';
import { MCP_TOOLS } from './tools.ts';
import { PREVIEW_TOOL_NAMES } from './write-tools.ts';

/** JSON-RPC 2.0 error codes (JSON-RPC 2.0 s5.1). */
export const JSONRPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603 } as const;

/** A protocol-level failure, answered as a JSON-RPC error. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Methods this server answers; anything else is "method not found" and consumes nothing. */
export const KNOWN_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call', 'server/discover']);

function jsonSchema(type: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const schema = z.toJSONSchema(type, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

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
function outputSchemaOf(tool: McpTool): Record<string, unknown> {
  return { type: 'object', anyOf: [jsonSchema(tool.output, 'output'), jsonSchema(ToolErrorSchema, 'output')] };
}

// Built once: tools/list is answered from memory, and the published schemas are the validating ones.
const TOOL_LIST = MCP_TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: jsonSchema(tool.input, 'input'),
  outputSchema: outputSchemaOf(tool),
  annotations: { title: tool.title, ...tool.annotations },
}));
/** A result serialized ahead of time; the transport splices it into the reply instead of serializing it again. */
export class PreserializedResult {
  constructor(readonly json: string) {}
}

// The list is about 25 KB of JSON: serializing it once instead of per request more than doubled tools/list.
const TOOL_LIST_RESULT = new PreserializedResult(JSON.stringify({ tools: TOOL_LIST }));
const TOOLS_BY_NAME = new Map<string, McpTool>(MCP_TOOLS.map((tool) => [tool.name, tool]));

/** What initialize and server/discover say about this server. */
export function serverInfo(version: string) {
  return { name: 'kgate', title: 'kgate knowledge gateway', version };
}

/** The legacy discovery document (GET /api/mcp and server/discover). */
export function discoveryDocument(version: string) {
  return {
    server: { ...serverInfo(version), protocolVersion: LATEST_PROTOCOL_VERSION },
    protocolVersions: [...PROTOCOL_VERSIONS],
    capabilities: { tools: { listChanged: false } },
  };
}

function toolError(error: KgateError) {
  const structured = { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], structuredContent: structured, isError: true };
}

async function callTool(params: Record<string, unknown>, ctx: ToolContext) {
  const name = params.name;
  const tool = typeof name === 'string' ? TOOLS_BY_NAME.get(name) : undefined;
  // A tool result, not a protocol error, so that the model reads the list and corrects itself. The 2025-11-25
  // spec lists unknown tools under protocol errors, but the official conformance suite (tools-call-error) and
  // SEP-1303's aim (errors a model can act on) want isError; docs/mcp.md records the decision.
  if (!tool) {
    return toolError(
      new KgateError('not_found', `Unknown tool: ${String(name)}. Available tools: ${MCP_TOOLS.map((t) => t.name).join(', ')}.`),
    );
  }
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  if (PREVIEW_TOOL_NAMES.has(tool.name) && args && typeof args === 'object' && 'dryRun' in args) {
    return toolError(new KgateError('invalid_request', 'Preview tools always preview; they reject a dryRun override.', { field: 'dryRun' }));
  }
  const parsed = tool.input.safeParse(args);
  // Spec 7.3: a call that fails argument validation is a tool-level failure (and it consumed its operation).
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    return toolError(
      new KgateError('invalid_request', `Invalid arguments: ${issues.map((i) => `${i.path || '(arguments)'}: ${i.message}`).join('; ')}`, { issues }),
    );
  }
  try {
    const structured = await tool.run(ctx, parsed.data);
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (error) {
    if (error instanceof KgateError) return toolError(error);
    throw error;
  }
}

/**
 * The OAuth scope a request needs beyond connecting (every OAuth token has mcp:read or mcp:write): a tool call
 * needs its tool's scope; protocol methods and unknown tools need none more.
 */
export function requiredScope(method: string, params: Record<string, unknown> | undefined): McpTool['scope'] | undefined {
  if (method !== 'tools/call') return undefined;
  const name = params?.name;
  return typeof name === 'string' ? TOOLS_BY_NAME.get(name)?.scope : undefined;
}

/**
 * Answers one JSON-RPC request whose method is in KNOWN_METHODS. Protocol failures throw JsonRpcError; tool
 * failures are results with `isError` and the same stable code as REST in `structuredContent`.
 */
export async function dispatch(
  method: string,
  params: Record<string, unknown>,
  ctx: ToolContext & { serverVersion: string },
): Promise<Record<string, unknown> | PreserializedResult> {
  switch (method) {
    case 'initialize':
      return {
        protocolVersion: negotiateVersion(params.protocolVersion),
        capabilities: { tools: { listChanged: false } },
        serverInfo: serverInfo(ctx.serverVersion),
        instructions: SERVER_INSTRUCTIONS,
      };
    case 'ping':
      return {};
    case 'tools/list':
      return TOOL_LIST_RESULT;
    case 'tools/call':
      return callTool(params, ctx);
    case 'server/discover':
      return discoveryDocument(ctx.serverVersion);
    default:
      throw new JsonRpcError(JSONRPC.methodNotFound, `Method not found: ${method}`);
  }
}
