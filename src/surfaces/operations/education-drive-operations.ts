/**
 * Drive round trips of delegated connections (connections.execute; docs/education.md): a retry-safe create, an update
 * that carries the last observed version (a mismatch is `conflict`, never an overwrite), a bounded import of a picked
 * folder. Writes take an Idempotency-Key: the provider write runs once the key is claimed and outside the database
 * transaction that stores its answer (Operation.stage), so a retry replays the answer.
 */
import { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';
import { hasControlCharacters } from '../../kernel/control-characters.ts';
import { DRIVE_IMPORT_CEILINGS, MAX_DRIVE_WRITE_BYTES, type WrittenDriveFile } from '../../domains/education/index.ts';
import { CONNECTION_OPERATION, CONNECTIONS, connectionsOf, ownerOf } from './education-connection-context.ts';
import { defineOperation, type AnyOperation } from './operation.ts';

const ConnectionIdSchema = z.uuid().describe('A connection of your installation, granted drive');
const DriveIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be a Drive id');
const ContentSchema = z
  .string()
  .max(Math.ceil(MAX_DRIVE_WRITE_BYTES / 3) * 4 + 4)
  .describe(`The file's bytes, as UTF-8 text or base64 (encoding); at most ${MAX_DRIVE_WRITE_BYTES} bytes`);
const EncodingSchema = z.enum(['utf8', 'base64']).default('utf8').describe('How content is written: utf8 (default) or base64');

const FileViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  mimeType: z.string(),
  version: z.string().describe("Drive's version: send it as expectedVersion to update the file"),
  size: z.number().int(),
  modifiedTime: z.string().nullable(),
  parentIds: z.array(z.string()),
});
const WrittenSchema = z.object({
  file: FileViewSchema,
  sha256: z.string().describe('SHA-256 (hex) of the bytes written'),
  recovered: z.boolean().describe('A retry found what an earlier attempt under this key wrote; nothing was written again'),
});

function bytesOf(content: string, encoding: 'utf8' | 'base64'): Buffer {
  if (encoding === 'utf8') return Buffer.from(content, 'utf8');
  // Linear checks (a regular expression with repeated groups would backtrack on megabytes), then a round trip:
  // Node's decoder skips what it cannot read instead of refusing it.
  const bytes = Buffer.from(content, 'base64');
  if (content.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(content) || bytes.toString('base64') !== content) {
    throw new KgateError('invalid_request', 'content is not base64.', { field: 'content' });
  }
  return bytes;
}

const EXECUTE = { ...CONNECTION_OPERATION, idempotency: 'always' } as const;
const fileRoute = (path: string, operationId: string) =>
  ({ method: 'POST', path: `${CONNECTIONS}/{connectionId}/drive${path}`, operationId, kind: 'service.drive-file', capability: 'connections.drive', needs: 'connections.execute' }) as const;

/** createDriveFile: a new file, created once per key. */
const createDriveFile = defineOperation({
  ...EXECUTE,
  id: 'createDriveFile',
  summary: 'Create a Drive file',
  description:
    "Creates a file in the customer's Drive (My Drive, or a folder the app created or the user picked), with the bytes " +
    'given. Needs an Idempotency-Key: the file gets an id from Drive before it is created, recorded under the key, so ' +
    'a retry after a lost answer finds that file instead of making a second one.',
  input: z.strictObject({
    connectionId: ConnectionIdSchema,
    name: z
      .string()
      .min(1)
      .max(255)
      .refine((name) => !hasControlCharacters(name), 'must not contain control characters')
      .describe("The file's name"),
    mimeType: z
      .string()
      .regex(/^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i, 'must be a media type')
      .refine((type) => !type.toLowerCase().startsWith('application/vnd.google-apps.'), 'Google document types are not written here')
      .describe('The media type of the bytes, e.g. text/markdown'),
    parentId: DriveIdSchema.default('root').describe("The folder: 'root' (My Drive, the default), or a folder the app created or the user picked"),
    content: ContentSchema,
    encoding: EncodingSchema,
  }),
  output: WrittenSchema,
  errors: ['invalid_request', 'payload_too_large', 'not_found', 'forbidden', 'provider_disconnected', 'provider_rate_limited', 'provider_unavailable', 'provider_limit_reached', 'idempotency_key_reused', 'unavailable'],
  product: [fileRoute('/files', 'createDriveFile')],
  stage(ctx, input, claim) {
    const { name, mimeType, parentId } = input;
    return connectionsOf(ctx).drive.createFile(ownerOf(ctx), input.connectionId, claim, { name, mimeType, parentId, content: bytesOf(input.content, input.encoding) });
  },
  run(ctx) {
    return Promise.resolve(ctx.commit!.staged as WrittenDriveFile);
  },
});

