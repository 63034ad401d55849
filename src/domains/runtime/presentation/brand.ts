/**
 * Organization brand profiles (spec 1.6, 1.7; docs/runtime.md "Packs and brands"): bounded presentation overrides,
 * validated on write, applied after authorization to presentation fields only. Nothing here is authority: a brand
 * names how a product looks, never who may do what.
 */
import { z } from 'zod';
import { hasControlCharacters } from '../../../kernel/control-characters.ts';
import { HEX_COLOUR, MIN_TEXT_CONTRAST_RATIO, contrastRatio, formatContrastRatio } from './contrast.ts';
import { parseOrRefuse } from './refusal.ts';
import { shownText } from './text.ts';

/** Longest display name of a brand. */
export const MAX_BRAND_DISPLAY_NAME_LENGTH = 80;
/** Longest tagline of a brand. */
export const MAX_BRAND_TAGLINE_LENGTH = 140;
/** Longest welcome text of a brand. */
export const MAX_BRAND_WELCOME_TEXT_LENGTH = 500;
/** Longest logo or support URL, before and after normalization. */
export const MAX_BRAND_URL_LENGTH = 2_048;

/** A colour written `#rrggbb`, stored in lowercase so that equal colours are equal strings. */
export const BrandColourSchema = z
  .string()
  .regex(HEX_COLOUR, 'must be a colour written #rrggbb (six hexadecimal digits)')
  .transform((value) => value.toLowerCase());

/** Why `value` is not an acceptable brand URL (a predicate, "must ..."), or its normalized form when it is. */
function httpsUrlProblem(value: string): { problem: string } | { href: string } {
  if (value.length > MAX_BRAND_URL_LENGTH) return { problem: `must have at most ${MAX_BRAND_URL_LENGTH} characters` };
  // The URL parser silently drops tabs and line feeds and trims spaces: what it would read is not what was written.
  if (/\s/.test(value) || hasControlCharacters(value)) {
    return { problem: 'must not contain spaces or control characters (percent-encode them)' };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:') return { problem: `must be an https: URL, not ${url.protocol}` };
  if (url.username !== '' || url.password !== '') return { problem: 'must not carry a user name or password' };
  if (url.href.length > MAX_BRAND_URL_LENGTH) return { problem: `must have at most ${MAX_BRAND_URL_LENGTH} characters once normalized` };
  return { href: url.href };
}

/**
 * An HTTPS URL a brand shows or links to (logo, support page), as the WHATWG URL parser reads it (`href`): absolute,
 * `https:` only (so no `http:`, `javascript:` or `data:`), without credentials, at most MAX_BRAND_URL_LENGTH
 * characters. The server never fetches it; the people who see the brand's pages do.
 */
export const BrandUrlSchema = z.string().transform((value, ctx) => {
  const checked = httpsUrlProblem(value);
  if ('href' in checked) return checked.href;
  ctx.issues.push({ code: 'custom', message: checked.problem, input: value });
  return z.NEVER;
});

/**
 * A brand's colours. `text` and `background` come together, and the text must be readable on the background:
 * a contrast ratio of at least MIN_TEXT_CONTRAST_RATIO (WCAG 2.x AA for body text). One without the other could
 * not be checked, since the product would show it against a colour the brand did not choose.
 */
export const BrandColoursSchema = z
  .strictObject({
    primary: BrandColourSchema.optional(),
    accent: BrandColourSchema.optional(),
    background: BrandColourSchema.optional(),
    text: BrandColourSchema.optional(),
  })
  .check((ctx) => {
    const { text, background } = ctx.value;
    if (text === undefined && background === undefined) return;
    if (text === undefined || background === undefined) {
      const missing = text === undefined ? 'text' : 'background';
      const given = missing === 'text' ? 'background' : 'text';
      ctx.issues.push({
        code: 'custom',
        path: [missing],
        message: `must be given with the ${given} colour, so that their contrast can be checked`,
        input: ctx.value,
      });
      return;
    }
    const ratio = contrastRatio(text, background);
    if (ratio < MIN_TEXT_CONTRAST_RATIO) {
      ctx.issues.push({
        code: 'custom',
        path: ['text'],
        message:
          `is ${text} on the background ${background}: a contrast ratio of ${formatContrastRatio(ratio)}, ` +
          `too low to read; text needs at least ${MIN_TEXT_CONTRAST_RATIO}:1 (WCAG 2.x AA)`,
        input: ctx.value,
      });
    }
  });

/**
 * An organization's brand profile: a display name and optional colours, logo, support link and short texts.
 * Strict: a field it does not name (an audience, a scope, a grant, anything else) is refused, never ignored.
 */
export const BrandProfileSchema = z.strictObject({
  displayName: shownText({ max: MAX_BRAND_DISPLAY_NAME_LENGTH }),
  colors: BrandColoursSchema.optional(),
  logoUrl: BrandUrlSchema.optional(),
  supportUrl: BrandUrlSchema.optional(),
  tagline: shownText({ max: MAX_BRAND_TAGLINE_LENGTH }).optional(),
  welcomeText: shownText({ max: MAX_BRAND_WELCOME_TEXT_LENGTH, lineBreaks: true }).optional(),
});
/** A valid brand profile, normalized (lowercase colours, URLs as parsed). */
export type BrandProfile = z.output<typeof BrandProfileSchema>;

/**
 * A brand profile from whatever a caller sent (an admin's form, the CLI, a stored value), or `invalid_request` with
 * `details.field` naming the first field at fault ("colors.text", "logoUrl", "scopes").
 */
export function parseBrandProfile(value: unknown): BrandProfile {
  return parseOrRefuse(BrandProfileSchema, value, 'a brand profile');
}
