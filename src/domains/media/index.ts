/**
 * Private media of the Product Runtime (docs/education.md, "Private audio media"): audio a product stores for its
 * installation, checked by container signature and declared bounds, kept within the organization's storage ceiling
 * under concurrency, behind a store port (the database, a directory or an S3-compatible object store).
 */
export {
  AUDIO_CONTENT_TYPES,
  AudioContainerSchema,
  MAX_AUDIO_BYTES,
  MAX_AUDIO_DURATION_SECONDS,
  MAX_MEDIA_REFERENCE_LENGTH,
  MediaReferenceSchema,
} from './contract.ts';
export type {
  AudioContainer,
  AudioUpload,
  ByteRange,
  MediaOwner,
  MediaPart,
  MediaRead,
  MediaStore,
  MediaStoreKind,
  RequestedRange,
  StagedMedia,
  StoredMedia,
} from './contract.ts';
export { SNIFF_BYTES, detectAudioContainer } from './container.ts';
export { DATABASE_READ_CHUNK_BYTES, databaseMediaStore } from './database-store.ts';
export { directoryMediaStore } from './directory-store.ts';
export { EMPTY_PAYLOAD_SHA256, encodeS3Path, signS3Request } from './s3-signature.ts';
export type { S3Credentials, S3RequestToSign } from './s3-signature.ts';
export { s3MediaStore } from './s3-store.ts';
export type { S3Fetch, S3StoreSettings } from './s3-store.ts';
export { PENDING_MEDIA_TTL_MS, createMediaService, partOf } from './service.ts';
export type { MediaService } from './service.ts';
