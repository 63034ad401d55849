/**
 * The format image bytes say they are by their signature. The model client checks this already; the answer asserts
 * it again, right before the bytes leave, so that no path can return bytes of another format. Pure.
 */

/** PNG, JPEG or WebP by the first bytes, or undefined for anything else (GIF, SVG, HTML, ...). */
export function imageFormatOfBytes(bytes: Uint8Array): 'png' | 'jpeg' | 'webp' | undefined {
  const starts = (signature: readonly number[], at = 0): boolean => signature.every((byte, index) => bytes[at + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts([0xff, 0xd8, 0xff])) return 'jpeg';
  // RIFF, four bytes of length, WEBP.
  if (bytes.length >= 12 && starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'webp';
  return undefined;
}
