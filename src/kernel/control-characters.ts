/**
 * True when a string holds a C0 or C1 control character (U+0000-U+001F, U+007F-U+009F). Identifiers that are
 * compared character for character or shown to people (redirect URIs, client names) must not carry them:
 * parsers strip some, and displays hide them.
 */
export function hasControlCharacters(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}
