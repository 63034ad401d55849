import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import { detectAudioContainer } from './container.ts';
import {
  AUDIO_CONTENT_TYPES,
  MAX_AUDIO_BYTES,
  MAX_AUDIO_DURATION_SECONDS,
  type AudioUpload,
  type ByteRange,
  type MediaOwner,
  type MediaPart,
  type MediaRead,
  type MediaStore,
  type RequestedRange,
  type StagedMedia,
  type StoredMedia,
} from './contract.ts';
import { abandonedPending, findStored, markStored, releasePending, reservePending, usedBytes } from './records.ts';

/** How long an upload may stay pending before it counts as abandoned and is swept: far longer than any upload runs. */
export const PENDING_MEDIA_TTL_MS = 60 * 60 * 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Private media (docs/education.md, "Private audio media"): storing audio within a ceiling, and reading it back. */
export interface MediaService {
  /** Where this gateway keeps media bytes. */
  readonly storeKind: MediaStore['kind'];
  /**
   * Checks an upload (size, container by signature, declared type, declared duration), reserves its bytes against
   * `ceilingBytes`, records it pending and stores its bytes; outside any transaction (an object store's write must not
   * hold one open). A refusal stores nothing; a store failure gives the reservation back before it is thrown.
   */
  stage(owner: MediaOwner, ceilingBytes: number, upload: AudioUpload): Promise<StagedMedia>;
  /** Makes a staged object readable, in the transaction that commits the upload's answer. */
  commit(sql: Sql, staged: StagedMedia): Promise<StoredMedia>;
  /**
   * Opens a stored object of the owner's organization and installation (any other is `not_found`, as an unknown one
   * is): the whole of it, or `range` unless `ifRangeSha256` names other bytes (RFC 9110 If-Range).
   */
  read(owner: Pick<MediaOwner, 'organizationId' | 'installationId'>, mediaId: string, range?: RequestedRange, ifRangeSha256?: string): Promise<MediaRead>;
  /** Sweeps uploads abandoned while pending: deletes their bytes and gives their reservations back. Returns how many. */
  sweepAbandoned(limit?: number): Promise<number>;
  /** The bytes an organization's media take now, reservations included. */
  usedBytes(organizationId: string): Promise<number>;
}

const notFound = () => new KgateError('not_found', 'No such media, or it belongs to another installation (the two look the same).');

/** The declared media type without parameters, in lowercase. */
function bareType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** Refuses an upload that breaks a bound of spec 8 or is not the audio container it says it is; stores nothing. */
function checkUpload(upload: AudioUpload): { contentType: string; durationMs: number } {
  if (upload.bytes.byteLength === 0) throw new KgateError('invalid_request', 'The body holds no audio bytes.', { field: 'body' });
  if (upload.bytes.byteLength > MAX_AUDIO_BYTES) {
    throw new KgateError('payload_too_large', `Audio is at most ${MAX_AUDIO_BYTES} bytes.`, { limit: MAX_AUDIO_BYTES });
  }
  const declared = bareType(upload.contentType);
  const detected = detectAudioContainer(upload.bytes);
  if (!detected || AUDIO_CONTENT_TYPES[detected] !== declared) {
    throw new KgateError('media_type_unsupported', 'The bytes must be WebM, Ogg or MP4 audio, declared as audio/webm, audio/ogg or audio/mp4 to match their container.', {
      declared: declared.slice(0, 100),
      detected: detected ?? null,
      supported: Object.values(AUDIO_CONTENT_TYPES),
    });
  }
  if (!Number.isFinite(upload.durationSeconds) || upload.durationSeconds <= 0) {
    throw new KgateError('invalid_request', 'The declared duration is a positive number of seconds.', { field: 'duration' });
  }
  if (upload.durationSeconds > MAX_AUDIO_DURATION_SECONDS) {
    throw new KgateError('media_duration_exceeded', `Audio is at most ${MAX_AUDIO_DURATION_SECONDS} seconds long.`, {
      limit: MAX_AUDIO_DURATION_SECONDS,
      declared: upload.durationSeconds,
    });
  }
  return { contentType: declared, durationMs: Math.max(1, Math.round(upload.durationSeconds * 1000)) };
}

