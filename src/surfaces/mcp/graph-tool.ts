import { queryGraphRelations } from '../operations/graph-operations.ts';
import { readOperationTool } from './tool.ts';

/** `query_graph_relations`: the queryGraphRelations operation as an MCP tool (spec 4.2). */
export const queryGraphRelationsTool = readOperationTool(queryGraphRelations, {
  name: 'query_graph_relations',
  title: 'Link relations of a note',
  advice:
    "Use it to follow a note's context (what it cites, what cites it, which links point at notes nobody wrote yet) " +
    'without reading every note. When truncated is true, ask again with a larger limit (at most 1000) before ' +
    'concluding that nothing else links here (spec 4.3 rule 9).',
});
