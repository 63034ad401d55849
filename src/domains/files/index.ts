/** Canvases and attachments of hosted vaults (docs/vaults.md, "Canvases and attachments"). */
export * from './contract.ts';
export { createFilesService, fileHash, DEFAULT_FILE_PAGE, FILE_CHANGE_OPERATION, MAX_FILE_CHANGES, MAX_FILE_IMPORT_BATCH } from './service.ts';
export type { FilesServiceOptions } from './service.ts';
export { assertPortableFilePath, fileKindOf, filePathKey, normalizeFilePath } from './paths.ts';
export type { InvalidFilePathReason } from './paths.ts';
export { extensionOf, mediaTypeOf } from './media-types.ts';
export { fileNameResolver, resolveFileTarget, resolveFileTargets, MAX_RESOLVE_CANDIDATES } from './resolve.ts';
