import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../operations/table.ts';
import { toolCatalogue } from './tool-list.ts';

describe('the tool catalogue', () => {
  it('is made once per operation table and shared, and another table gets its own', () => {
    const first = toolCatalogue(OPERATIONS);
    expect(toolCatalogue(OPERATIONS)).toBe(first);
    const firstTool = first.named(first.names[0]!);
    const fewer = OPERATIONS.filter((operation) => operation !== firstTool);
    const other = toolCatalogue(fewer);
    expect(other).not.toBe(first);
    expect(other.names).toEqual(first.names.slice(1));
    const listed = JSON.parse(other.listResult.json) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name)).toEqual(other.names);
  });

  it('refuses a table in which two operations publish one tool name', () => {
    const tool = OPERATIONS.find((operation) => operation.mcp !== undefined)!;
    expect(() => toolCatalogue([...OPERATIONS, tool])).toThrow('Two operations publish the same MCP tool name.');
  });
});
