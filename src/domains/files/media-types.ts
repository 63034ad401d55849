/*
 * Media types of stored files, from the extension (docs/vaults.md): what Obsidian embeds or opens, and a few common
 * documents. Anything else is `application/octet-stream`. A raster image whose bytes do not start with its format's
 * signature is stored as `application/octet-stream` too, so that nothing serves it as that image.
 */

const BY_EXTENSION: Readonly<Record<string, string>> = {
  canvas: 'application/json',
  // Images.
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  ico: 'image/vnd.microsoft.icon',
  // Audio.
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  flac: 'audio/flac',
  '3gp': 'audio/3gpp',
  // Video.
  mp4: 'video/mp4',
  webm: 'video/webm',
  ogv: 'video/ogg',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  // Documents and data.
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  zip: 'application/zip',
  excalidraw: 'application/json',
};

/** The signatures of raster images (the first bytes every file of that format starts with). */
const SIGNATURES: Readonly<Record<string, (bytes: Buffer) => boolean>> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  'image/avif': (b) => b.subarray(4, 8).toString('latin1') === 'ftyp' && ['avif', 'avis'].includes(b.subarray(8, 12).toString('latin1')),
  'image/bmp': (b) => b.subarray(0, 2).toString('latin1') === 'BM',
};

/** A path's extension, lower case, without the dot; '' when its name has none. */
export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The media type a file is stored and served with: from its extension, checked against the signature for raster images. */
export function mediaTypeOf(path: string, content: Buffer): string {
  const byExtension = BY_EXTENSION[extensionOf(path)] ?? 'application/octet-stream';
  const signature = SIGNATURES[byExtension];
  if (signature && !signature(content)) return 'application/octet-stream';
  return byExtension;
}
