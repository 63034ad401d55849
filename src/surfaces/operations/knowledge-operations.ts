import { z } from 'zod';
import { FRONTMATTER_TYPES, MAX_CANVAS_NODES, canvasToOutline, summarizeSchema } from '../../domains/markdown/index.ts';
import { MAX_FRONTMATTER_ERRORS, MAX_FRONTMATTER_SCAN, MAX_REMOTE_FRONTMATTER_READS } from '../../domains/notes/index.ts';
import { MappingIdSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation } from './operation.ts';

// Operations that turn vault files into knowledge a model can use.

const READ = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:read', allowance: 'operation', idempotency: 'none' } as const;

/** A JSON Canvas document as a Markdown outline (`translate_canvas`). */
export const translateCanvas = defineOperation({
  ...READ,
  id: 'translateCanvas',
  summary: 'Translate a canvas to an outline',
  description:
    `Converts a JSON Canvas 1.0 document (an Obsidian .canvas file, passed as its JSON text or as an object) to a Markdown outline: ` +
    `nodes nest under the smallest group that contains them, in reading order (top to bottom, then left to right); notes become ` +
    `[[WikiLinks]], other files embeds, links Markdown links; edges follow under "Relations". At most ${MAX_CANVAS_NODES} nodes. ` +
    'Needs no mappingId: it reads only the document you pass.',
  tags: ['knowledge'],
  input: z.strictObject({
    canvas: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .describe('The JSON Canvas document itself: its JSON text or the parsed object with nodes and edges'),
  }),
  output: z.object({
    outline: z.string(),
    nodes: z.number().int(),
    edges: z.number().int(),
    truncated: z.boolean().describe('Always false: a canvas over the limit is refused, never cut'),
  }),
  errors: ['invalid_request'],
  mcp: { name: 'translate_canvas', title: 'Translate a canvas to an outline', annotations: READ_ONLY_TOOL },
  // Pure and bounded: no vault is read, so no mapping is resolved.
  run: (_ctx, input) => Promise.resolve({ ...canvasToOutline(input.canvas) }),
});

/** The frontmatter keys of a hosted vault (`get_vault_schema`). */
export const getVaultSchema = defineOperation({
  ...READ,
  id: 'getVaultSchema',
  summary: 'Frontmatter schema of a vault',
  description:
    `Inspects the YAML frontmatter keys of a vault: per key the kinds of value seen (string, number, boolean, date, list, ` +
    `object, null), how many notes have it and up to 3 examples. Reads at most ${MAX_FRONTMATTER_SCAN.toLocaleString('en-US')} ` +
    `hosted notes, or at most ${MAX_REMOTE_FRONTMATTER_READS} notes read live from a remote mapping's provider, in path order; truncated ` +
    'says when it stopped early (scanned of total), and is not proof that no other keys exist. parseErrors lists the first ' +
    `${MAX_FRONTMATTER_ERRORS} notes whose frontmatter could not be read.`,
  tags: ['knowledge'],
  input: z.strictObject({ mappingId: MappingIdSchema }),
  output: z.object({
    keys: z.array(
      z.object({
        key: z.string(),
        types: z.array(z.enum(FRONTMATTER_TYPES)),
        count: z.number().int().describe('Notes that have this key'),
        examples: z.array(z.string()).describe('Up to 3 distinct values, stringified, at most 80 characters each'),
      }),
    ),
    keysTruncated: z.boolean().describe('True when the vault has more distinct keys than are described'),
    notesWithFrontmatter: z.number().int(),
    scanned: z.number().int().describe('Notes read'),
    total: z.number().int().describe('Notes in the vault'),
    truncated: z.boolean().describe(`True when the scan stopped at ${MAX_FRONTMATTER_SCAN} notes before the last one`),
    parseErrors: z.array(z.object({ path: z.string(), error: z.string() })).describe(`At most ${MAX_FRONTMATTER_ERRORS}`),
    parseErrorCount: z.number().int(),
  }),
  errors: ['invalid_request', 'not_found', 'device_encrypted'],
  mcp: { name: 'get_vault_schema', title: 'Frontmatter schema of a vault', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const scan = await ctx.services.notes.scanFrontmatter(ctx.principal.actor, input.mappingId, MAX_FRONTMATTER_SCAN);
    const schema = summarizeSchema(scan.documents);
    return {
      keys: schema.keys,
      keysTruncated: schema.keysTruncated,
      notesWithFrontmatter: scan.documents.length,
      scanned: scan.scanned,
      total: scan.total,
      truncated: scan.truncated,
      parseErrors: scan.errors,
      parseErrorCount: scan.errorCount,
    };
  },
});
