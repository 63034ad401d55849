/**
 * Colour contrast as WCAG 2.x defines it (Understanding Success Criterion 1.4.3, "relative luminance" and
 * "contrast ratio"), for checking that a brand's text stays readable on its background.
 */

/** A colour written `#rrggbb` (either case). */
export const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

/** WCAG 2.x level AA for body text: the least contrast ratio a brand's text colour may have on its background. */
export const MIN_TEXT_CONTRAST_RATIO = 4.5;

/** One sRGB channel (0-255) linearized. WCAG 2.0 printed 0.03928 as the threshold; 2.2 uses sRGB's 0.04045, and no 8-bit value lies between. */
function linearChannel(value255: number): number {
  const c = value255 / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance (0 for black to 1 for white) of a `#rrggbb` colour. */
export function relativeLuminance(hex: string): number {
  if (!HEX_COLOUR.test(hex)) throw new RangeError(`not a #rrggbb colour: ${hex}`);
  const channel = (start: number): number => linearChannel(Number.parseInt(hex.slice(start, start + 2), 16));
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Contrast ratio of two `#rrggbb` colours, from 1 (the same) to 21 (black on white); the order does not matter. */
export function contrastRatio(first: string, second: string): number {
  const a = relativeLuminance(first);
  const b = relativeLuminance(second);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

/** A ratio as people write it, rounded down so that a refused pair never shows as meeting the bound ("4.49:1"). */
export function formatContrastRatio(ratio: number): string {
  return `${(Math.floor(ratio * 100 + 1e-9) / 100).toFixed(2)}:1`;
}