/** updateDriveFile: new bytes for a file, only while it is still at the version the product last saw. */
const updateDriveFile = defineOperation({
  ...EXECUTE,
  id: 'updateDriveFile',
  summary: 'Update a Drive file',
  description:
    "Replaces a file's bytes, carrying the file's version as last observed (createDriveFile, importDriveFolder or an " +
    'earlier update answered it). When the file changed in Drive since, the answer is conflict (with the current ' +
    'version) and nothing is overwritten. Needs an Idempotency-Key; a retry after a lost answer finds the bytes it ' +
    'wrote and writes nothing again. Drive has no conditional write: the version is checked immediately before the ' +
    'upload, and a change landing in that one round trip is not seen.',
  input: z.strictObject({
    connectionId: ConnectionIdSchema,
    fileId: DriveIdSchema.describe('The file (one the app created or the user picked)'),
    expectedVersion: z.string().regex(/^\d{1,20}$/, "must be Drive's version number").describe('The version last observed'),
    content: ContentSchema,
    encoding: EncodingSchema,
  }),
  output: WrittenSchema,
  errors: ['invalid_request', 'payload_too_large', 'not_found', 'conflict', 'forbidden', 'provider_disconnected', 'provider_rate_limited', 'provider_unavailable', 'provider_limit_reached', 'idempotency_key_reused', 'unavailable'],
  product: [fileRoute('/files/{fileId}', 'updateDriveFile')],
  stage(ctx, input, claim) {
    const { fileId, expectedVersion } = input;
    return connectionsOf(ctx).drive.updateFile(ownerOf(ctx), input.connectionId, claim, { fileId, expectedVersion, content: bytesOf(input.content, input.encoding) });
  },
  run(ctx) {
    return Promise.resolve(ctx.commit!.staged as WrittenDriveFile);
  },
});

const C = DRIVE_IMPORT_CEILINGS;

/** importDriveFolder: the files below a picked folder, bounded. */
const importDriveFolder = defineOperation({
  ...CONNECTION_OPERATION,
  idempotency: 'none',
  id: 'importDriveFolder',
  summary: 'Import a Drive folder',
  description:
    'Lists and downloads the files below a folder the user picked (and its subfolders), bounded in files, bytes, folder ' +
    `depth, provider requests and wall time (${C.wallMs / 1000} s); each bound reached answers provider_limit_reached with ` +
    'details.bound (files, bytes, depth, requests, wall_time) and details.limit, and nothing partial. With drive.file, ' +
    'Drive shows in the folder only what the app may see: the files the user picked with it, or the app created. ' +
    'Google Docs documents have no bytes and are left out. Files come in path order, with their version for later updates.',
  input: z.strictObject({
    connectionId: ConnectionIdSchema,
    folderId: DriveIdSchema.describe('The folder the user picked in Google Picker'),
    maxFiles: z.number().int().min(1).max(C.maxFiles).default(C.maxFiles).describe(`Most files (at most ${C.maxFiles})`),
    maxBytes: z.number().int().min(1).max(C.maxBytes).default(C.maxBytes).describe(`Most bytes of all files (at most ${C.maxBytes})`),
    maxDepth: z.number().int().min(0).max(C.maxDepth).default(C.maxDepth).describe(`Deepest subfolder level (0: the folder's own files; at most ${C.maxDepth})`),
    maxRequests: z.number().int().min(1).max(C.maxRequests).default(C.maxRequests).describe(`Most provider requests (at most ${C.maxRequests})`),
  }),
  output: z.object({
    folder: z.object({ id: z.string(), name: z.string() }),
    files: z.array(
      FileViewSchema.extend({
        path: z.string().describe('Below the folder, /-separated'),
        sha256: z.string(),
        contentBase64: z.string(),
      }),
    ),
    requests: z.number().int().describe('Provider requests the import took'),
  }),
  errors: ['invalid_request', 'not_found', 'forbidden', 'provider_limit_reached', 'provider_disconnected', 'provider_rate_limited', 'provider_unavailable', 'unavailable'],
  product: [
    {
      method: 'POST',
      path: `${CONNECTIONS}/{connectionId}/drive/imports`,
      operationId: 'importDriveFolder',
      kind: 'service.drive-import',
      capability: 'connections.drive',
      needs: 'connections.execute',
    },
  ],
  async run(ctx, input) {
    const imported = await connectionsOf(ctx).drive.importFolder(ownerOf(ctx), input.connectionId, input);
    return {
      folder: imported.folder,
      files: imported.files.map(({ content, ...file }) => ({ ...file, contentBase64: content.toString('base64') })),
      requests: imported.requests,
    };
  },
});

/** The Drive operations of delegated connections. */
export const EDUCATION_DRIVE_OPERATIONS: readonly AnyOperation[] = [createDriveFile, updateDriveFile, importDriveFolder];
