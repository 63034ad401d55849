import { OPERATIONS } from '../../src/surfaces/operations/table.ts';
import { toolCatalogue } from '../../src/surfaces/mcp/tool-list.ts';

/** The size of kgate's `tools/list` result as JSON, and of its reply in gzip as the gateway sends it (bytes). */
export function toolListSizes(): { json: number; gzip: number } {
  const { listResult } = toolCatalogue(OPERATIONS);
  return { json: listResult.bytes.length, gzip: listResult.gzipped!.withTail(Buffer.from(',"id":1}')).reduce((sum, part) => sum + part.length, 0) };
}
