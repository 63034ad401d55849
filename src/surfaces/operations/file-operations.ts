/**
 * Canvases and attachments of hosted vaults on the Developer REST API (docs/vaults.md, "Canvases and attachments"):
 * list, read, write, delete to the trash, restore, and the trash. Bytes travel as base64 in JSON, both ways, so that
 * every route is an ordinary operation of the table (one schema, one pipeline, one idempotency rule). A request body
 * is at most 8 MiB, so a file written here is at most MAX_REST_FILE_BYTES; larger files, up to MAX_FILE_BYTES, come
 * in through `kgate import`, and every stored file can be read here.
 */
import { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';
import { CONTENT_HASH_PATTERN } from '../../kernel/hashing.ts';
import { MAX_FILE_BYTES, MAX_FILE_CHANGES, type FileChange, type FilesService, type VaultFile, type VaultFileSummary } from '../../domains/files/index.ts';
import { DryRunSchema, MappingIdSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, defineOperation, type AnyOperation, type OperationContext } from './operation.ts';

/** Largest file a REST write carries: its base64 (4/3 of it) and the JSON around it fit a request body of 8 MiB. */
export const MAX_REST_FILE_BYTES = 6_000_000;
const MAX_BASE64_CHARS = Math.ceil(MAX_REST_FILE_BYTES / 3) * 4;
/** Most files a listing page holds. */
const MAX_FILE_LIST_PAGE = 1000;

const READ = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:read', allowance: 'operation', idempotency: 'none' } as const;
// Heavy: a call decodes and hashes megabytes on the request thread.
const CHANGE = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:write', allowance: 'operation', idempotency: 'when-applying', cost: 'heavy' } as const;
const TAGS = ['files'] as const;

const FilePathSchema = z.string().min(1).max(1024).describe('Vault-relative path of a canvas or attachment (not ending in .md; no hidden names)');
const HashSchema = z.string().regex(CONTENT_HASH_PATTERN, 'must be "sha256:" and 64 lower-case hex digits');
const KindSchema = z.enum(['canvas', 'attachment']);
const Base64Schema = z.string().max(MAX_BASE64_CHARS).describe(`The file's bytes in base64; at most ${MAX_REST_FILE_BYTES} bytes through this API`);

const FileSummaryOut = z.object({
  path: z.string(),
  kind: KindSchema,
  mediaType: z.string().describe('From the extension; raster images whose bytes do not match their format are application/octet-stream'),
  contentHash: z.string().describe('sha256 of the bytes: the expectedHash (or If-Match) of a change'),
  size: z.number().int(),
  updatedAt: z.iso.datetime(),
});
const ChangeResultOut = z.object({
  path: z.string(),
  status: z.enum(['create', 'update', 'delete', 'restore', 'no-op']),
  beforeHash: z.string().nullable(),
  afterHash: z.string().nullable(),
  trashId: z.string().optional().describe('A delete: the trash entry to restore; a restore: the entry restored'),
});
const ChangeOut = z.object({ dryRun: z.boolean(), results: z.array(ChangeResultOut) });

const CHANGE_ERRORS = [
  'invalid_request',
  'invalid_path',
  'not_found',
  'forbidden',
  'conflict',
  'payload_too_large',
  'vault_storage_exhausted',
  'precondition_required',
  'stale_revision',
  'mapping_read_only',
  'mapping_pull_only',
  'device_encrypted',
  'approval_required',
  'unavailable',
  'idempotency_key_required',
  'idempotency_key_reused',
  'idempotency_key_in_flight',
] as const;

/** The files service; `unavailable` where a gateway is built without it. */
function filesOf(ctx: OperationContext): FilesService {
  const files = ctx.services.files;
  if (!files) throw new KgateError('unavailable', 'Canvases and attachments are not served by this gateway.');
  return files;
}

function presentSummary(file: VaultFileSummary): z.input<typeof FileSummaryOut> {
  return { path: file.path, kind: file.kind, mediaType: file.mediaType, contentHash: file.contentHash, size: file.size, updatedAt: file.updatedAt.toISOString() };
}

function presentFile(file: VaultFile) {
  return { ...presentSummary(file), createdAt: file.createdAt.toISOString(), contentBase64: file.content.toString('base64') };
}

function decodeBase64(content: string, field: string): Buffer {
  // Linear checks, then a round trip: Node's decoder skips what it cannot read instead of refusing it.
  const bytes = Buffer.from(content, 'base64');
  if (content.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(content) || bytes.toString('base64') !== content) {
    throw new KgateError('invalid_request', `${field} is not base64.`, { field });
  }
  return bytes;
}

async function runChanges(ctx: OperationContext, mappingId: string, dryRun: boolean, changes: FileChange[]) {
  const { results } = await filesOf(ctx).change({
    actor: ctx.principal.actor,
    mappingId,
    changes,
    dryRun,
    capability: ctx.noteChanges,
    ...(ctx.commit ? { commit: ctx.commit } : {}),
  });
  return { dryRun, results };
}

/** listVaultFiles: the canvases and attachments of a vault, a page at a time. */
const listVaultFiles = defineOperation({
  ...READ,
  id: 'listVaultFiles',
  summary: 'List canvases and attachments',
  description: `Lists a hosted vault's canvases and attachments (no bytes) in byte order of path, at most ${MAX_FILE_LIST_PAGE} per page; pass nextAfter as after for the next page.`,
  tags: TAGS,
  input: z.strictObject({
    mappingId: MappingIdSchema,
    kind: KindSchema.optional().describe('Only canvases or only attachments'),
    after: z.string().max(1024).optional().describe('The nextAfter of the previous page'),
    limit: z.number().int().min(1).max(MAX_FILE_LIST_PAGE).optional().describe(`Page size (default 100, at most ${MAX_FILE_LIST_PAGE})`),
  }),
  output: z.object({ files: z.array(FileSummaryOut), nextAfter: z.string().nullable(), truncated: z.boolean() }),
  errors: ['invalid_request', 'not_found', 'forbidden', 'unavailable'],
  rest: [{ method: 'GET', path: '/files' }],
  async run(ctx, input) {
    const page = await filesOf(ctx).listFiles(ctx.principal.actor, input.mappingId, {
      ...(input.kind ? { kind: input.kind } : {}),
      ...(input.after !== undefined ? { after: input.after } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    });
    return { files: page.files.map(presentSummary), nextAfter: page.nextAfter, truncated: page.nextAfter !== null };
  },
});

/** readVaultFile: one file with its bytes. */
const readVaultFile = defineOperation({
  ...READ,
  id: 'readVaultFile',
  summary: 'Read a canvas or attachment',
  description: `Returns one file with its bytes in base64 (contentBase64), its media type and content hash. Files are at most ${MAX_FILE_BYTES} bytes.`,
  tags: TAGS,
  input: z.strictObject({ mappingId: MappingIdSchema, path: FilePathSchema }),
  output: FileSummaryOut.extend({ createdAt: z.iso.datetime(), contentBase64: z.string() }),
  errors: ['invalid_request', 'invalid_path', 'not_found', 'forbidden', 'device_encrypted', 'unavailable'],
  rest: [{ method: 'GET', path: '/files/content' }],
  async run(ctx, input) {
    return presentFile(await filesOf(ctx).readFile(ctx.principal.actor, input.mappingId, input.path));
  },
});

/** writeVaultFile: create or replace one file. */
const writeVaultFile = defineOperation({
  ...CHANGE,
  id: 'writeVaultFile',
  summary: 'Write a canvas or attachment (preview or apply)',
  description:
    'Creates a file, or replaces one with its current hash as expectedHash (or If-Match). By default only previews; ' +
    `applying needs dryRun false and an Idempotency-Key. At most ${MAX_REST_FILE_BYTES} bytes through this API; the vault's ` +
    'files together have a ceiling (vault_storage_exhausted).',
  tags: TAGS,
  input: z.strictObject({ mappingId: MappingIdSchema, path: FilePathSchema, contentBase64: Base64Schema, expectedHash: HashSchema.optional(), dryRun: DryRunSchema }),
  output: ChangeOut,
  errors: CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/files' }],
  run: (ctx, input) =>
    runChanges(ctx, input.mappingId, input.dryRun, [
      { type: 'write-file', path: input.path, content: decodeBase64(input.contentBase64, 'contentBase64'), ...(input.expectedHash ? { expectedHash: input.expectedHash } : {}) },
    ]),
});

/** deleteVaultFile: one file to the trash. */
const deleteVaultFile = defineOperation({
  ...CHANGE,
  id: 'deleteVaultFile',
  summary: 'Delete a canvas or attachment (preview or apply)',
  description: 'Moves one file to the trash (restoreVaultFile brings it back). Needs its current hash as If-Match; by default only previews.',
  tags: TAGS,
  input: z.strictObject({ mappingId: MappingIdSchema, path: FilePathSchema, expectedHash: HashSchema.optional(), dryRun: DryRunSchema }),
  output: ChangeOut,
  errors: CHANGE_ERRORS,
  rest: [{ method: 'DELETE', path: '/files' }],
  run(ctx, input) {
    if (input.expectedHash === undefined) throw new KgateError('precondition_required', 'Deleting a file needs its current hash (If-Match).', { path: input.path });
    return runChanges(ctx, input.mappingId, input.dryRun, [{ type: 'delete-file', path: input.path, expectedHash: input.expectedHash }]);
  },
});

/** restoreVaultFile: a trashed file back at its path. */
const restoreVaultFile = defineOperation({
  ...CHANGE,
  id: 'restoreVaultFile',
  summary: 'Restore a trashed canvas or attachment (preview or apply)',
  description: 'Puts a trashed file back at its original path (conflict when a file is there now). By default only previews.',
  tags: TAGS,
  input: z.strictObject({ mappingId: MappingIdSchema, trashId: z.uuid().describe('The trashId of listVaultFileTrash or of the delete'), dryRun: DryRunSchema }),
  output: ChangeOut,
  errors: CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/files/restore' }],
  run: (ctx, input) => runChanges(ctx, input.mappingId, input.dryRun, [{ type: 'restore-file', trashId: input.trashId }]),
});

const ChangeEntry = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('write-file'), path: FilePathSchema, contentBase64: Base64Schema, expectedHash: HashSchema.optional() }),
  z.strictObject({ type: z.literal('delete-file'), path: FilePathSchema, expectedHash: HashSchema }),
  z.strictObject({ type: z.literal('restore-file'), trashId: z.uuid() }),
]);