/** The part of an object of `size` bytes that a request gets (RFC 9110 section 14). */
export function partOf(size: number, range: RequestedRange | undefined): MediaPart {
  const whole: ByteRange = { start: 0, end: size - 1 };
  if (!range) return { kind: 'whole', range: whole };
  if ('suffix' in range) return range.suffix === 0 ? { kind: 'unsatisfiable' } : { kind: 'partial', range: { start: Math.max(0, size - range.suffix), end: size - 1 } };
  // A range whose last byte comes before its first is invalid, and an invalid Range is ignored (RFC 9110 s14.2).
  if (range.end !== undefined && range.end < range.start) return { kind: 'whole', range: whole };
  if (range.start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) } };
}

/** The key an object's bytes are stored under: its organization, then its id (an operator can tell whose they are). */
function keyOf(organizationId: string, mediaId: string): string {
  return `${organizationId}/${mediaId}`;
}

/** Builds the media service over the database (records, usage) and a store for the bytes. */
export function createMediaService(deps: { db: Database; store: MediaStore; clock: Clock }): MediaService {
  const { db, store, clock } = deps;
  return {
    storeKind: store.kind,
    async stage(owner, ceilingBytes, upload) {
      const { contentType, durationMs } = checkUpload(upload);
      const media: StagedMedia = {
        mediaId: newId(clock.now().getTime()),
        organizationId: owner.organizationId,
        sha256: sha256Hex(upload.bytes),
        bytes: upload.bytes.byteLength,
        durationSeconds: durationMs / 1000,
        reference: upload.reference,
        contentType,
        createdAt: clock.now(),
      };
      const row = { id: media.mediaId, owner, reference: media.reference, contentType, bytes: media.bytes, durationMs, sha256: media.sha256, createdAt: media.createdAt };
      if (!(await reservePending(db, row, ceilingBytes))) {
        throw new KgateError('media_storage_exhausted', "Storing this audio would pass your organization's private media storage ceiling; nothing was stored.", {
          limit: ceilingBytes,
          bytes: media.bytes,
        });
      }
      try {
        await store.put(keyOf(owner.organizationId, media.mediaId), upload.bytes, contentType);
      } catch (error) {
        // Nothing may stay behind: neither bytes the store may have half-kept nor the reservation.
        await store.delete(keyOf(owner.organizationId, media.mediaId)).catch(() => undefined);
        await releasePending(db, media.mediaId);
        throw error;
      }
      return media;
    },
    async commit(sql, staged) {
      if (!(await markStored(sql, staged.mediaId))) throw new Error(`media ${staged.mediaId} was no longer pending when its upload committed`);
      const { organizationId: _organizationId, ...stored } = staged;
      return stored;
    },
    async read(owner, mediaId, range, ifRangeSha256) {
      if (!UUID.test(mediaId)) throw notFound();
      const found = await findStored(db, owner, mediaId);
      if (!found) throw notFound();
      const { organizationId, ...media } = found;
      // If-Range: a range of other bytes than these would be a wrong splice; the whole object is answered instead.
      const applied = ifRangeSha256 === undefined || ifRangeSha256 === media.sha256 ? range : undefined;
      const part = partOf(media.bytes, applied);
      if (part.kind === 'unsatisfiable') return { media, part };
      return { media, part, content: await store.get(keyOf(organizationId, mediaId), part.range) };
    },
    async sweepAbandoned(limit = 100) {
      let swept = 0;
      for (const { id, organizationId } of await abandonedPending(db, new Date(clock.now().getTime() - PENDING_MEDIA_TTL_MS), limit)) {
        // Bytes first: a reservation is given back only once nothing of the object is left.
        await store.delete(keyOf(organizationId, id));
        if (await releasePending(db, id)) swept += 1;
      }
      return swept;
    },
    usedBytes: (organizationId) => usedBytes(db, organizationId),
  };
}
