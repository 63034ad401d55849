import type { z } from 'zod';
import { searchNotes } from '../operations/search-operations.ts';
import type { McpTool } from './tool.ts';

/** `search_notes`: the searchNotes operation as an MCP tool. */
export const searchNotesTool: McpTool = {
  name: 'search_notes',
  title: 'Search notes',
  description:
    `${searchNotes.description} Use it to find notes before reading them with get_note_content; each result has a snippet around ` +
    'the match, so you can often answer without reading whole notes.',
  input: searchNotes.input.strict(),
  output: searchNotes.output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(ctx, args) {
    return searchNotes.run(ctx, args as z.output<typeof searchNotes.input>);
  },
};
