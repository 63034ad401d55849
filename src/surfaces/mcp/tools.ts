import { z } from 'zod';
import { listEvents } from '../operations/event-operations.ts';
import { readNote } from '../operations/note-operations.ts';
import { READ_ONLY_TOOL, readOperationTool, type McpTool } from './tool.ts';
import { queryGraphRelationsTool } from './graph-tool.ts';
import { KNOWLEDGE_TOOLS } from './knowledge-tools.ts';
import { searchNotesTool } from './search-tool.ts';
import { WRITE_TOOLS } from './write-tools.ts';

/** Most characters of content get_note_content returns unless asked for fewer. */
export const MAX_NOTE_CONTENT_CHARS = 200_000;

const listVaults: McpTool = {
  name: 'list_vaults',
  title: 'List vaults',
  description:
    'Lists the vault mappings your account owns, with the mappingId to pass to every vault tool, whether the mapping is read-only, and whether MCP may change its notes (writeAccess). Call this first; never guess a mappingId.',
  input: z.object({}).strict(),
  output: z.object({
    vaults: z.array(
      z.object({
        mappingId: z.string(),
        name: z.string(),
        provider: z.string(),
        readOnly: z.boolean(),
        writeAccess: z.boolean().describe('True when MCP note changes are allowed on this exact mapping'),
        deviceEncrypted: z.boolean(),
      }),
    ),
    truncated: z.boolean(),
  }),
  annotations: READ_ONLY_TOOL,
  scope: 'mcp:read',
  async run(ctx) {
    const mappings = await ctx.services.vaults.listOwnedMappings(ctx.principal.accountId);
    return {
      vaults: mappings.map((m) => ({
        mappingId: m.id,
        name: m.name,
        provider: m.provider,
        readOnly: m.readOnly || m.pullOnly,
        writeAccess: !m.readOnly && !m.pullOnly && m.allowMcpNoteChanges && !m.deviceEncrypted,
        deviceEncrypted: m.deviceEncrypted,
      })),
      truncated: false,
    };
  },
};

const getNoteContent: McpTool = {
  name: 'get_note_content',
  title: 'Read a note',
  description:
    'Reads one note: its Markdown content, contentHash (the value to send as expectedHash when changing it) and revision. Long content is cut at maxChars and flagged truncated.',
  input: readNote.input
    .extend({
      maxChars: z.number().int().min(1).max(MAX_NOTE_CONTENT_CHARS).optional().describe(`At most ${MAX_NOTE_CONTENT_CHARS} (the default)`),
    })
    .strict(),
  output: z.object({
    path: z.string(),
    title: z.string(),
    content: z.string(),
    contentHash: z.string(),
    revision: z.string(),
    size: z.number().int(),
    truncated: z.boolean(),
  }),
  annotations: READ_ONLY_TOOL,
  scope: 'mcp:read',
  async run(ctx, args) {
    const input = args as { mappingId: string; path: string; maxChars?: number };
    const note = await readNote.run(ctx, { mappingId: input.mappingId, path: input.path });
    const limit = input.maxChars ?? MAX_NOTE_CONTENT_CHARS;
    const truncated = note.content.length > limit;
    return {
      path: note.path,
      title: note.title,
      content: truncated ? note.content.slice(0, limit) : note.content,
      contentHash: note.contentHash,
      revision: note.revision,
      size: note.size,
      truncated,
    };
  },
};

const getKnowledgeEvents = readOperationTool(listEvents, {
  name: 'get_knowledge_events',
  title: 'Provenance events',
  advice: 'Bounded: at most 1,000 events per call, with truncated and nextSince.',
});

/**
 * The tools of the hosted MCP gateway. Only tools that fully work are listed (the rest of spec 4.2 arrives with
 * later issues); the list never changes at run time (`listChanged: false`).
 */
export const MCP_TOOLS: readonly McpTool[] = [listVaults, searchNotesTool, getNoteContent, queryGraphRelationsTool, getKnowledgeEvents, ...WRITE_TOOLS, ...KNOWLEDGE_TOOLS];
