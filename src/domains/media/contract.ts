import { z } from 'zod';

/** Largest audio upload (spec 8): 3 MiB. */
export const MAX_AUDIO_BYTES = 3 * 1024 * 1024;
/** Longest declared audio duration (spec 8): 120 seconds. Declared, not decoded (spec 8 rule 5). */
export const MAX_AUDIO_DURATION_SECONDS = 120;
/** Longest product media reference, in characters. */
export const MAX_MEDIA_REFERENCE_LENGTH = 200;

/**
 * The product's own opaque reference for a recording (its id for it): 1 to 200 visible ASCII characters, stored and
 * answered, never interpreted. It travels in a header, so it is ASCII.
 */
export const MediaReferenceSchema = z
  .string()
  .min(1)
  .max(MAX_MEDIA_REFERENCE_LENGTH)
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters without spaces');

/** The containers private audio may come in, each checked by its signature (container.ts). */
export const AudioContainerSchema = z.enum(['webm', 'ogg', 'mp4']);
/** See AudioContainerSchema. */
export type AudioContainer = z.infer<typeof AudioContainerSchema>;

/** The media type each container is declared with and served as. */
export const AUDIO_CONTENT_TYPES: Readonly<Record<AudioContainer, string>> = {
  webm: 'audio/webm',
  ogg: 'audio/ogg',
  mp4: 'audio/mp4',
};

/** Who owns a media object: the organization whose ceiling it counts against, and the installation that may read it. */
export interface MediaOwner {
  organizationId: string;
  installationId: string;
  /** The service principal that stores it (recorded, not an authority: any principal of the installation reads it). */
  principalId: string;
}

/** An audio upload as received: the declared facts and the bytes. */
export interface AudioUpload {
  reference: string;
  /** Declared duration in seconds; at most MAX_AUDIO_DURATION_SECONDS, in milliseconds' precision. */
  durationSeconds: number;
  /** The declared media type, without parameters (`audio/webm; codecs=opus` is `audio/webm`). */
  contentType: string;
  bytes: Uint8Array;
}

/** A stored media object as answered: never a URL, a storage key or a credential. */
export interface StoredMedia {
  mediaId: string;
  /** SHA-256 of the bytes, lowercase hex; also the download's ETag. */
  sha256: string;
  bytes: number;
  durationSeconds: number;
  reference: string;
  contentType: string;
  createdAt: Date;
}

/** A stored object reserved and written, whose upload has not committed yet (MediaService.stage). */
export interface StagedMedia extends StoredMedia {
  organizationId: string;
}

/** Bytes `start` to `end` of an object, both included. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * A range as a request asks for it (RFC 9110 section 14.1.2), before the object's size is known: `bytes=a-b`
 * (`end` absent: to the end), or the last `suffix` bytes (`bytes=-n`).
 */
export type RequestedRange = { start: number; end?: number } | { suffix: number };

/** What a read answers: the whole object, one satisfiable range of it, or no bytes at all (unsatisfiable). */
export type MediaPart = { kind: 'whole'; range: ByteRange } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/** An opened read: what the object is, which part is answered, and its bytes (absent when unsatisfiable). */
export interface MediaRead {
  media: StoredMedia;
  part: MediaPart;
  /** The part's bytes in order; a consumer that stops early calls `return()` so the store lets go of them. */
  content?: AsyncIterable<Uint8Array>;
}

/** Where media bytes are kept (the operator's KGATE_MEDIA_STORE). */
export type MediaStoreKind = 'database' | 'directory' | 's3';

/**
 * The port media bytes are kept behind: the database, a directory, or an S3-compatible object store. Keys are made
 * by the media service (`<organizationId>/<mediaId>`), each written once; nothing about a store reaches a caller.
 */
export interface MediaStore {
  readonly kind: MediaStoreKind;
  /** Stores an object under a new key; resolves once it is durable in the store. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /**
   * Opens bytes `range` of an object (`range.end` < its size): resolves once the store has answered, so that a missing
   * object fails before an answer has begun; the bytes then come in order. A reader may stop at any point, before its
   * first read too, and closes nothing itself: a store holds no file descriptor for a reader that has not started.
   */
  get(key: string, range: ByteRange): Promise<AsyncIterable<Uint8Array>>;
  /** Deletes an object; deleting one that is not there succeeds. */
  delete(key: string): Promise<void>;
}
