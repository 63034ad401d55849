import { JSONRPC, JsonRpcError, type PreserializedResult } from './json-rpc.ts';
import { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, SUPPORTED_VERSIONS, negotiateVersion } from './protocol.ts';
import { callTool, type ToolCallContext } from './tool-call.ts';
import { LIST_CACHE_HINTS } from './tool-list.ts';

/** Methods this server answers; anything else is "method not found" and consumes nothing. */
export const KNOWN_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call', 'server/discover']);

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

/**
 * server/discover at the 2026-07-28 wire (SEP-2575): the versions we speak, our capabilities and instructions, the
 * server's identity in `_meta`, and the caching hints of a list (the same for every caller of the endpoint).
 */
export function statelessDiscovery(version: string, instructions: string) {
  return {
    resultType: 'complete',
    supportedVersions: [...SUPPORTED_VERSIONS],
    capabilities: { tools: { listChanged: false } },
    instructions,
    ...LIST_CACHE_HINTS,
    _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo(version) },
  };
}

/** What one JSON-RPC request is answered with. */
export interface DispatchContext extends ToolCallContext {
  serverVersion: string;
  /** What initialize tells agents about this endpoint. */
  instructions: string;
  /** 'stateless' at the 2026-07-28 wire, where tools/list and server/discover answer that revision's shapes. */
  wire?: 'stateless';
}

/**
 * Answers one JSON-RPC request whose method is in KNOWN_METHODS. Every one of them is a recognized operation that
 * reserves one unit of the MCP allowance before it runs (spec 8 rule 2); tools/call does so in the pipeline, with
 * its tool's scope. Refusals before execution are thrown as KgateError, protocol failures as JsonRpcError; tool
 * failures are results with `isError`.
 */
export async function dispatch(method: string, params: Record<string, unknown>, ctx: DispatchContext): Promise<Record<string, unknown> | PreserializedResult> {
  if (method === 'tools/call') return callTool(params, ctx);
  await ctx.pipeline.admit(ctx.surface, ctx.principal);
  switch (method) {
    case 'initialize':
      return {
        protocolVersion: negotiateVersion(params.protocolVersion),
        capabilities: { tools: { listChanged: false } },
        serverInfo: serverInfo(ctx.serverVersion),
        instructions: ctx.instructions,
      };
    case 'ping':
      return {};
    case 'tools/list':
      return ctx.wire === 'stateless' ? ctx.tools.statelessListResult : ctx.tools.listResult;
    case 'server/discover':
      return ctx.wire === 'stateless' ? statelessDiscovery(ctx.serverVersion, ctx.instructions) : discoveryDocument(ctx.serverVersion);
    default:
      throw new JsonRpcError(JSONRPC.methodNotFound, `Method not found: ${method}`);
  }
}
