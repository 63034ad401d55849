import { z } from 'zod';
import type { FilesService } from '../../domains/files/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import { FRONTMATTER_TYPES, MAX_CANVAS_NODES, canvasToOutline, summarizeSchema } from '../../domains/markdown/index.ts';
import { MAX_FRONTMATTER_ERRORS, MAX_FRONTMATTER_SCAN, MAX_REMOTE_FRONTMATTER_READS } from '../../domains/notes/index.ts';
import { MappingIdSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation, type OperationContext } from './operation.ts';

// Operations that turn vault files into knowledge a model can use.

const READ = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:read', allowance: 'operation', idempotency: 'none' } as const;

/** The files service; `unavailable` where a gateway is built without it. */
function filesOf(ctx: OperationContext): FilesService {
  const files = ctx.services.files;
  if (!files) throw new KgateError('unavailable', 'Canvases stored in vaults are not served by this gateway.');
  return files;
}

/** Strict UTF-8; a byte order mark at the start is dropped, as JSON readers do. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The JSON text of a stored canvas: `invalid_request` when the file is no canvas or not UTF-8. */
async function storedCanvas(ctx: OperationContext, mappingId: string, path: string): Promise<{ text: string; path: string; contentHash: string }> {
  const file = await filesOf(ctx).readFile(ctx.principal.actor, mappingId, path);
  if (file.kind !== 'canvas') {
    throw new KgateError('invalid_request', `${file.path} is not a canvas (.canvas file).`, { field: 'path', path: file.path, kind: file.kind });
  }
  try {
    return { text: UTF8.decode(file.content), path: file.path, contentHash: file.contentHash };
  } catch {
    throw new KgateError('invalid_request', `${file.path} is not UTF-8 text, so not a JSON Canvas document.`, { field: 'path', path: file.path });
  }
}

/** A JSON Canvas document as a Markdown outline (`translate_canvas`). */
export const translateCanvas = defineOperation({
  ...READ,
  id: 'translateCanvas',
  summary: 'Translate a canvas to an outline',
  description:
    `Converts a JSON Canvas 1.0 document (an Obsidian .canvas file) to a Markdown outline: ` +
    `nodes nest under the smallest group that contains them, in reading order (top to bottom, then left to right); notes become ` +
    `[[WikiLinks]], other files embeds, links Markdown links; edges follow under "Relations". At most ${MAX_CANVAS_NODES} nodes. ` +
    'Pass exactly one of: canvas (the document itself, as JSON text or the parsed object; no vault is read), or mappingId and ' +
    'path (a .canvas file stored in a hosted vault; the answer then names its path and content hash).',
  tags: ['knowledge'],
  input: z
    .strictObject({
      canvas: z
        .union([z.string(), z.record(z.string(), z.unknown())])
        .optional()
        .describe('The JSON Canvas document itself: its JSON text or the parsed object with nodes and edges'),
      mappingId: MappingIdSchema.optional().describe('The vault that stores the canvas (with path, instead of canvas)'),
      path: z.string().min(1).max(1024).optional().describe('Vault-relative path of a stored .canvas file (with mappingId)'),
    })
    .superRefine((input, issues) => {
      const stored = input.mappingId !== undefined || input.path !== undefined;
      if (input.canvas !== undefined && stored) {
        issues.addIssue({ code: 'custom', message: 'Pass either canvas or mappingId and path, not both.', path: ['canvas'] });
      } else if (input.canvas === undefined && !stored) {
        issues.addIssue({ code: 'custom', message: 'Pass canvas, or mappingId and path of a stored canvas.', path: ['canvas'] });
      } else if (stored && input.mappingId === undefined) {
        issues.addIssue({ code: 'custom', message: 'path needs mappingId.', path: ['mappingId'] });
      } else if (stored && input.path === undefined) {
        issues.addIssue({ code: 'custom', message: 'mappingId needs path.', path: ['path'] });
      }
    }),
  output: z.object({
    outline: z.string(),
    nodes: z.number().int(),
    edges: z.number().int(),
    truncated: z.boolean().describe('Always false: a canvas over the limit is refused, never cut'),
    path: z.string().optional().describe('A stored canvas: its path as stored'),
    contentHash: z.string().optional().describe('A stored canvas: the hash of the bytes translated'),
  }),
  errors: ['invalid_request', 'invalid_path', 'not_found', 'forbidden', 'device_encrypted', 'unavailable'],
  mcp: { name: 'translate_canvas', title: 'Translate a canvas to an outline', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    // Inline: pure and bounded, no vault is read, so no mapping is resolved.
    if (input.canvas !== undefined) return { ...canvasToOutline(input.canvas) };
    // The refinement above guarantees both; the checks keep the types honest.
    if (input.mappingId === undefined || input.path === undefined) throw new KgateError('invalid_request', 'mappingId and path go together.');
    const stored = await storedCanvas(ctx, input.mappingId, input.path);
    return { ...canvasToOutline(stored.text), path: stored.path, contentHash: stored.contentHash };
  },
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
