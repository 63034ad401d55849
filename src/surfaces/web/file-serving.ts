/**
 * How the workspace serves the bytes of stored files (docs/vaults.md, "Canvases and attachments"). Only what a
 * browser shows without running anything is served inline: raster images, audio and PDF. Everything else (SVG and
 * HTML included, which could run script on our origin) goes out as `application/octet-stream` with
 * `Content-Disposition: attachment`, so that the browser saves it instead of rendering it. Every response says
 * `nosniff`, and carries a Content-Security-Policy that runs nothing even when opened directly.
 */

/** Raster images a browser decodes without running anything; SVG is deliberately not one. */
const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

/** How a stored file is shown in a page: as an image, an audio player, a link to a PDF, or a link only. */
export type FilePresentation = 'image' | 'audio' | 'pdf' | 'download';

/** How a file of this media type is presented; anything not listed is a download. */
export function presentationOf(mediaType: string): FilePresentation {
  if (INLINE_IMAGES.has(mediaType)) return 'image';
  if (/^audio\/[a-z0-9.+-]+$/.test(mediaType)) return 'audio';
  if (mediaType === 'application/pdf') return 'pdf';
  return 'download';
}

/** A file name for Content-Disposition: ASCII fallback and the UTF-8 name (RFC 6266, RFC 8187). */
function dispositionName(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * A sandboxed document that loads nothing: an image or audio opened directly still shows (the browser's own
 * viewer), nothing in it runs. PDF viewers refuse sandboxed documents, so a PDF gets the same policy without it.
 */
const SANDBOXED = "default-src 'none'; sandbox; frame-ancestors 'self'";
const PDF_POLICY = "default-src 'none'; frame-ancestors 'self'";

/** The response headers for a stored file's bytes; `download` forces a download even for what may be shown. */
export function fileResponseHeaders(file: { path: string; mediaType: string; contentHash: string; size: number }, download: boolean): Record<string, string> {
  const presentation = presentationOf(file.mediaType);
  const inline = !download && presentation !== 'download';
  return {
    'Content-Type': inline ? file.mediaType : 'application/octet-stream',
    'Content-Disposition': `${inline ? 'inline' : 'attachment'}; ${dispositionName(file.path)}`,
    'Content-Length': String(file.size),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': presentation === 'pdf' && inline ? PDF_POLICY : SANDBOXED,
    // Only our own pages may embed it; another site's <img> gets nothing (the session cookie aside).
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Referrer-Policy': 'same-origin',
    // Private to the person: revalidated by its hash on every use, never kept by a shared cache.
    'Cache-Control': 'private, no-cache',
    ETag: `"${file.contentHash}"`,
  };
}
