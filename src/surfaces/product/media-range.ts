/**
 * Range requests of the media download (RFC 9110 sections 13.1.5 and 14): the header's syntax only; which bytes a
 * range names is the media domain's (partOf), once the object's size is known.
 */
import type { RequestedRange } from '../../domains/media/index.ts';

// One range of bytes; a position of more than 15 digits is no position of a 3 MiB object and is not read at all.
const BYTE_RANGE = /^bytes[ \t]*=[ \t]*(\d{0,15})[ \t]*-[ \t]*(\d{0,15})$/i;
const STRONG_SHA256_TAG = /^"([0-9a-f]{64})"$/;

/**
 * The one byte range a `Range` header asks for, or undefined when the whole object is answered: no header, another
 * unit, several ranges (a recording is played, not stitched: one range is what players ask for), or a header that
 * is not valid (RFC 9110 s14.2: a server ignores a Range it cannot honour).
 */
export function parseRange(header: string | undefined): RequestedRange | undefined {
  if (header === undefined) return undefined;
  const match = BYTE_RANGE.exec(header.trim());
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') return { suffix: Number(last) };
  const start = Number(first);
  if (last === '') return { start };
  const end = Number(last);
  return end < start ? undefined : { start, end };
}

/** The entity tag a download answers: the object's SHA-256, a strong validator (its bytes never change). */
export function entityTagOf(sha256: string): string {
  return `"${sha256}"`;
}

/**
 * The SHA-256 an `If-Range` header names, for the domain to compare with the object's: undefined without the header;
 * an empty string for anything that is not one of our strong tags (a date, a weak tag), which never matches, so the
 * whole object is answered (RFC 9110 s13.1.5 asks for a strong comparison).
 */
export function ifRangeSha256Of(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return STRONG_SHA256_TAG.exec(header.trim())?.[1] ?? '';
}
