/**
 * Which audio container bytes are, by their signature, never by what a caller declares (docs/education.md, "Private
 * audio media"). Only the container's own header is read, within its first SNIFF_BYTES: the codec inside is not
 * decoded, exactly as the declared duration is not (spec 8 rule 5).
 */
import type { AudioContainer } from './contract.ts';

/** How many leading bytes the checks look at: enough for any EBML header or `ftyp` box a recorder writes. */
export const SNIFF_BYTES = 4096;

const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3];
const EBML_DOCTYPE_ID = 0x4282;
const OGG_MAGIC = [0x4f, 0x67, 0x67, 0x53]; // 'OggS'

/**
 * ISO BMFF brands whose files may carry audio alone: the MPEG-4 audio brands (M4A, M4B, M4P), the general MP4 brands
 * (mp41, mp42) and the ISO base media brands recorders write (isom, iso2 to iso9), and DASH/CMAF audio (dash, cmfc).
 * Image and video-only brands (heic, avif, mif1, M4V, qt) are not among them.
 */
const AUDIO_BRANDS: ReadonlySet<string> = new Set([
  'M4A ', 'M4B ', 'M4P ', 'mp41', 'mp42', 'isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'dash', 'cmfc',
]);

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, i) => bytes[i] === byte);
}

/** An EBML variable-length integer at `at`: its value (the length marker removed unless `keepMarker`) and its length. */
function vint(bytes: Uint8Array, at: number, keepMarker: boolean): { value: number; length: number } | undefined {
  const first = bytes[at];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23; // leading zeros within the byte, plus one
  if (length > 8 || at + length > bytes.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + bytes[at + i]!;
  return { value, length };
}

/** WebM: an EBML header whose DocType is `webm` (a Matroska file that is not WebM is refused). */
function isWebm(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, EBML_MAGIC)) return false;
  const size = vint(bytes, 4, false);
  if (!size) return false;
  const end = 4 + size.length + size.value;
  if (end > bytes.length) return false;
  for (let at = 4 + size.length; at < end; ) {
    const id = vint(bytes, at, true);
    if (!id) return false;
    const length = vint(bytes, at + id.length, false);
    if (!length) return false;
    const data = at + id.length + length.length;
    if (data + length.value > end) return false;
    if (id.value === EBML_DOCTYPE_ID) {
      // A DocType may be padded with NUL bytes (Matroska specification, "EBML string").
      const docType = String.fromCharCode(...bytes.subarray(data, data + length.value)).replace(/\0+$/, '');
      return docType === 'webm';
    }
    at = data + length.value;
  }
  return false;
}

/** Ogg: the first page's capture pattern `OggS`, stream structure version 0, and the beginning-of-stream flag. */
function isOgg(bytes: Uint8Array): boolean {
  return bytes.length >= 27 && startsWith(bytes, OGG_MAGIC) && bytes[4] === 0 && (bytes[5]! & 0x02) !== 0;
}

function fourCc(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}

/** MP4: an ISO BMFF file whose first box is `ftyp` with an audio-capable major or compatible brand. */
function isMp4(bytes: Uint8Array): boolean {
  if (bytes.length < 16 || fourCc(bytes, 4) !== 'ftyp') return false;
  const size = ((bytes[0]! << 24) >>> 0) + (bytes[1]! << 16) + (bytes[2]! << 8) + bytes[3]!;
  // Major brand and minor version, then whole compatible brands; the box lies within what was sent.
  if (size < 16 || (size - 16) % 4 !== 0 || size > bytes.length) return false;
  if (AUDIO_BRANDS.has(fourCc(bytes, 8))) return true;
  for (let at = 16; at < size; at += 4) if (AUDIO_BRANDS.has(fourCc(bytes, at))) return true;
  return false;
}

/** The audio container of `bytes` by its signature, or undefined when they are none of WebM, Ogg and MP4. */
export function detectAudioContainer(bytes: Uint8Array): AudioContainer | undefined {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (isWebm(head)) return 'webm';
  if (isOgg(head)) return 'ogg';
  if (isMp4(head)) return 'mp4';
  return undefined;
}
