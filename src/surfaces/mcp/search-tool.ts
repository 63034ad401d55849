import { searchNotes } from '../operations/search-operations.ts';
import { readOperationTool } from './tool.ts';

/** `search_notes`: the searchNotes operation as an MCP tool. */
export const searchNotesTool = readOperationTool(searchNotes, {
  name: 'search_notes',
  title: 'Search notes',
  advice:
    'Use it to find notes before reading them with get_note_content; each result has a snippet around the match, ' +
    'so you can often answer without reading whole notes.',
});
