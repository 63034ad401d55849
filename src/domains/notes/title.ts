import { noteBaseName } from '../../kernel/vault-path.ts';

const FRONTMATTER_OPEN = /^---\r?\n/;
const FRONTMATTER_CLOSE = /^(?:---|\.\.\.)\s*$/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ATX_H1 = /^\s{0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/;
const MAX_TITLE_LENGTH = 300;

/**
 * The title of a note: its first level-1 ATX heading outside frontmatter and fenced code, else the file name
 * without `.md` (what Obsidian shows). Bounded to 300 characters.
 */
export function noteTitle(path: string, content: string): string {
  const lines = content.split('\n');
  let index = 0;
  if (FRONTMATTER_OPEN.test(content)) {
    const close = lines.findIndex((line, i) => i > 0 && FRONTMATTER_CLOSE.test(line));
    if (close > 0) index = close + 1;
  }
  let fence: string | undefined;
  for (; index < lines.length; index += 1) {
    const line = lines[index]!.replace(/\r$/, '');
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = ATX_H1.exec(line);
    if (heading && heading[1]!.trim().length > 0) return heading[1]!.trim().slice(0, MAX_TITLE_LENGTH);
  }
  return noteBaseName(path).slice(0, MAX_TITLE_LENGTH);
}
