/**
 * Where the customer's browser goes back to after Google (spec 4.7): only to a return origin or an exact redirect URI
 * registered on the product definition (runtime_products.return_origins, normalized when registered: an origin as
 * `https://host[:port]`, a redirect URI as the URL parser writes it). Pure, so the rule is tested on its own.
 */
import { hasControlCharacters } from '../../../kernel/control-characters.ts';

/** Longest return target accepted. */
export const MAX_RETURN_TARGET_LENGTH = 2048;

/** True when a registered entry is an origin (any path of it is accepted), not an exact redirect URI. */
function isOriginEntry(entry: string): boolean {
  return /^https:\/\/[^/?#]+$/i.test(entry);
}

/**
 * The return target as it will be used, when `requested` is an HTTPS URL that a registered entry admits: an exact
 * redirect URI equal to it, or an origin equal to its origin. Null otherwise (credentials, fragments, whitespace and
 * other schemes are never admitted).
 */
export function admittedReturnTarget(requested: string, registered: readonly string[]): string | null {
  if (requested.length === 0 || requested.length > MAX_RETURN_TARGET_LENGTH) return null;
  // The URL parser drops tabs and line feeds and trims spaces: what it would read is not what was written.
  if (/\s/.test(requested) || hasControlCharacters(requested) || requested.includes('#')) return null;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return null;
  if (registered.includes(url.href)) return url.href;
  if (registered.some((entry) => isOriginEntry(entry) && entry === url.origin)) return url.href;
  return null;
}

/** The return target with the outcome of the connection in its query (its own query parameters are kept). */
export function returnUrl(target: string, outcome: Readonly<Record<string, string | undefined>>): string {
  const url = new URL(target);
  for (const [name, value] of Object.entries(outcome)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}
