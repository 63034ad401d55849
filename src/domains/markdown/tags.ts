import type { MarkdownModel, TagName } from './markdown-model.ts';

/*
 * Obsidian tag rules, as we apply them: a tag is `#` followed by letters, digits, `_`, `-` and `/` (letters and
 * digits of any script); it needs at least one character that is not a digit or `/`, cannot start with `/`, and a
 * trailing `/` is not part of it. Tags compare case-insensitively: `#Project` and `#project` are one tag.
 */

const NON_ASCII_TAG_CHAR = /[\p{L}\p{M}\p{N}]/u;

/** Whether the UTF-16 code unit (or, above 0x7f, the code point) may appear in a tag name. */
export function isTagChar(code: number): boolean {
  if (code < 0x80) {
    return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 45 || code === 47;
  }
  return NON_ASCII_TAG_CHAR.test(String.fromCodePoint(code));
}

/** Whether a character before `#` rules out a tag there: a letter, digit or `_` (as in `C#`), or `#&/\`. */
export function blocksTagBefore(code: number): boolean {
  if (code < 0x80) {
    return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 35 || code === 38 || code === 47 || code === 92;
  }
  return NON_ASCII_TAG_CHAR.test(String.fromCodePoint(code));
}

/**
 * The length of the tag name starting at `from` (just after the `#`), 0 when there is no valid tag there.
 * Characters outside the Basic Multilingual Plane count as two code units, as in the string.
 */
export function tagLengthAt(text: string, from: number, to: number): number {
  let end = from;
  let meaningful = false;
  while (end < to) {
    const code = text.codePointAt(end)!;
    if (!isTagChar(code)) break;
    if (code === 47) {
      if (end === from) return 0;
    } else if (code < 48 || code > 57) {
      meaningful = true;
    }
    end += code > 0xffff ? 2 : 1;
  }
  while (end > from && text.charCodeAt(end - 1) === 47) end -= 1;
  return meaningful ? end - from : 0;
}

/** A tag name with its comparison key, or undefined when `text` (with or without `#`) is not a valid tag. */
export function tagName(text: string): TagName | undefined {
  const name = text.startsWith('#') ? text.slice(1) : text;
  if (name.length === 0 || tagLengthAt(name, 0, name.length) !== name.length) return undefined;
  return { name, key: name.toLowerCase() };
}

/**
 * The tags of a note's frontmatter: the `tags` and `tag` keys, each a list or a string of names separated by
 * commas or whitespace (a list item is one name), with or without `#`. Invalid names are skipped; repeats (case-insensitively) are dropped.
 */
export function frontmatterTags(data: Record<string, unknown> | null | undefined): TagName[] {
  if (!data) return [];
  const out: TagName[] = [];
  const seen = new Set<string>();
  // A list item is one tag; a string is a list of names.
  const add = (value: unknown, split: boolean) => {
    if (typeof value !== 'string' && typeof value !== 'number') return;
    for (const part of split ? String(value).split(/[\s,]+/) : [String(value).trim()]) {
      const tag = tagName(part);
      if (tag && !seen.has(tag.key)) {
        seen.add(tag.key);
        out.push(tag);
      }
    }
  };
  for (const key of ['tags', 'tag']) {
    const value = data[key];
    if (Array.isArray(value)) for (const item of value) add(item, false);
    else add(value, true);
  }
  return out;
}

/** The distinct tags of a note, frontmatter first, each under its first spelling. */
export function noteTags(model: Pick<MarkdownModel, 'frontmatterTags' | 'tags'>): TagName[] {
  const out: TagName[] = [];
  const seen = new Set<string>();
  for (const tag of [...model.frontmatterTags, ...model.tags]) {
    if (seen.has(tag.key)) continue;
    seen.add(tag.key);
    out.push({ name: tag.name, key: tag.key });
  }
  return out;
}