/** changeVaultFiles: several changes, atomically. */
const changeVaultFiles = defineOperation({
  ...CHANGE,
  id: 'changeVaultFiles',
  summary: 'Change several canvases and attachments at once (preview or apply)',
  description:
    `Up to ${MAX_FILE_CHANGES} changes (write-file, delete-file, restore-file), one per path, previewed or applied atomically: ` +
    'every change commits or none does. The request body is at most 8 MiB in all.',
  tags: TAGS,
  input: z.strictObject({ mappingId: MappingIdSchema, dryRun: DryRunSchema, changes: z.array(ChangeEntry).min(1).max(MAX_FILE_CHANGES) }),
  output: ChangeOut,
  errors: CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/files/changes' }],
  run(ctx, input) {
    const changes = input.changes.map((entry, index): FileChange => {
      if (entry.type !== 'write-file') return entry;
      const content = decodeBase64(entry.contentBase64, `changes[${index}].contentBase64`);
      return { type: 'write-file', path: entry.path, content, ...(entry.expectedHash ? { expectedHash: entry.expectedHash } : {}) };
    });
    return runChanges(ctx, input.mappingId, input.dryRun, changes);
  },
});

/** listVaultFileTrash: trashed files, newest first. */
const listVaultFileTrash = defineOperation({
  ...READ,
  id: 'listVaultFileTrash',
  summary: 'List trashed canvases and attachments',
  description: 'Lists the trashed files of a hosted vault not restored yet, newest first (at most limit).',
  tags: TAGS,
  input: z.strictObject({ mappingId: MappingIdSchema, limit: z.number().int().min(1).max(MAX_FILE_LIST_PAGE).optional() }),
  output: z.object({
    entries: z.array(
      z.object({ trashId: z.string(), originalPath: z.string(), kind: KindSchema, mediaType: z.string(), contentHash: z.string(), size: z.number().int(), deletedAt: z.iso.datetime() }),
    ),
  }),
  errors: ['invalid_request', 'not_found', 'forbidden', 'unavailable'],
  rest: [{ method: 'GET', path: '/files/trash' }],
  async run(ctx, input) {
    const entries = await filesOf(ctx).listTrash(ctx.principal.actor, input.mappingId, input.limit !== undefined ? { limit: input.limit } : {});
    return { entries: entries.map((e) => ({ ...e, deletedAt: e.deletedAt.toISOString() })) };
  },
});

/** The canvas and attachment operations (REST only). */
export const FILE_OPERATIONS: readonly AnyOperation[] = [listVaultFiles, readVaultFile, writeVaultFile, deleteVaultFile, restoreVaultFile, changeVaultFiles, listVaultFileTrash];
