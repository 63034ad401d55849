import type { z } from 'zod';
import { queryGraphRelations } from '../operations/graph-operations.ts';
import type { McpTool } from './tool.ts';

/** `query_graph_relations`: the queryGraphRelations operation as an MCP tool (spec 4.2). */
export const queryGraphRelationsTool: McpTool = {
  name: 'query_graph_relations',
  title: 'Link relations of a note',
  description:
    `${queryGraphRelations.description} Use it to follow a note's context (what it cites, what cites it, which links ` +
    'point at notes nobody wrote yet) without reading every note. When truncated is true, ask again with a larger ' +
    'limit (at most 1000) before concluding that nothing else links here (spec 4.3 rule 9).',
  input: queryGraphRelations.input.strict(),
  output: queryGraphRelations.output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(ctx, args) {
    return queryGraphRelations.run(ctx, args as z.output<typeof queryGraphRelations.input>);
  },
};
